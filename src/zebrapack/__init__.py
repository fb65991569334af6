"""zebrapack: ZebraPack for Python.

ZebraPack is msgpack2 in which a struct is a map keyed by small integers
(zids) instead of field names, described by a schema that is itself msgpack2.
This package reads and writes it byte for byte as the Go reference does::

    schema = zebrapack.load("my.z")     # .z, .z.json, bytes or dict
    obj = schema.decode(data)           # a dataclass of schema.types
    data = schema.encode(obj)           # strict: by the declared types
"""

from . import gotypes
from ._core import DEFAULT_MAX_DEPTH, DEFAULT_MAX_RECORD_SIZE, DEFAULT_ZERO_ALLOWANCE, GoFloat32, GoUint64, StreamDecoder
from ._errors import DecodeError, EncodeError, SchemaError, TornTailError
from ._version import __version__ as __version__
from .evolution.compat import CompatibilityReport, Finding, check_compatible
from .golang.emitter import go_source

# The Go width aliases live in zebrapack.gotypes and stay importable from here, as
# before that module (explicit re-exports, out of __all__).
from .gotypes import (
    GoKind as GoKind,
    byte as byte,
    complex64 as complex64,
    complex128 as complex128,
    float32 as float32,
    float64 as float64,
    int8 as int8,
    int16 as int16,
    int32 as int32,
    int64 as int64,
    uint as uint,
    uint8 as uint8,
    uint16 as uint16,
    uint32 as uint32,
    uint64 as uint64,
)
from .recordio.async_records import AsyncRecordWriter
from .recordio.index_format import RecordIndex, Split
from .recordio.records import RecordWriter
from .schema.loader import Schema, Types, load
from .schema.model import FieldDef, Kind, SchemaDef, StructDef, TypeRef
from .schema.record_bases import FrozenRecord, Record
from .sources.from_dataclasses import Retired, Zid, schema_from_dataclasses
from .sources.from_go import GoSourceError, schema_from_go
from .streams.index import (
                            IndexWarning,
                            build_index,
                            file_splits,
                            iter_split,
                            iter_split_batches,
                            load_index,
                            read_index,
)
from .streams.recovery import Recovery, recover
from .streams.self_describing import SchemaStream, SchemaStreamDecoder, open_stream, schema_stream_decoder
from .values.ext import Ext
from .values.gonumbers import GoComplex64
from .values.gotime import GoTime
from .values.timestamp import Timestamp


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
    "check_compatible",
    "file_splits",
    "go_source",
    "gotypes",
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
]
