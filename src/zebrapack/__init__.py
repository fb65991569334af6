"""zebrapack: ZebraPack for Python.

ZebraPack is msgpack2 in which a struct is a map keyed by small integers
(zids) instead of field names, described by a schema that is itself msgpack2.
This package reads and writes it byte for byte as the Go reference does::

    schema = zebrapack.load("my.z")     # .z, .z.json, bytes or dict
    obj = schema.decode(data)           # a dataclass of schema.types
    data = schema.encode(obj)           # strict: by the declared types
"""

from ._core import DEFAULT_MAX_DEPTH
from ._errors import DecodeError, EncodeError, SchemaError
from ._ext import Ext
from ._model import FieldDef, Kind, SchemaDef, StructDef, TypeRef
from ._schema import Schema, Types, load
from ._stream import RecordWriter, SchemaStream, open_stream
from ._timestamp import Timestamp

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DecodeError",
    "EncodeError",
    "Ext",
    "FieldDef",
    "Kind",
    "RecordWriter",
    "Schema",
    "SchemaDef",
    "SchemaError",
    "SchemaStream",
    "StructDef",
    "Timestamp",
    "TypeRef",
    "Types",
    "load",
    "open_stream",
]
