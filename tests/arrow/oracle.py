"""The Arrow data that ``zebrapack.arrow.read`` must produce, computed without it.

An oracle for the conformance tests, independent of the reader: it takes what
``schema.decode`` returns for each record (the Python mapping, already tested
against the Go reference) and turns it into a ``pyarrow.Table`` under the type
mapping of the Arrow contract (README "Arrow" section, ARROW.md):

- integers keep width and sign, floats their bits, ``time.Time`` is
  ``timestamp[ns|us, UTC]`` (a struct's own time field nullable: Go's zero time,
  ``None`` in Python, is null there); a time the unit cannot hold is an error;
- ``complex64/128`` -> ``struct<real, imag>``, ``msgp.Extension`` ->
  ``struct<code: int8, data: binary>`` (nullable), tagged with extension names;
- ``interface{}`` and named interfaces -> binary holding the value's own msgpack
  bytes (nullable), extension ``zebrapack.msgpack`` (metadata: the interface's
  name, empty for ``interface{}``); a struct met again inside itself (Arrow
  types cannot recurse) is the same binary, its metadata the struct's name;
- pointers nullable; structs ``struct<...>`` in zid order; slices lists, fixed
  arrays fixed-size lists (``[N]byte`` fixed-size binary), maps Arrow maps in
  wire order; a field is nullable only where Python has ``None``.

The msgpack bytes of ``interface{}`` values are not re-encoded from the decoded
value: ``walk`` parses the record's raw msgpack structure (offsets only), and the
oracle slices the value's bytes out of the record. Float bits come from the
wire too where the wire holds a float of the declared width (Python's float
conversions may quiet a signalling NaN). The values are built with every float
spelled as its bits (uint32/uint64) and viewed as floats at the end, so that
comparisons are bit for bit (see ``assert_same_table``).
"""

from __future__ import annotations

import functools
import struct
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import msgpack

import zebrapack
from zebrapack import Kind, TypeRef
from zebrapack.schema.model import StructDef

from support.engines import engine

pa = engine("pyarrow")

EXTENSION_NAME = "ARROW:extension:name"
EXTENSION_METADATA = "ARROW:extension:metadata"
#: What one unit of each time unit is worth in nanoseconds.
UNIT_NANOSECONDS = {"ns": 1, "us": 1000}
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

INTEGER_TYPES = {
    Kind.INT8: pa.int8(), Kind.INT16: pa.int16(), Kind.INT32: pa.int32(), Kind.INT64: pa.int64(),
    Kind.INT: pa.int64(), Kind.UINT8: pa.uint8(), Kind.BYTE: pa.uint8(), Kind.UINT16: pa.uint16(),
    Kind.UINT32: pa.uint32(), Kind.UINT64: pa.uint64(), Kind.UINT: pa.uint64(),
}
SCALAR_TYPES = {**INTEGER_TYPES, Kind.STRING: pa.string(), Kind.BYTES: pa.binary(), Kind.BOOL: pa.bool_()}
#: float kind -> (Arrow type, struct format of its bits, the wire head of that width)
FLOATS = {Kind.FLOAT32: (pa.float32(), "f", 0xca), Kind.FLOAT64: (pa.float64(), "d", 0xcb)}
#: complex kind -> (its float kind, extension name, ext code on the wire, payload size)
COMPLEXES = {Kind.COMPLEX64: (Kind.FLOAT32, "zebrapack.complex64", 3, 8),
             Kind.COMPLEX128: (Kind.FLOAT64, "zebrapack.complex128", 4, 16)}


