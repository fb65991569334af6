"""Shared by the tests of zpa.write (tests/arrow/test_write_*.py): Python records as Arrow rows under the
mapping (docs/arrow.md), and ``zpa.write`` into bytes.

``arrow_rows`` turns records (what ``schema.decode`` gives) into the values
pyarrow's ``Table.from_pylist`` takes for ``zpa.arrow_schema``: times as
datetimes (a time field's Go zero time as None), complex numbers and exts as
small structs, maps as lists of (key, value), and the raw columns
(``interface{}``, named interfaces, recursive structs) as the msgpack bytes
``encode`` writes for the value, in the same mode.
"""

from __future__ import annotations

import io
from datetime import datetime, timezone
from typing import Any

import msgpack

import zebrapack
import zebrapack.arrow
from zebrapack import Kind
from zebrapack.arrow._mapping import ArrowField, arrow_fields

GO_ZERO = -62135596800


def table_of(pa: Any, schema: zebrapack.Schema, records: list[Any], type: Any = None, *,
             structnames: bool = True, mode: str = "zebrapack", time_unit: str = "ns") -> Any:
    """The pyarrow Table of records under the mapping."""
    arrow_schema = pa.schema(zebrapack.arrow.arrow_schema(schema, type, time_unit=time_unit))
    rows = arrow_rows(schema, records, type, structnames=structnames, mode=mode, time_unit=time_unit)
    return pa.Table.from_pylist(rows, schema=arrow_schema)


def arrow_rows(schema: zebrapack.Schema, records: list[Any], type: Any = None, *, structnames: bool = True,
               mode: str = "zebrapack", time_unit: str = "ns") -> list[dict[str, Any]]:
    root = arrow_fields(schema, type)
    convert = _Converter(schema, structnames, mode, 1 if time_unit == "ns" else 1000)
    return [convert.struct(root, record) for record in records]


def written(data: Any, schema: zebrapack.Schema, type: Any = None, **options: Any) -> bytes:
    """What zpa.write writes for data, as bytes."""
    out = io.BytesIO()
    rows = zebrapack.arrow.write(data, out, schema, type, **options)
    assert rows == _row_count(data)
    return out.getvalue()


def encoded(schema: zebrapack.Schema, records: list[Any], **options: Any) -> bytes:
    return b"".join(schema.encode(record, **options) for record in records)


def _row_count(data: Any) -> int:
    return data.num_rows if hasattr(data, "num_rows") else data.height if hasattr(data, "height") else len(data)


class _Converter:
    def __init__(self, schema: zebrapack.Schema, structnames: bool, mode: str, nanos_per_unit: int) -> None:
        self.nanos_per_unit = nanos_per_unit
        self.schema = schema
        self.structnames = structnames
        self.mode = mode

    def struct(self, node: ArrowField, value: Any) -> dict[str, Any]:
        return {child.name: self.field(child, getattr(value, _attr(child.name))) for child in node.children}

    def field(self, node: ArrowField, value: Any) -> Any:
        if node.time_field and (value is None or _nanoseconds(value) == GO_ZERO * 1_000_000_000):
            return None
        return self.value(node, value)

    def value(self, node: ArrowField, value: Any) -> Any:
        ref = node.type
        while ref is not None and ref.kind == Kind.POINTER:
            if value is None:
                return None
            ref = ref.elem_type
        if node.raw:
            return None if value is None else self.raw(ref, value)
        if ref is None or value is None:
            return value
        kind = ref.kind
        if kind == Kind.TIME:
            return self.time(value)
        if kind in (Kind.COMPLEX64, Kind.COMPLEX128):
            return {"real": value.real, "imag": value.imag}
        if kind == Kind.EXT:
            return {"code": value[0], "data": value[1]}
        if kind == Kind.STRUCT:
            return self.struct(node, value)
        if kind == Kind.MAP:
            entries = node.children[0]
            return [(self.value(entries.children[0], k), self.value(entries.children[1], v)) for k, v in value.items()]
        if kind in (Kind.SLICE, Kind.ARRAY) and node.children:
            return [self.value(node.children[0], item) for item in value]
        return value

    def time(self, value: Any) -> int:
        """The column's value: the instant in the unit (rounded down), within int64 (Go
        times beyond it are clamped: round trips then compare with what was written)."""
        return min(max(_nanoseconds(value) // self.nanos_per_unit, -2**63), 2**63 - 1)

    def raw(self, ref: Any, value: Any) -> bytes:
        """The msgpack bytes encode writes for value there."""
        if ref.kind == Kind.IDENT_IFACE:
            return interface_bytes(self.schema, value, structnames=self.structnames, mode=self.mode,
                                   kind=Kind.IDENT_IFACE)
        if ref.kind == Kind.STRUCT:
            return self.schema.encode(value, structnames=self.structnames, mode=self.mode)
        return interface_bytes(self.schema, value, structnames=self.structnames, mode=self.mode)


def interface_bytes(schema: zebrapack.Schema, value: Any, *, structnames: bool = True, mode: str = "zebrapack",
                    kind: Kind = Kind.INTF) -> bytes:
    """The bytes encode writes for value in an interface{} field (or a named interface
    field): a struct of the schema with such a field, encoded with only that field set."""
    for name, struct_def in schema.model.structs.items():
        for f in struct_def.wire_fields:
            if f.type is not None and f.type.kind == kind:
                carrier = zebrapack_zero(schema, name)
                setattr(carrier, f.attr, value)
                data = schema.encode(carrier, structnames=structnames, mode=mode)
                return _entry_value(data, f.zid if mode == "zebrapack" else f.tag_name)
    raise AssertionError("the schema has no interface{} field to carry the value")


def zebrapack_zero(schema: zebrapack.Schema, name: str) -> Any:
    """The struct's zero value (every field absent)."""
    return schema.decode(b"\x80", name)


def _entry_value(data: bytes, key: Any) -> bytes:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data)
    count = unpacker.read_map_header()
    for _ in range(count):
        found = unpacker.unpack()
        start = unpacker.tell()
        unpacker.skip()
        if found == key:
            return data[start:unpacker.tell()]
    raise AssertionError(f"no entry {key!r}")


def _attr(go_name: str) -> str:
    return zebrapack.FieldDef(0, go_name, go_name, None).attr


def _nanoseconds(value: Any) -> int:
    """A time as nanoseconds since the epoch (what a timestamp[ns] column holds; pyarrow
    takes ints for it, and datetimes would lose a Timestamp's nanoseconds)."""
    if isinstance(value, zebrapack.GoTime):
        return value.seconds * 1_000_000_000 + value.nanoseconds
    delta = value - _EPOCH
    nanos = (delta.days * 86400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
    return nanos + getattr(value, "nanosecond", 0)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
