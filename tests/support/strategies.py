"""Hypothesis strategies for values of any schema type, under the mapping table.

Full ranges of every integer width, any unicode, NaN, infinities, -0.0, times
with nanoseconds anywhere in datetime's years, nested and recursive structs.
"""

from __future__ import annotations

import functools
from datetime import datetime, timezone
from typing import Any

from hypothesis import strategies as st

import zebrapack
from zebrapack import Kind, TypeRef

UTC = timezone.utc
GO_ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)

INTEGER_RANGES = {
    Kind.INT8: (-2**7, 2**7 - 1), Kind.INT16: (-2**15, 2**15 - 1), Kind.INT32: (-2**31, 2**31 - 1),
    Kind.INT64: (-2**63, 2**63 - 1), Kind.INT: (-2**63, 2**63 - 1),
    Kind.UINT8: (0, 2**8 - 1), Kind.BYTE: (0, 2**8 - 1), Kind.UINT16: (0, 2**16 - 1),
    Kind.UINT32: (0, 2**32 - 1), Kind.UINT64: (0, 2**64 - 1), Kind.UINT: (0, 2**64 - 1),
}


def _make_time(moment: datetime, nanosecond: int) -> datetime:
    return zebrapack.Timestamp.from_datetime(moment, nanosecond) if nanosecond else moment


def times() -> st.SearchStrategy[datetime | zebrapack.GoTime]:
    """UTC instants from year 1 to 9999, a third of them with sub-microsecond nanoseconds;
    now and then a Go time beyond those years (a GoTime)."""
    moments = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999),
                           timezones=st.just(UTC))
    nanoseconds = st.one_of(st.just(0), st.just(0), st.integers(1, 999))
    seconds_beyond = st.one_of(st.integers(-2**63, -62135596801), st.integers(253402300800, 2**63 - 1))
    beyond = st.builds(zebrapack.GoTime, seconds_beyond, st.integers(0, 999_999_999))
    return st.one_of(st.builds(_make_time, moments, nanoseconds), beyond)


def _interface_map_keys() -> st.SearchStrategy[Any]:
    # Go reads a map inside interface{} as map[string]interface{}: str keys only.
    return st.text(max_size=8)


def any_values(schema: zebrapack.Schema, with_structs: bool = True) -> st.SearchStrategy[Any]:
    """interface{} values: what zebrapack writes and reads back as the same Python value."""
    leaves = st.one_of(
        st.none(), st.booleans(), st.integers(-2**63, 2**64 - 1), st.floats(), st.text(max_size=20),
        st.binary(max_size=20), times(), st.builds(complex, st.floats(), st.floats()),
        # Go's other number types (a uint64 below 128 is a fixint, which reads back as int64)
        st.integers(128, 2**64 - 1).map(zebrapack.GoUint64), st.floats(width=32).map(zebrapack.GoFloat32),
        st.builds(zebrapack.GoComplex64, st.floats(width=32), st.floats(width=32)),
        st.builds(zebrapack.Ext, st.integers(-128, 127).filter(lambda code: code not in (-1, 3, 4, 5)),
                  st.binary(max_size=10)),
    )
    if with_structs:
        leaves = st.one_of(leaves, *(structs(schema, name) for name in ("Inner",) if name in schema.structs))
    return st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(_interface_map_keys(), inner, max_size=4)), max_leaves=12)


#: Struct nesting past which pointers, slices and maps are left empty (recursive types stay small).
MAX_STRUCT_DEPTH = 3


def values(schema: zebrapack.Schema, type_ref: TypeRef, *, field_level: bool = False,
           interface_structs: bool = True, depth: int = 0) -> st.SearchStrategy[Any]:
    kind = type_ref.kind
    if depth >= MAX_STRUCT_DEPTH and kind in (Kind.POINTER, Kind.SLICE, Kind.MAP):
        return st.builds({Kind.POINTER: type(None), Kind.SLICE: list, Kind.MAP: dict}[kind])
    nested = functools.partial(values, schema, interface_structs=interface_structs, depth=depth)
    if kind in INTEGER_RANGES:
        low, high = INTEGER_RANGES[kind]
        return st.integers(low, high)
    if kind == Kind.FLOAT32:
        return st.floats(width=32)
    if kind == Kind.FLOAT64:
        return st.floats()
    if kind == Kind.COMPLEX64:
        return st.builds(complex, st.floats(width=32), st.floats(width=32))
    if kind == Kind.COMPLEX128:
        return st.builds(complex, st.floats(), st.floats())
    if kind == Kind.STRING:
        return st.text()
    if kind == Kind.BYTES:
        return st.binary()
    if kind == Kind.BOOL:
        return st.booleans()
    if kind == Kind.TIME:
        # A time field holding Go's zero instant reads back as None (the mapping table).
        return st.one_of(st.none(), times().filter(lambda t: t != GO_ZERO_TIME)) if field_level else times()
    if kind == Kind.INTF:
        return any_values(schema, interface_structs)
    if kind == Kind.EXT:
        return st.one_of(st.none(), st.builds(zebrapack.Ext, st.integers(-128, 127), st.binary(max_size=10)))
    if kind == Kind.STRUCT:
        return _struct_strategy(schema, type_ref.name, interface_structs, depth + 1)
    if kind == Kind.IDENT_IFACE:
        return st.one_of(st.none(), *(_struct_strategy(schema, name, interface_structs, depth + 1)
                                      for name in schema.structs))
    if kind == Kind.POINTER:
        return st.one_of(st.none(), nested(type_ref.elem_type))
    if kind == Kind.SLICE:
        return st.lists(nested(type_ref.elem_type), max_size=5)
    if kind == Kind.ARRAY:
        n = type_ref.length
        if type_ref.elem_type.kind == Kind.BYTE:       # [N]uint8 is an array of integers
            return st.binary(min_size=n, max_size=n)
        return st.lists(nested(type_ref.elem_type), min_size=n, max_size=n)
    if kind == Kind.MAP:
        assert type_ref.key is not None
        return st.dictionaries(nested(type_ref.key), nested(type_ref.elem_type), max_size=4)
    raise AssertionError(f"no strategy for {type_ref}")


def structs(schema: zebrapack.Schema, name: str, *, interface_structs: bool = True) -> st.SearchStrategy[Any]:
    """Instances of a struct's class."""
    return _struct_strategy(schema, name, interface_structs, 0)


@functools.cache
def _struct_strategy(schema: zebrapack.Schema, name: str, interface_structs: bool,
                     depth: int) -> st.SearchStrategy[Any]:
    # One deferred strategy per struct and depth: built lazily, shared by every reference.
    def build() -> st.SearchStrategy[Any]:
        definition = schema.structs[name]
        fields = {f.attr: values(schema, f.type, field_level=True, interface_structs=interface_structs, depth=depth)
                  for f in definition.wire_fields if f.type is not None}
        return st.builds(schema.types[name], **fields)

    return st.deferred(build)
