"""zebrapack: ZebraPack for Python.

ZebraPack is msgpack2 in which a struct is a map keyed by small integers
(zids) instead of field names, described by a schema that is itself msgpack2.
This package reads and writes it byte for byte as the Go reference does::

    schema = zebrapack.load("my.z")     # .z, .z.json, bytes or dict
    obj = schema.decode(data)           # a dataclass of schema.types
    data = schema.encode(obj)           # strict: by the declared types
"""

from ._core import DEFAULT_MAX_DEPTH, DEFAULT_MAX_RECORD_SIZE, DEFAULT_ZERO_ALLOWANCE, StreamDecoder
from ._errors import DecodeError, EncodeError, SchemaError, TornTailError
from .evolution.compat import CompatibilityReport, Finding, check_compatible
from .evolution.from_dataclasses import (
                                         GoKind,
                                         Retired,
                                         Zid,
                                         byte,
                                         complex64,
                                         complex128,
                                         float32,
                                         float64,
                                         int8,
                                         int16,
                                         int32,
                                         int64,
                                         schema_from_dataclasses,
                                         uint,
                                         uint8,
                                         uint16,
                                         uint32,
                                         uint64,
)
from .golang.compiler import GoSourceError, schema_from_go
from .golang.emitter import go_source
from .schema.loader import Schema, Types, load
from .schema.model import FieldDef, Kind, SchemaDef, StructDef, TypeRef
from .schema.record_bases import FrozenRecord, Record
from .streams.index import (
                            IndexWarning,
                            build_index,
                            file_splits,
                            iter_split,
                            iter_split_batches,
                            load_index,
                            read_index,
)
from .streams.index_format import RecordIndex, Split
from .streams.async_records import AsyncRecordWriter
from .streams.records import RecordWriter
from .streams.recovery import Recovery, recover
from .streams.self_describing import SchemaStream, SchemaStreamDecoder, open_stream, schema_stream_decoder
from .values.ext import Ext
from .values.gonumbers import GoComplex64, GoFloat32, GoUint64
from .values.gotime import GoTime
from .values.timestamp import Timestamp

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_RECORD_SIZE",
    "DEFAULT_ZERO_ALLOWANCE",
    "AsyncRecordWriter",
    "CompatibilityReport",
    "DecodeError",
    "EncodeError",
    "Ext",
    "FieldDef",
    "Finding",
    "FrozenRecord",
    "GoComplex64",
    "GoFloat32",
    "GoKind",
    "GoSourceError",
    "GoTime",
    "GoUint64",
    "IndexWarning",
    "Kind",
    "Record",
    "RecordIndex",
    "RecordWriter",
    "Recovery",
    "Retired",
    "Schema",
    "SchemaDef",
    "SchemaError",
    "SchemaStream",
    "SchemaStreamDecoder",
    "Split",
    "StreamDecoder",
    "StructDef",
    "Timestamp",
    "TornTailError",
    "TypeRef",
    "Types",
    "Zid",
    "build_index",
    "byte",
    "check_compatible",
    "complex64",
    "complex128",
    "float32",
    "file_splits",
    "float64",
    "go_source",
    "int8",
    "int16",
    "int32",
    "int64",
    "iter_split",
    "iter_split_batches",
    "load",
    "load_index",
    "open_stream",
    "read_index",
    "recover",
    "schema_from_dataclasses",
    "schema_from_go",
    "schema_stream_decoder",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
