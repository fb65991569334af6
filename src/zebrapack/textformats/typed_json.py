"""Typed JSON (tests/vectors/README.md) to and from the Python values of a schema.

The conversion follows the declared type of every value, so it is lossless for
everything the decoder returns: ``from_json(to_json(record))`` gives back an
equal record, which encodes to the same bytes. Beyond the vectors' format:

- A NaN other than the default quiet NaN keeps its bits:
  ``{"$float": "nan", "$bits": "7ff8000000000001"}`` (the float64 bit pattern
  of the Python value, for float32 fields too).
- ``msgp.Extension`` values, and ext types inside ``interface{}`` that have no
  other meaning, are ``{"$ext": [code, "<hex>"]}``.
- In ``interface{}`` values the JSON token carries the Python type: a float is
  always written with a fraction or an exponent (``2.0``, ``1e+300``) and read
  back as a float (Go's float64), an integer token as an int (int64, or uint64
  beyond int64's range).
- The other Go number types an ``interface{}`` value can hold keep their type
  (``zebrapack.GoFloat32``, ``GoUint64``, ``GoComplex64``), so that dump ->
  encode writes them in the family Go wrote: ``{"$f32": 1.5}`` (the number, or
  a ``$float`` object for NaN, infinities and -0), ``{"$uint": 403}``,
  ``{"$complex64": [re, im]}``.
- A time outside the years 1-9999 (``zebrapack.GoTime``), in a time field or
  an ``interface{}`` value, is ``{"$gotime": [unix_seconds, nanoseconds]}``.
- A ``msgp.Number`` is written as an ``interface{}`` number (``5``, ``2.5``,
  ``{"$uint": 5}``, ``{"$f32": 2.5}``): its family is kept; a ``msgp.Raw`` is its
  msgpack bytes, ``{"$msgpack": "<hex>"}``.
- A field whose type zebrapack cannot represent is left out (its value is
  always None); a value set there, or the field in a JSON object, is an error.
- Maps are sorted by key text (the key itself for a string, else its compact
  JSON), or kept in the order of the dict (``sort_maps=False``): the decoder
  fills dicts in wire order, so that order re-encodes the map byte for byte.

Reading is strict: a value of the wrong JSON shape, an unknown field or
marker, a duplicate key or map key, ``NaN``/``Infinity`` tokens and numbers
beyond float64 are ``TypedJsonError`` with the field path. Ranges (int32,
float32, ``[N]T`` lengths) are left to the encoder, which checks them.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import msgpack

from ..schema.model import BYTE_KINDS, INTEGER_KINDS, Kind, StructDef, TypeRef
from ..values.ext import Ext
from .._core import GoFloat32, GoUint64
from ..values.gonumbers import GoComplex64
from ..values.gotime import GO_ZERO_TIME, GoTime
from ..values.timestamp import Timestamp

if TYPE_CHECKING:
    from ..schema.loader import Schema

#: The float64 bits of ``math.nan``: a NaN with these bits needs no ``$bits``.
DEFAULT_NAN_BITS = 0x7FF8000000000000
#: Go's zero time.Time, as typed JSON writes it.
GO_ZERO_TIME_TEXT = "0001-01-01T00:00:00Z"

_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")
_SPECIAL_FLOATS = MappingProxyType({"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0})
#: Kinds whose Python values are their own typed JSON.
_PLAIN_KINDS = INTEGER_KINDS | {Kind.STRING, Kind.BOOL}
_MARKERS = ("$type", "$map", "$bytes", "$time", "$complex", "$float", "$ext",
            "$f32", "$uint", "$complex64", "$gotime")
#: The Python types of msgp.Number values (an int is an int64, or a uint64 beyond it).
_NUMBER_TYPES = (int, float)


class TypedJsonError(ValueError):
    """A value that has no typed JSON form, or typed JSON that does not fit its type.

    ``path`` is the field path (``Compound.Inners[2].X``), as in DecodeError.
    """

    def __init__(self, reason: str, path: str = "") -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{path}: {reason}" if path else reason)

    def within(self, segment: str) -> TypedJsonError:
        """The same error, one level further out (``segment`` goes before the path)."""
        return TypedJsonError(self.reason, segment + self.path)


def _json_type(value: object) -> str:
    """A parsed JSON value's type, with the value when it is short, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        return f"string {json.dumps(value[:30], ensure_ascii=False)}{'...' if len(value) > 30 else ''}"
    if isinstance(value, list):
        return "an array"
    return "an object"


