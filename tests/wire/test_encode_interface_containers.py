"""A flat record's interface{} field holding an exact list or dict (``{"a": [1, 2], "b":
{"c": "d"}}``: two levels of them, their items what a ``[]interface{}`` item holds in
line) is stored by the in-line writer (write_flat_record, ``store_any_container`` in
cython/_packer.pxi); anything else in it (a tuple, a subclass, a deeper level, a key
that is no str, a value no interface{} holds) hands the record to write_struct. Both
must give the same bytes and the same errors, at the root, inside a struct and as a
list's item, for every max_depth: an instance of a subclass always takes write_struct,
and is the reference here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import EncodeError, GoFloat32, GoUint64

from support.encode_outcomes import encode_outcome
from support.interface_records import Inner, Rec, zid_field


@dataclass(slots=True)
class Recs:
    Items: list[Rec] = zid_field(0, factory=list)


@dataclass(slots=True)
class RecRef(Rec):
    pass


@dataclass(slots=True)
class InnerRef(Inner):
    pass


def schema_of(max_depth: int) -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(Rec, Recs, package="icontainers", max_depth=max_depth)


SCHEMA = zebrapack.schema_from_dataclasses(Rec, Recs, package="icontainers")
UTC_TIME = datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
OTHER_ZONE = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))


class Text(str):
    pass


atoms = st.one_of(
    st.none(), st.booleans(),
    st.integers(-2**64, 2**65), st.sampled_from([0, -1, 127, 128, -33, 2**63, 2**64 - 1, -(2**63)]),
    st.floats(allow_nan=False), st.text(max_size=12), st.text(alphabet="é\u4e00x", min_size=30, max_size=90),
    st.binary(max_size=8), st.sampled_from([UTC_TIME, OTHER_ZONE, GoFloat32(2.5), GoUint64(2**64 - 1),
                                            "\udc80", Text("sub"), 1.5j, object()]),
)
keys = st.one_of(st.text(max_size=6), st.sampled_from([1, b"k", Text("t"), "\udc80", None]))
values = st.recursive(
    atoms,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(keys, inner, max_size=4),
                            st.tuples(inner)),
    max_leaves=14)


def reference_of(record: Rec) -> RecRef:
    return RecRef(A=record.A, S=record.S, B=record.B, In=InnerRef(V=record.In.V, N=record.In.N))


def assert_same(schema: zebrapack.Schema, record: Rec) -> Any:
    """The record's outcome, the same by the in-line writer and write_struct: alone, with
    names or not, into a buffer, and as the items of a list."""
    got = encode_outcome(lambda: schema.encode(record))
    assert got == encode_outcome(lambda: schema.encode(reference_of(record)))
    assert encode_outcome(lambda: schema.encode(record, structnames=False)) == encode_outcome(
        lambda: schema.encode(reference_of(record), structnames=False))
    if isinstance(got, bytes):
        buffer = bytearray(b"zp")
        schema.encode_into(record, buffer, -1)
        assert bytes(buffer) == b"zp" + got
    listed = encode_outcome(lambda: schema.encode(Recs(Items=[record, record])))
    assert listed == encode_outcome(lambda: schema.encode(Recs(Items=[reference_of(record)] * 2)))
    return got


@settings(max_examples=500, deadline=None)
@given(values, values, values)
def test_interface_lists_and_dicts_encode_as_write_struct_does(a: Any, b: Any, v: Any) -> None:
    record = Rec(A=a, S="s", B=b, In=Inner(V=v, N=3))
    data = assert_same(SCHEMA, record)
    if isinstance(data, bytes):
        back = SCHEMA.decode(data)
        assert SCHEMA.encode(back) == data


@pytest.mark.parametrize("value", [
    [], {}, [1, "two", 3.5, None, True, b"\x00", UTC_TIME, GoFloat32(1.5), GoUint64(9), 2**64 - 1],
    {"a": 1, "b": [True, None], "c": {"d": "e"}}, [[1, [2]]], {"k": {"k": {"k": 1}}}, [{"x": [1]}],
    {"é" * 20: ["\u4e00" * 40]}, [(1, 2)], {"t": OTHER_ZONE}, {1: 2}, ["\udc80"], [Text("s")], [2**64],
], ids=repr)
def test_each_kind_of_container_encodes_as_write_struct_does(value: Any) -> None:
    for record in (Rec(A=value), Rec(B=value, In=Inner(V=value)), Rec(In=Inner(V=value))):
        assert_same(SCHEMA, record)


def test_a_bad_item_is_refused_at_its_path() -> None:
    with pytest.raises(EncodeError) as caught:
        SCHEMA.encode(Rec(In=Inner(V={"ok": [1, {"bad": 2**64}]})))
    assert caught.value.path == "Rec.In.V['ok'][1]['bad']"
    with pytest.raises(EncodeError) as keyed:
        SCHEMA.encode(Rec(B={"a": {3: "x"}}))
    assert keyed.value.path == "Rec.B['a'][3]" and "keys must be str" in str(keyed.value)


@pytest.mark.parametrize("max_depth", range(1, 8))
def test_containers_keep_max_depth(max_depth: int) -> None:
    """Rec, then A's dict, its list, its dict: 4 levels (5 inside Inner, 6 as a list's
    item); the in-line writer stores two levels of them when the plan has room for them
    below max_depth, and leaves the rest (and any deeper record) to write_struct."""
    schema = schema_of(max_depth)
    for value in ({"a": [1]}, {"a": [{"b": 2}]}, [1], "plain"):
        for record in (Rec(A=value), Rec(In=Inner(V=value))):
            assert_same(schema, record)
    deep = encode_outcome(lambda: schema.encode(Rec(A={"a": [{"b": 2}]})))
    assert (deep[0] == "error" and "max_depth" in deep[1]) == (max_depth < 4), (max_depth, deep)


def test_containers_of_every_size_about_the_stack_buffer_encode_whole() -> None:
    """Containers from a few bytes to beyond encode's stack buffer (512 bytes), each after
    one of its own size and after a small one (the size hint the room tests go by)."""
    small = Rec(A={"a": [1]})
    for n in range(0, 900, 23):
        record = Rec(A={"text": "x" * n, "list": ["y" * (n // 3)] * 3}, S="s" * (n % 7), B=["z" * (n // 2)],
                     In=Inner(V={"n": n, "blob": b"b" * (n // 4)}))
        for before in (small, record):
            SCHEMA.encode(before)
            data = assert_same(SCHEMA, record)
            assert isinstance(data, bytes) and SCHEMA.decode(data) == record