class Unrepresentable(Exception):
    """A decoded value the Arrow mapping cannot hold: the reader must refuse the record
    with a DecodeError naming ``path``."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


# -- the raw msgpack structure of a record -------------------------------------------


@dataclass(frozen=True)
class Raw:
    """One msgpack object of a record: where it lies, its first byte, and its parts
    (an array's items; a map's (key, value) pairs; an ext's code and payload start)."""

    start: int
    end: int
    head: int
    items: tuple[Any, ...] = ()
    ext_code: int | None = None
    payload: int = 0

    @property
    def is_nil(self) -> bool:
        return self.head == 0xc0

    @property
    def is_map(self) -> bool:
        return 0x80 <= self.head <= 0x8f or self.head in (0xde, 0xdf)

    @property
    def is_array(self) -> bool:
        return 0x90 <= self.head <= 0x9f or self.head in (0xdc, 0xdd)


_FIXED_SIZES = {0xc0: 0, 0xc2: 0, 0xc3: 0, 0xca: 4, 0xcb: 8, 0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8,
                0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}
_LENGTH_SIZES = {0xc4: 1, 0xc5: 2, 0xc6: 4, 0xd9: 1, 0xda: 2, 0xdb: 4}      # bin, str
_EXT_LENGTH_SIZES = {0xc7: 1, 0xc8: 2, 0xc9: 4}
_FIXEXT_SIZES = {0xd4: 1, 0xd5: 2, 0xd6: 4, 0xd7: 8, 0xd8: 16}


def walk(data: bytes, pos: int = 0) -> Raw:
    """The msgpack object at ``pos`` (ValueError when the bytes are not msgpack)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 50_000))     # the fuzz corpus nests 1,000 deep (two frames a level)
    try:
        return _walk(data, pos)
    finally:
        sys.setrecursionlimit(limit)


def _walk(data: bytes, pos: int) -> Raw:
    if pos >= len(data):
        raise ValueError(f"msgpack truncated at {pos}")
    head = data[pos]
    at = pos + 1

    def length(size: int) -> int:
        nonlocal at
        if at + size > len(data):
            raise ValueError(f"msgpack truncated at {at}")
        value = int.from_bytes(data[at:at + size], "big")
        at += size
        return value

    def finish(end: int, **parts: Any) -> Raw:
        if end > len(data):
            raise ValueError(f"msgpack object at {pos} runs past the end")
        return Raw(pos, end, head, **parts)

    if head <= 0x7f or head >= 0xe0:
        return finish(at)
    if head <= 0x9f or head in (0xdc, 0xdd, 0xde, 0xdf):
        if head <= 0x8f:
            count, pairs = head & 0x0f, True
        elif head <= 0x9f:
            count, pairs = head & 0x0f, False
        else:
            count, pairs = length(2 if head in (0xdc, 0xde) else 4), head in (0xde, 0xdf)
        items: list[Any] = []
        for _ in range(count):
            first = _walk(data, at)
            at = first.end
            if pairs:
                second = _walk(data, at)
                at = second.end
                items.append((first, second))
            else:
                items.append(first)
        return finish(at, items=tuple(items))
    if head <= 0xbf:
        return finish(at + (head & 0x1f))
    if head in _FIXED_SIZES:
        return finish(at + _FIXED_SIZES[head])
    if head in _LENGTH_SIZES:
        size = length(_LENGTH_SIZES[head])
        return finish(at + size)
    if head in _EXT_LENGTH_SIZES or head in _FIXEXT_SIZES:
        size = length(_EXT_LENGTH_SIZES[head]) if head in _EXT_LENGTH_SIZES else _FIXEXT_SIZES[head]
        code = int.from_bytes(data[at:at + 1], "big", signed=True)
        return finish(at + 1 + size, ext_code=code, payload=at + 1)
    raise ValueError(f"byte 0x{head:02x} at {pos} is not msgpack")


def split_records(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each msgpack object of a stream of records."""
    spans, pos = [], 0
    while pos < len(data):
        end = walk(data, pos).end
        spans.append((pos, end))
        pos = end
    return spans


def _scalar_key(data: bytes, raw: Raw) -> Any:
    """The value of a struct map's key (int zid, str tag or name), None if neither."""
    try:
        key = msgpack.unpackb(data[raw.start:raw.end], raw=False, strict_map_key=False)
    except (ValueError, msgpack.ExtraData):
        return None
    return key if isinstance(key, (int, str)) else None


# -- the expected Arrow schema -------------------------------------------------------

#: A column selection: None takes a struct's every field; else Go name -> its own selection.
Selection = dict[str, Any] | None


def select(schema: zebrapack.Schema, struct_def: StructDef, columns: Sequence[str] | None) -> Selection:
    """The selection ``columns`` (Go names, or dotted paths through struct values and
    pointers to structs) makes; KeyError naming an unknown one."""
    if columns is None:
        return None
    selection: dict[str, Any] = {}
    for column in columns:
        node, current = selection, struct_def
        parts = column.split(".")
        for depth, part in enumerate(parts):
            field = next((f for f in current.wire_fields if f.go_name == part), None)
            if field is None or field.type is None:
                raise KeyError(column)
            last = depth == len(parts) - 1
            if last or node.get(part, {}) is None:
                node[part] = None if last else node[part]
                if not last:                     # already whole: check the rest of the path only
                    _check_path(schema, field.type, parts[depth + 1:], column)
                break
            target = _struct_through_pointers(field.type)
            if target is None:
                raise KeyError(column)
            node = node.setdefault(part, {})
            current = schema.structs[target]
    return selection


def _check_path(schema: zebrapack.Schema, ref: TypeRef, parts: list[str], column: str) -> None:
    for part in parts:
        target = _struct_through_pointers(ref)
        field = next((f for f in schema.structs[target].wire_fields if f.go_name == part), None) if target else None
        if field is None or field.type is None:
            raise KeyError(column)
        ref = field.type


def _struct_through_pointers(ref: TypeRef) -> str | None:
    while ref.kind == Kind.POINTER:
        ref = ref.elem_type
    return ref.name if ref.kind == Kind.STRUCT else None


def _extension(name: str, metadata: str = "") -> dict[bytes, bytes]:
    return {EXTENSION_NAME.encode(): name.encode(), EXTENSION_METADATA.encode(): metadata.encode()}


def _is_raw(ref: TypeRef, ancestry: tuple[str, ...]) -> bool:
    """Whether values of this type are kept as their own msgpack bytes."""
    return ref.kind in (Kind.INTF, Kind.IDENT_IFACE) or (ref.kind == Kind.STRUCT and ref.name in ancestry)


class _Types:
    """The Arrow fields of a schema's types, times in ``time_unit``."""

    def __init__(self, schema: zebrapack.Schema, time_unit: str) -> None:
        self.schema = schema
        self.time_type = pa.timestamp(time_unit, "UTC")

    def field(self, name: str, ref: TypeRef, ancestry: tuple[str, ...], selection: Selection = None,
              nullable: bool = False) -> pa.Field:
        """The Arrow field of a value of type ``ref`` (``ancestry``: the structs it is inside)."""
        kind = ref.kind
        if kind == Kind.POINTER:
            return self.field(name, ref.elem_type, ancestry, selection, True)
        if kind in SCALAR_TYPES:
            return pa.field(name, SCALAR_TYPES[kind], nullable)
        if kind in FLOATS:
            return pa.field(name, FLOATS[kind][0], nullable)
        if kind == Kind.TIME:
            return pa.field(name, self.time_type, nullable)
        if kind in COMPLEXES:
            part_kind, extension, _, _ = COMPLEXES[kind]
            part = FLOATS[part_kind][0]
            parts = pa.struct([pa.field("real", part, False), pa.field("imag", part, False)])
            return pa.field(name, parts, nullable, metadata=_extension(extension))
        if kind == Kind.EXT:
            parts = pa.struct([pa.field("code", pa.int8(), False), pa.field("data", pa.binary(), False)])
            return pa.field(name, parts, True, metadata=_extension("zebrapack.ext"))
        if kind == Kind.INTF:
            return pa.field(name, pa.binary(), True, metadata=_extension("zebrapack.msgpack"))
        if kind == Kind.IDENT_IFACE:
            return pa.field(name, pa.binary(), True, metadata=_extension("zebrapack.msgpack", ref.name))
        if kind == Kind.STRUCT:
            if ref.name in ancestry:
                return pa.field(name, pa.binary(), nullable, metadata=_extension("zebrapack.msgpack", ref.name))
            fields = self.struct_fields(self.schema.structs[ref.name], ancestry + (ref.name,), selection)
            return pa.field(name, pa.struct(list(fields)), nullable)
        if kind == Kind.ARRAY and ref.elem_type.kind == Kind.BYTE:
            return pa.field(name, pa.binary(ref.length), nullable)
        if kind == Kind.SLICE:
            return pa.field(name, pa.list_(self.field("item", ref.elem_type, ancestry)), nullable)
        if kind == Kind.ARRAY:
            return pa.field(name, pa.list_(self.field("item", ref.elem_type, ancestry), ref.length), nullable)
        if kind == Kind.MAP:
            assert ref.key is not None
            key = self.field("key", ref.key, ancestry).with_nullable(False)
            return pa.field(name, pa.map_(key, self.field("value", ref.elem_type, ancestry)), nullable)
        raise AssertionError(f"no Arrow mapping for {ref}")

    def struct_fields(self, struct_def: StructDef, ancestry: tuple[str, ...],
                      selection: Selection) -> Iterator[pa.Field]:
        for f in struct_def.wire_fields:
            if selection is not None and f.go_name not in selection:
                continue
            assert f.type is not None
            field = self.field(f.go_name, f.type, ancestry, selection and selection[f.go_name])
            yield field.with_nullable(True) if f.type.kind == Kind.TIME else field


def expected_schema(schema: zebrapack.Schema, type_name: str, columns: Sequence[str] | None = None,
                    time_unit: str = "ns") -> pa.Schema:
    """The schema of the batches ``zpa.read(..., type=type_name, columns=..., time_unit=...)`` makes."""
    struct_def = schema.structs[type_name]
    fields = _Types(schema, time_unit).struct_fields(struct_def, (type_name,), select(schema, struct_def, columns))
    return pa.schema(list(fields))


# -- the expected values -------------------------------------------------------------


class _Converter:
    """Python values of the 'bits' Arrow type (floats as unsigned ints) from decoded values."""

    def __init__(self, schema: zebrapack.Schema, data: bytes, time_unit: str) -> None:
        self.schema = schema
        self.data = data
        self.unit = UNIT_NANOSECONDS[time_unit]

    def value(self, ref: TypeRef, value: Any, raw: Raw | None, ancestry: tuple[str, ...], path: str,
              selection: Selection = None) -> Any:
        kind = ref.kind
        if kind == Kind.POINTER:
            if value is None:
                return None
            return self.value(ref.elem_type, value, None if raw is None or raw.is_nil else raw, ancestry, path,
                              selection)
        if _is_raw(ref, ancestry):
            if raw is None or (raw.is_nil and kind != Kind.STRUCT):
                assert value is None, f"{path}: a decoded value without its bytes"
                return None
            return self.data[raw.start:raw.end]
        if kind in SCALAR_TYPES:
            return value
        if kind in FLOATS:
            return self.float_bits(kind, value, raw)
        if kind == Kind.TIME:
            return None if value is None else self.time(value, path)
        if kind in COMPLEXES:
            return self.complex_parts(kind, value, raw)
        if kind == Kind.EXT:
            return None if value is None else {"code": value.code, "data": value.data}
        if kind == Kind.STRUCT:
            return self.struct(ref.name, value, raw, ancestry, path, selection)
        if kind == Kind.ARRAY and ref.elem_type.kind == Kind.BYTE:
            return bytes(value)
        if kind in (Kind.SLICE, Kind.ARRAY):
            raws = _aligned(raw.items if raw is not None and raw.is_array else None, len(value))
            return [self.value(ref.elem_type, item, item_raw, ancestry, f"{path}[{i}]")
                    for i, (item, item_raw) in enumerate(zip(value, raws))]
        if kind == Kind.MAP:
            assert ref.key is not None
            raws = _aligned(raw.items if raw is not None and raw.is_map else None, len(value))
            return [(self.value(ref.key, key, pair and pair[0], ancestry, f"{path}[{key!r}]"),
                     self.value(ref.elem_type, item, pair and pair[1], ancestry, f"{path}[{key!r}]"))
                    for (key, item), pair in zip(value.items(), raws)]
        raise AssertionError(f"no Arrow mapping for {ref}")

    def struct(self, name: str, value: Any, raw: Raw | None, ancestry: tuple[str, ...], path: str,
               selection: Selection) -> dict[str, Any]:
        struct_def = self.schema.structs[name]
        entries: dict[Any, Raw] = {}
        if raw is not None and raw.is_map:
            for key, item in raw.items:
                entries[_scalar_key(self.data, key)] = item     # a duplicate zid: the last one, as decode
        out = {}
        for f in struct_def.wire_fields:
            if selection is not None and f.go_name not in selection:
                continue
            assert f.type is not None
            field_raw = entries.get(f.zid, entries.get(f.tag_name))
            out[f.go_name] = self.value(f.type, getattr(value, f.attr), field_raw, ancestry + (name,),
                                        f"{path}.{f.go_name}", selection and selection[f.go_name])
        return out

    def float_bits(self, kind: Kind, value: float, raw: Raw | None) -> int:
        _, letter, head = FLOATS[kind]
        if raw is not None and raw.head == head:
            return int.from_bytes(self.data[raw.start + 1:raw.end], "big")
        return int.from_bytes(struct.pack(f">{letter}", value), "big")

    def complex_parts(self, kind: Kind, value: complex, raw: Raw | None) -> dict[str, int]:
        part_kind, _, code, size = COMPLEXES[kind]
        if raw is not None and raw.ext_code == code and raw.end - raw.payload == size:
            half = size // 2
            real = self.data[raw.payload:raw.payload + half]
            imag = self.data[raw.payload + half:raw.end]
            return {"real": int.from_bytes(real, "big"), "imag": int.from_bytes(imag, "big")}
        return {"real": self.float_bits(part_kind, value.real, None),
                "imag": self.float_bits(part_kind, value.imag, None)}

    def time(self, value: datetime | zebrapack.GoTime, path: str) -> int:
        moment = value if isinstance(value, zebrapack.GoTime) else zebrapack.GoTime.from_datetime(value)
        count, rest = divmod(moment.seconds * 1_000_000_000 + moment.nanoseconds, self.unit)
        if rest:
            raise Unrepresentable(path, f"{moment} has nanoseconds that the time unit cannot hold")
        if not INT64_MIN <= count <= INT64_MAX:
            raise Unrepresentable(path, f"{moment} is outside the time unit's range")
        return count


def _aligned(items: Sequence[Any] | None, count: int) -> Sequence[Any]:
    """The raw parts of a container when they line up with its decoded items, else no raw."""
    return items if items is not None and len(items) == count else [None] * count


def bits_type(arrow_type: pa.DataType) -> pa.DataType:
    """The type with every float replaced by the unsigned integer of its bits (same layout)."""
    if pa.types.is_float32(arrow_type):
        return pa.uint32()
    if pa.types.is_float64(arrow_type):
        return pa.uint64()
    if pa.types.is_map(arrow_type):
        return pa.map_(_bits_field(arrow_type.key_field), _bits_field(arrow_type.item_field))
    if pa.types.is_fixed_size_list(arrow_type):
        return pa.list_(_bits_field(arrow_type.value_field), arrow_type.list_size)
    if pa.types.is_list(arrow_type):
        return pa.list_(_bits_field(arrow_type.value_field))
    if pa.types.is_struct(arrow_type):
        return pa.struct([_bits_field(arrow_type.field(i)) for i in range(arrow_type.num_fields)])
    return arrow_type


def _bits_field(field: pa.Field) -> pa.Field:
    return pa.field(field.name, bits_type(field.type), field.nullable, field.metadata)


@dataclass
class Expected:
    """What reading a source must give: the table, or the error of record ``record``: a
    ``DecodeError`` where decode refuses the bytes, ``Unrepresentable`` where decode takes
    them but the mapping cannot hold a value."""

    table: pa.Table | None
    record: int | None = None
    error: zebrapack.DecodeError | Unrepresentable | None = None


def expected_read(schema: zebrapack.Schema, data: bytes, type_name: str, *, columns: Sequence[str] | None = None,
                  time_unit: str = "ns", strict: bool = False) -> Expected:
    """What ``zpa.read(data, schema, type_name, columns=..., time_unit=..., strict=...)`` makes
    of a stream of records: the table built from ``schema.decode`` of each record, or the
    first error (decode's own, or a value the mapping cannot hold). Remembered: tests ask
    for the same expectation again."""
    return _expected_read(schema, bytes(data), type_name, None if columns is None else tuple(columns), time_unit,
                          strict)


@functools.lru_cache(maxsize=256)
def _expected_read(schema: zebrapack.Schema, data: bytes, type_name: str, columns: tuple[str, ...] | None,
                   time_unit: str, strict: bool) -> Expected:
    arrow_schema = expected_schema(schema, type_name, columns, time_unit)
    struct_def = schema.structs[type_name]
    selection = select(schema, struct_def, columns)
    converter = _Converter(schema, data, time_unit)
    rows = []
    start = 0
    try:
        for number, value in enumerate(schema.iter_decode(data, type_name, strict=strict)):
            raw = walk(data, start)
            start = raw.end
            try:
                rows.append(converter.struct(type_name, value, raw, (), type_name, selection))
            except Unrepresentable as error:            # the reader stops at the first bad record
                return Expected(None, number, error)
    except zebrapack.DecodeError as error:
        return Expected(None, len(rows), error)
    arrays = [pa.array([row[field.name] for row in rows], bits_type(field.type)).view(field.type)
              for field in arrow_schema]
    if not arrays:                                      # no column chosen: the rows still count
        return Expected(pa.Table.from_struct_array(pa.array([{}] * len(rows), pa.struct([]))))
    return Expected(pa.Table.from_arrays(arrays, schema=arrow_schema))


# -- comparing -----------------------------------------------------------------------


def _bits_view(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    whole = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    return whole.view(bits_type(whole.type))


def assert_same_table(actual: pa.Table, expected: pa.Table) -> None:
    """Same fields (names, types, nullability, field metadata) and the same values, floats
    compared by their bits; a message that names the first differing column and row."""
    assert actual.schema.names == expected.schema.names, (actual.schema.names, expected.schema.names)
    for got, want in zip(actual.schema, expected.schema):
        assert got.equals(want, check_metadata=True), f"field {want.name}: {got} {got.metadata}, " \
            f"expected {want} {want.metadata}"
        assert got.type.equals(want.type, check_metadata=True), f"field {want.name}: {got.type}, expected {want.type}"
    assert actual.num_rows == expected.num_rows, (actual.num_rows, expected.num_rows)
    for name in expected.schema.names:
        got_bits, want_bits = _bits_view(actual.column(name)), _bits_view(expected.column(name))
        if not got_bits.equals(want_bits):
            row = next(i for i in range(len(want_bits)) if not got_bits[i].equals(want_bits[i]))
            raise AssertionError(f"column {name}, row {row}: {_short(actual.column(name)[row])}, "
                                 f"expected {_short(expected.column(name)[row])}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 300 else f"{text[:300]}... ({len(text)} characters)"


def validate_full(batches: Iterable[pa.RecordBatch]) -> list[pa.RecordBatch]:
    """pyarrow's full validation of every batch and of each column on its own."""
    out = []
    for batch in batches:
        batch.validate(full=True)
        for column in batch.columns:
            column.validate(full=True)
        out.append(batch)
    return out