# -- scalars ------------------------------------------------------------------


def format_time(moment: datetime) -> str:
    """RFC 3339 in UTC as Go prints time.Time: nanoseconds, trailing zeros trimmed."""
    if moment.tzinfo is None:
        raise TypedJsonError(f"naive datetime {moment!r} has no time zone")
    if moment.utcoffset():
        moment = moment.astimezone(timezone.utc)
    nanos = moment.microsecond * 1000 + (moment.nanosecond if isinstance(moment, Timestamp) else 0)
    fraction = f".{nanos:09d}".rstrip("0") if nanos else ""
    return (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
            f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}{fraction}Z")


def parse_time(text: object) -> datetime:
    """The inverse of ``format_time``: a UTC datetime, or a Timestamp below the microsecond."""
    match = _TIME.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise TypedJsonError(f"$time must be RFC 3339 UTC text like {GO_ZERO_TIME_TEXT!r}, not {text!r}")
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    nanos = int((match.group(7) or "").ljust(9, "0"))
    try:
        if nanos % 1000:
            return Timestamp(year, month, day, hour, minute, second, nanos // 1000, timezone.utc,
                             nanosecond=nanos % 1000)
        return datetime(year, month, day, hour, minute, second, nanos // 1000, tzinfo=timezone.utc)
    except ValueError as exc:
        raise TypedJsonError(f"$time {text!r}: {exc}") from None


def time_to_json(moment: datetime | GoTime) -> dict[str, Any]:
    """A time: ``{"$time": text}``, or ``{"$gotime": [seconds, nanoseconds]}`` outside datetime's years."""
    if isinstance(moment, GoTime):
        return {"$gotime": [moment.seconds, moment.nanoseconds]}
    return {"$time": format_time(moment)}


def time_from_json(value: object) -> datetime | GoTime:
    """The inverse of ``time_to_json``."""
    if isinstance(value, dict) and "$gotime" in value:
        pair = _marker_value(value, "$gotime")
        if not (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(part, int) and not isinstance(part, bool) for part in pair)):
            raise TypedJsonError(f"$gotime must be [unix_seconds, nanoseconds], not {pair!r}")
        try:
            return GoTime(pair[0], pair[1])
        except ValueError as exc:
            raise TypedJsonError(f"$gotime: {exc}") from None
    return parse_time(_marker_value(value, "$time"))


def float_to_json(value: float) -> float | dict[str, str]:
    """A float as typed JSON: itself, or a ``$float`` object for NaN, infinities and -0."""
    if math.isnan(value):
        bits = struct.unpack(">Q", struct.pack(">d", value))[0]
        if bits == DEFAULT_NAN_BITS:
            return {"$float": "nan"}
        return {"$float": "nan", "$bits": f"{bits:016x}"}
    if math.isinf(value):
        return {"$float": "inf" if value > 0 else "-inf"}
    if value == 0.0 and math.copysign(1.0, value) < 0:
        return {"$float": "-0"}
    return value


def float_from_json(value: object) -> float:
    """A float from a JSON number (an integer only when it is exactly a float64) or a ``$float``."""
    if isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            result = float(value)
        except OverflowError:
            result = math.inf
        if result != value:
            raise TypedJsonError(f"{value} is not exactly a float64")
        return result
    if isinstance(value, dict) and "$float" in value:
        return _special_float(value)
    raise TypedJsonError(f"expected a number or {{\"$float\": ...}}, found {_json_type(value)}")


def _special_float(doc: dict[str, Any]) -> float:
    extra = set(doc) - {"$float", "$bits"}
    name = doc["$float"]
    if extra or name not in _SPECIAL_FLOATS:
        raise TypedJsonError(f"$float must be one of {', '.join(_SPECIAL_FLOATS)} (alone), not {doc!r}")
    if "$bits" not in doc:
        return _SPECIAL_FLOATS[name]
    bits = doc["$bits"]
    if name != "nan" or not isinstance(bits, str) or not re.fullmatch(r"[0-9a-f]{16}", bits):
        raise TypedJsonError(f"$bits goes with \"nan\" and is 16 lowercase hex digits, not {bits!r}")
    result: float = struct.unpack(">d", bytes.fromhex(bits))[0]
    if not math.isnan(result):
        raise TypedJsonError(f"$bits {bits} is not a NaN")
    return result


def _bytes_from_json(value: object, marker: str = "$bytes") -> bytes:
    text = _marker_value(value, marker)
    if not isinstance(text, str) or not _HEX.fullmatch(text):
        raise TypedJsonError(f"{marker} must be hex digits in pairs, not {text!r}")
    return bytes.fromhex(text)


def _ext_from_json(value: object) -> Ext:
    pair = _marker_value(value, "$ext")
    if (not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], int)
            or isinstance(pair[0], bool) or not -128 <= pair[0] <= 127
            or not isinstance(pair[1], str) or not _HEX.fullmatch(pair[1])):
        raise TypedJsonError(f"$ext must be [code -128..127, \"<hex>\"], not {pair!r}")
    return Ext(pair[0], bytes.fromhex(pair[1]))


def _complex_from_json(value: object) -> complex:
    pair = _marker_value(value, "$complex")
    if not isinstance(pair, list) or len(pair) != 2:
        raise TypedJsonError(f"$complex must be [real, imag], not {pair!r}")
    return complex(float_from_json(pair[0]), float_from_json(pair[1]))


def _go_number(go_type: Any, value: Any) -> Any:
    """A GoFloat32 / GoUint64 / GoComplex64, its range error a TypedJsonError."""
    try:
        return go_type(value)
    except ValueError as exc:
        raise TypedJsonError(f"{go_type.__name__}: {exc}") from None


def _marker_value(value: object, marker: str) -> Any:
    """The value of ``{marker: value}``, the object's only key."""
    if not isinstance(value, dict) or marker not in value:
        raise TypedJsonError(f"expected {{\"{marker}\": ...}}, found {_json_type(value)}")
    if len(value) != 1:
        raise TypedJsonError(f"unexpected keys beside {marker}: {', '.join(sorted(set(value) - {marker}))}")
    return value[marker]


def _key_segment(key: object) -> str:
    """The path segment of a map entry, as the codec writes it (``['k']``)."""
    text = repr(key)
    return f"[{text if len(text) <= 60 else text[:57] + '...'}]"


def _map_sort_key(pair: list[Any]) -> tuple[str, int]:
    key = pair[0]
    if isinstance(key, str):
        return key, 0
    return json.dumps(key, separators=(",", ":"), ensure_ascii=False, allow_nan=False), 1


# -- the converter ----------------------------------------------------------------


class TypedJson:
    """Converts the records of one schema to typed JSON (``to_json``) and back (``from_json``)."""

    def __init__(self, schema: Schema, *, sort_maps: bool = True) -> None:
        self._structs: Mapping[str, StructDef] = schema.structs
        self._classes = schema.types
        self._struct_of_class = {cls: name for name, cls in schema.types.items()}
        self._sort_maps = sort_maps
        # Per struct, its serialized fields in declaration order: (Go name, attribute,
        # type, whether the value is its own JSON: ints, strings, bools).
        self._fields = {
            name: [(f.go_name, f.attr, f.type, f.type.kind in _PLAIN_KINDS)
                   for f in struct.fields if not f.skip and f.type is not None]
            for name, struct in self._structs.items()
        }
        self._by_go_name = {name: {go_name: (attr, type_ref) for go_name, attr, type_ref, _ in fields}
                            for name, fields in self._fields.items()}
        # Per struct, its fields zebrapack cannot represent: Go name -> (attribute, why).
        self._unusable = {name: {f.go_name: (f.attr, f"{f.go_spelling} cannot be represented by zebrapack: "
                                             f"{f.unusable}") for f in struct.unusable_fields}
                          for name, struct in self._structs.items()}

    # -- Python value -> typed JSON ---------------------------------------------

    def to_json(self, record: Any) -> dict[str, Any]:
        """A struct instance of the schema as a typed JSON object.

        Values are taken to have the types the decoder gives (the encoder is
        what checks a value against its declared type).
        """
        name = self._struct_name_of(record)
        try:
            return self._struct_to_json(record, name)
        except TypedJsonError as exc:
            raise exc.within(name) from None

    def _struct_name_of(self, value: object) -> str:
        for cls in type(value).__mro__:
            name = self._struct_of_class.get(cls)
            if name is not None:
                return name
        raise TypedJsonError(f"{type(value).__name__} is not a struct of this schema")

    def _struct_to_json(self, record: Any, name: str) -> dict[str, Any]:
        result: dict[str, Any] = {"$type": name}
        for go_name, (attr, why) in self._unusable[name].items():
            if getattr(record, attr, None) is not None:
                raise TypedJsonError(f"{why}: the field must be None", "." + go_name)
        for go_name, attr, type_ref, plain in self._fields[name]:
            value = getattr(record, attr)
            if plain:
                result[go_name] = value
                continue
            try:
                if value is None and type_ref.kind == Kind.TIME:
                    result[go_name] = {"$time": GO_ZERO_TIME_TEXT}
                else:
                    result[go_name] = self._value_to_json(value, type_ref)
            except TypedJsonError as exc:
                raise exc.within("." + go_name) from None
        return result

    def _value_to_json(self, value: Any, type_ref: TypeRef) -> Any:
        kind = type_ref.kind
        if kind in _PLAIN_KINDS:
            return value
        if kind in (Kind.FLOAT32, Kind.FLOAT64):
            return float_to_json(value)
        if kind in (Kind.BYTES, Kind.ARRAY) and isinstance(value, (bytes, bytearray, memoryview)):
            return {"$bytes": bytes(value).hex()}
        if kind == Kind.TIME:
            return time_to_json(value)
        if kind in (Kind.COMPLEX64, Kind.COMPLEX128):
            return {"$complex": [float_to_json(value.real), float_to_json(value.imag)]}
        if kind == Kind.STRUCT:
            return self._struct_to_json(value, type_ref.name)
        if value is None:          # nil pointer, interface or extension
            return None
        if kind == Kind.POINTER:
            return self._value_to_json(value, type_ref.elem_type)
        if kind in (Kind.SLICE, Kind.ARRAY):
            return [self._item_to_json(index, item, type_ref.elem_type) for index, item in enumerate(value)]
        if kind == Kind.MAP:
            assert type_ref.key is not None
            key_type, elem_type = type_ref.key, type_ref.elem_type
            return self._map_to_json(value, lambda key: self._value_to_json(key, key_type),
                                     lambda item: self._value_to_json(item, elem_type))
        if kind == Kind.IDENT_IFACE:
            return self._struct_to_json(value, self._struct_name_of(value))
        if kind == Kind.EXT:
            return {"$ext": [value[0], bytes(value[1]).hex()]}
        if kind == Kind.RAW:
            return {"$msgpack": bytes(value).hex()}
        if kind == Kind.NUMBER:
            if isinstance(value, bool) or not isinstance(value, _NUMBER_TYPES):
                raise TypedJsonError(f"expected msgp.Number (an int, GoUint64, GoFloat32 or float), "
                                     f"found {type(value).__name__}")
        return self._any_to_json(value)

    def _item_to_json(self, index: int, item: Any, type_ref: TypeRef) -> Any:
        try:
            return self._value_to_json(item, type_ref)
        except TypedJsonError as exc:
            raise exc.within(f"[{index}]") from None

    def _map_to_json(self, value: Mapping[Any, Any], key_to_json: Callable[[Any], Any],
                     item_to_json: Callable[[Any], Any]) -> dict[str, Any]:
        pairs = []
        for key, item in value.items():
            try:
                pairs.append([key_to_json(key), item_to_json(item)])
            except TypedJsonError as exc:
                raise exc.within(_key_segment(key)) from None
        if self._sort_maps:
            pairs.sort(key=_map_sort_key)
        return {"$map": pairs}

    def _any_to_json(self, value: Any) -> Any:
        """An interface{} value: the Python type picks the typed JSON form."""
        value_type = type(value)
        if value_type is GoUint64:
            return {"$uint": int(value)}
        if value_type is GoFloat32:
            return {"$f32": float_to_json(value)}
        if value_type is GoComplex64:
            return {"$complex64": [float_to_json(value.real), float_to_json(value.imag)]}
        if value_type is GoTime:
            return time_to_json(value)
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            return float_to_json(value)
        if isinstance(value, (bytes, bytearray, memoryview)):
            return {"$bytes": bytes(value).hex()}
        if isinstance(value, datetime):
            return {"$time": format_time(value)}
        if isinstance(value, complex):
            return {"$complex": [float_to_json(value.real), float_to_json(value.imag)]}
        if isinstance(value, (Ext, msgpack.ExtType)):
            return {"$ext": [value[0], bytes(value[1]).hex()]}
        if isinstance(value, (list, tuple)):
            return [self._item_any_to_json(index, item) for index, item in enumerate(value)]
        if isinstance(value, dict):
            return self._map_to_json(value, self._any_to_json, self._any_to_json)
        return self._struct_to_json(value, self._struct_name_of(value))

    def _item_any_to_json(self, index: int, item: Any) -> Any:
        try:
            return self._any_to_json(item)
        except TypedJsonError as exc:
            raise exc.within(f"[{index}]") from None

    # -- typed JSON -> Python value ---------------------------------------------

    def from_json(self, document: Any, type: str | None = None) -> Any:
        """The struct instance a typed JSON object describes.

        ``type`` is the struct expected; without it the object's ``$type`` says.
        """
        name = document.get("$type") if isinstance(document, dict) else None
        if type is not None:
            if name is not None and name != type:
                raise TypedJsonError(f"the record is a {name!r}, expected {type!r}", type)
            name = type
        if not isinstance(name, str):
            raise TypedJsonError("the record has no \"$type\" naming its struct" if name is None
                                 else f"$type must be a struct name, not {name!r}", "$")
        if name not in self._structs:
            raise TypedJsonError(f"the schema has no struct {name!r}", "$")
        try:
            return self._struct_from_json(document, name)
        except TypedJsonError as exc:
            raise exc.within(name) from None

    def _struct_from_json(self, document: Any, name: str) -> Any:
        if not isinstance(document, dict):
            raise TypedJsonError(f"expected struct {name} (an object), found {_json_type(document)}")
        declared = document.get("$type", name)
        if declared != name:
            raise TypedJsonError(f"$type {declared!r} where struct {name} is declared")
        fields = self._by_go_name[name]
        values = {}
        for key, value in document.items():
            if key == "$type":
                continue
            try:
                attr, type_ref = fields[key]
            except KeyError:
                if key in self._unusable[name]:
                    raise TypedJsonError(self._unusable[name][key][1], "." + key) from None
                raise TypedJsonError(f"struct {name} has no field {key!r}") from None
            try:
                if type_ref.kind == Kind.TIME:
                    moment = time_from_json(value)
                    values[attr] = None if moment == GO_ZERO_TIME else moment
                else:
                    values[attr] = self._value_from_json(value, type_ref)
            except TypedJsonError as exc:
                raise exc.within("." + key) from None
        return self._classes[name](**values)

    def _value_from_json(self, value: Any, type_ref: TypeRef) -> Any:
        kind = type_ref.kind
        if kind in INTEGER_KINDS:
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypedJsonError(f"expected {type_ref.go}, found {_json_type(value)}")
            return value
        if kind == Kind.STRING:
            if not isinstance(value, str):
                raise TypedJsonError(f"expected string, found {_json_type(value)}")
            return value
        if kind == Kind.BOOL:
            if not isinstance(value, bool):
                raise TypedJsonError(f"expected bool, found {_json_type(value)}")
            return value
        if kind in (Kind.FLOAT32, Kind.FLOAT64):
            return self._float_field(value, kind)
        if kind == Kind.BYTES or kind == Kind.ARRAY and type_ref.elem_type.kind in BYTE_KINDS:
            return _bytes_from_json(value)
        if kind == Kind.TIME:
            return time_from_json(value)
        if kind in (Kind.COMPLEX64, Kind.COMPLEX128):
            return _complex_from_json(value)
        if kind == Kind.STRUCT:
            return self._struct_from_json(value, type_ref.name)
        if kind in (Kind.SLICE, Kind.ARRAY):
            if not isinstance(value, list):
                raise TypedJsonError(f"expected {type_ref.go} (an array), found {_json_type(value)}")
            return [self._item_from_json(index, item, type_ref.elem_type) for index, item in enumerate(value)]
        if kind == Kind.MAP:
            assert type_ref.key is not None
            key_type, elem_type = type_ref.key, type_ref.elem_type
            return self._map_from_json(value, lambda key: self._value_from_json(key, key_type),
                                       lambda item: self._value_from_json(item, elem_type))
        if kind == Kind.INTF:
            return self._any_from_json(value)
        if kind == Kind.NUMBER:
            number = None if isinstance(value, (list, str)) or value is None else self._any_from_json(value)
            if isinstance(number, bool) or not isinstance(number, _NUMBER_TYPES):
                raise TypedJsonError(f"expected msgp.Number (a number, or a $uint, $f32 or $float object), "
                                     f"found {_json_type(value)}")
            return number
        if kind == Kind.RAW:
            return _bytes_from_json(value, "$msgpack")
        if value is None:
            return None
        if kind == Kind.POINTER:
            return self._value_from_json(value, type_ref.elem_type)
        if kind == Kind.IDENT_IFACE:
            return self._named_struct_from_json(value)
        if kind == Kind.EXT:
            return _ext_from_json(value)
        raise AssertionError(f"no typed JSON rule for {type_ref}")

    @staticmethod
    def _float_field(value: Any, kind: Kind) -> float:
        result = float_from_json(value)
        if kind == Kind.FLOAT32 and isinstance(value, int):
            # An integer must be exact; a fraction is rounded to float32 as the encoder does.
            try:
                exact = struct.unpack(">f", struct.pack(">f", result))[0] == result
            except OverflowError:
                exact = False
            if not exact:
                raise TypedJsonError(f"{value} is not exactly a float32")
        return result

    def _item_from_json(self, index: int, item: Any, type_ref: TypeRef) -> Any:
        try:
            return self._value_from_json(item, type_ref)
        except TypedJsonError as exc:
            raise exc.within(f"[{index}]") from None

    def _map_from_json(self, value: Any, key_from_json: Callable[[Any], Any],
                       item_from_json: Callable[[Any], Any]) -> dict[Any, Any]:
        pairs = _marker_value(value, "$map")
        if not isinstance(pairs, list):
            raise TypedJsonError(f"$map must be an array of [key, value] pairs, not {_json_type(pairs)}")
        result: dict[Any, Any] = {}
        for pair in pairs:
            if not isinstance(pair, list) or len(pair) != 2:
                raise TypedJsonError(f"$map entries are [key, value] pairs, not {pair!r}")
            try:
                key = key_from_json(pair[0])
                hash(key)
            except TypedJsonError as exc:
                raise exc.within("[<key>]") from None
            except TypeError:
                raise TypedJsonError(f"{_json_type(pair[0])} cannot be a map key", "[<key>]") from None
            if key in result:
                raise TypedJsonError("the key appears twice in the $map", _key_segment(key))
            try:
                result[key] = item_from_json(pair[1])
            except TypedJsonError as exc:
                raise exc.within(_key_segment(key)) from None
        return result

    def _named_struct_from_json(self, value: Any) -> Any:
        name = value.get("$type") if isinstance(value, dict) else None
        if not isinstance(name, str) or name not in self._structs:
            raise TypedJsonError(f"expected an object whose \"$type\" names a struct of the schema, found "
                                 f"{_json_type(value) if name is None else repr(name)}")
        return self._struct_from_json(value, name)

    def _any_from_json(self, value: Any) -> Any:
        """An interface{} value: the JSON shape says the Python type."""
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return [self._item_any_from_json(index, item) for index, item in enumerate(value)]
        markers = [marker for marker in _MARKERS if marker in value]
        if len(markers) != 1:
            raise TypedJsonError(f"an interface{{}} object has one of the keys {', '.join(_MARKERS)}, "
                                 f"not {', '.join(sorted(value)) or 'none'}")
        marker = markers[0]
        if marker == "$type":
            return self._named_struct_from_json(value)
        if marker == "$map":
            return self._map_from_json(value, self._any_from_json, self._any_from_json)
        if marker == "$bytes":
            return _bytes_from_json(value)
        if marker in ("$time", "$gotime"):
            return time_from_json(value)
        if marker == "$complex":
            return _complex_from_json(value)
        if marker == "$float":
            return float_from_json(value)
        if marker == "$f32":
            return _go_number(GoFloat32, float_from_json(_marker_value(value, "$f32")))
        if marker == "$uint":
            number = _marker_value(value, "$uint")
            if not isinstance(number, int) or isinstance(number, bool):
                raise TypedJsonError(f"$uint must be an integer 0..2**64-1, not {_json_type(number)}")
            return _go_number(GoUint64, number)
        if marker == "$complex64":
            return _go_number(GoComplex64, _complex_from_json({"$complex": _marker_value(value, "$complex64")}))
        return _ext_from_json(value)

    def _item_any_from_json(self, index: int, item: Any) -> Any:
        try:
            return self._any_from_json(item)
        except TypedJsonError as exc:
            raise exc.within(f"[{index}]") from None


# -- JSON text --------------------------------------------------------------------


def json_writer(*, pretty: bool = False) -> Callable[[Any], str]:
    """The function writing typed JSON documents as text: one line, or indented with ``pretty``."""
    return json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=2 if pretty else None).encode


def _reject_constant(name: str) -> Any:
    raise TypedJsonError(f"{name} is not JSON; typed JSON writes {{\"$float\": ...}}")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise TypedJsonError(f"number {text} is beyond float64; typed JSON writes {{\"$float\": \"inf\"}}")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise TypedJsonError(f"key {key!r} appears twice in an object")
        result[key] = value
    return result


def json_reader() -> Callable[[str], Any]:
    """The function parsing JSON text strictly: no NaN/Infinity tokens, no duplicate
    keys, no float overflow. It raises ``json.JSONDecodeError`` for bad syntax and
    ``TypedJsonError`` for the rest."""
    return json.JSONDecoder(parse_float=_finite_float, parse_constant=_reject_constant,
                            object_pairs_hook=_unique_keys).decode
