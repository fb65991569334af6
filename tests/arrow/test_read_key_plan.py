"""The reader's key plan per struct (zp_struct_read_plan): after a run of records in
Go's order, records that leave that order (fields reordered, omitted, unknown zids,
values the plan's steps do not take, nil where a struct is expected, a record cut
short) read exactly as decode reads them, in every struct of the tree (the root,
nested, behind a pointer, in a list) and under projection. Errors are the ones the
same record gives when it is the first one read (before any plan is learned): the
same message and path, the offset moved by the records before it."""

from __future__ import annotations

import re
from typing import Any

import msgpack
import pytest

import zebrapack
import zebrapack.arrow as zpa
from zebrapack import DecodeError, TornTailError

from support.engines import engine
from support.go_schemas import schema_from_go_text
from .checks import assert_refused_as_expected
from .oracle import assert_same_table, expected_read, validate_full

pa = engine("pyarrow")

GO_SCHEMA = """package plan

type Inner struct {
	N int64  `zid:"0"`
	S string `zid:"1" msg:",omitempty"`
}

type Outer struct {
	Name string           `zid:"0"`
	In   Inner            `zid:"1"`
	PIn  *Inner           `zid:"2"`
	List []Inner          `zid:"3"`
	M    map[string]int64 `zid:"4"`
	F    float64          `zid:"5" msg:",omitempty"`
	Ok   bool             `zid:"6"`
}
"""


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, GO_SCHEMA, "plan")


def inner(n: int, s: str | None = "s") -> dict[int, Any]:
    value: dict[int, Any] = {-1: "Inner", 0: n}
    if s is not None:
        value[1] = s
    return value


def outer(i: int, **changes: Any) -> dict[int, Any]:
    """A record of Outer as Go writes it (the name, then the fields in zid order)."""
    value: dict[int, Any] = {-1: "Outer", 0: f"name {i}", 1: inner(i), 2: inner(-i, None), 3: [inner(j) for j in
                             range(i % 3)], 4: {"k": i}, 5: i + 0.5, 6: i % 2 == 0}
    for key, new in changes.items():
        zid = int(key[1:])
        if new is DROP:
            del value[zid]
        else:
            value[zid] = new
    return value


DROP = object()


def pack(value: dict[int, Any], order: list[int] | None = None) -> bytes:
    if order is not None:
        value = {key: value[key] for key in order}
    return bytes(msgpack.packb(value))


def go_run(count: int, start: int = 0) -> bytes:
    return b"".join(pack(outer(i)) for i in range(start, start + count))


def read(schema: zebrapack.Schema, data: bytes, **options: Any) -> Any:
    stream = zpa.read(data, schema, "Outer", **options)
    return pa.Table.from_batches(validate_full(stream), schema=stream.schema)


def check(schema: zebrapack.Schema, data: bytes, columns: list[str] | None = None, strict: bool = False) -> None:
    """decode's values (the oracle's table) or its error, in one batch and in batches of 7."""
    expected = expected_read(schema, data, "Outer", columns=columns, strict=strict)
    for batch_rows in (65536, 7):
        if expected.table is None:
            with pytest.raises(DecodeError) as refused:
                read(schema, data, columns=columns, strict=strict, batch_rows=batch_rows)
            assert_refused_as_expected(refused.value, expected, data)
        else:
            assert_same_table(read(schema, data, columns=columns, strict=strict, batch_rows=batch_rows),
                              expected.table)


def error_of(schema: zebrapack.Schema, data: bytes, **options: Any) -> DecodeError:
    with pytest.raises(DecodeError) as refused:
        read(schema, data, **options)
    return refused.value


def assert_same_error_after_a_plan(schema: zebrapack.Schema, bad: bytes, **options: Any) -> None:
    """The error of ``bad`` after 100 records in Go's order is the one it gives read first."""
    alone = error_of(schema, bad, **options)
    before = go_run(100)
    after = error_of(schema, before + bad, **options)
    assert type(after) is type(alone)
    assert (after.path, after.offset) == (alone.path, alone.offset + len(before)), (str(after), str(alone))
    moved = re.sub(r"\(record (\d+)\)", lambda m: f"(record {int(m.group(1)) + 100})", str(alone))
    assert str(after) == moved.replace(f"(byte offset {alone.offset})", f"(byte offset {alone.offset + len(before)})")


COLUMN_SETS = [None, ["Name", "Ok"], ["In.S", "F"], ["List", "PIn.N"]]


# -- records that leave the plan ---------------------------------------------------------------

ODD_ROWS = {
    "reordered": lambda i: pack(outer(i), [6, 5, 4, 3, 2, 1, 0, -1]),
    "name last": lambda i: pack(outer(i), [0, 1, 2, 3, 4, 5, 6, -1]),
    "no name": lambda i: pack(outer(i), [0, 1, 2, 3, 4, 5, 6]),
    "omitted": lambda i: pack(outer(i, F5=DROP, F1=inner(i, None))),
    "only one field": lambda i: pack({-1: "Outer", 6: True}),
    "empty": lambda i: pack({}),
    "unknown zids": lambda i: pack({**outer(i), 9: "extra", 10: [1, {"a": 2}], 11: None, 127: 3.5}),
    "unknown zid first": lambda i: pack({50: {"x": [1, 2]}, **outer(i)}),
    "nil structs": lambda i: pack(outer(i, F1=None, F2=None, F3=None, F4=None)),
    "other encodings": lambda i: pack(outer(i)).replace(b"\xa6name ", b"\xd9\x06name ", 1),
    "wide ints": lambda i: pack(outer(i, F5=1 << 40, F6=True)),
    "inner reordered": lambda i: pack(outer(i, F1={1: "t", 0: 7, -1: "Inner"})),
    "inner unknown": lambda i: pack(outer(i, F1={-1: "Inner", 0: 1, 5: "x", 1: "y"})),
}


def given_twice(i: int) -> bytes:
    """Outer with Name given again after Ok (msgpack maps by hand: a dict cannot hold a key twice)."""
    body = pack(outer(i))
    return bytes([body[0] + 1]) + body[1:] + bytes(msgpack.packb(0)) + bytes(msgpack.packb(f"again {i}"))


ODD_ROWS["given twice"] = given_twice


@pytest.mark.parametrize("columns", COLUMN_SETS, ids=["all", "Name,Ok", "In.S,F", "List,PIn.N"])
@pytest.mark.parametrize("odd", sorted(ODD_ROWS))
def test_records_that_leave_the_plan_read_as_decode_reads_them(schema: zebrapack.Schema, odd: str,
                                                                columns: list[str] | None) -> None:
    make = ODD_ROWS[odd]
    # a plan learned, then an odd record alone, a run of them (learned in turn), then Go's order again
    data = go_run(70) + make(70) + go_run(20, 71) + b"".join(make(i) for i in range(91, 140)) + go_run(70, 140)
    check(schema, data, columns)


def test_records_alternating_between_layouts_read_as_decode_reads_them(schema: zebrapack.Schema) -> None:
    makes = [ODD_ROWS[name] for name in sorted(ODD_ROWS)]
    data = b"".join(makes[i % len(makes)](i) if i % 3 else pack(outer(i)) for i in range(400))
    check(schema, data)
    check(schema, data, ["In.S", "Ok"])


# -- errors: as the record gives them read first --------------------------------------------------

def test_a_record_cut_at_each_byte_after_a_plan_is_a_torn_tail_at_its_start(schema: zebrapack.Schema) -> None:
    record = pack(outer(7))
    before = go_run(100)
    for cut in range(1, len(record)):
        error = error_of(schema, before + record[:cut])
        assert isinstance(error, TornTailError), (cut, str(error))
        assert error.offset == len(before), (cut, str(error))
    check(schema, before + record[:len(record) // 2])


def test_a_record_cut_at_each_byte_inside_a_stream_gives_the_error_it_gives_read_first(
        schema: zebrapack.Schema) -> None:
    # a record whose map says it has more entries than it holds, followed by a good one: the
    # reader meets the next record's bytes where the missing entries should be
    record = pack(outer(7))
    for cut in range(2, len(record)):
        assert_same_error_after_a_plan(schema, record[:cut] + go_run(1))


@pytest.mark.parametrize("zid,value", [(0, 5), (1, "not a struct"), (1, {-1: "Inner", 0: "not an int"}),
                                       (1, {-1: "Inner", 0: 2**63}), (2, [1]), (3, {"a": 1}), (3, [inner(1), 7]), (4, [1]), (5, "x"),
                                       (6, 1),
                                       (-1, "Other"), (-1, 5)])
@pytest.mark.parametrize("strict", [False, True])
def test_a_wrong_value_at_each_field_gives_the_error_it_gives_read_first(schema: zebrapack.Schema, zid: int,
                                                                          value: Any, strict: bool) -> None:
    bad = outer(3)
    bad[zid] = value
    assert_same_error_after_a_plan(schema, pack(bad), strict=strict)
    check(schema, go_run(100) + pack(bad), strict=strict)


def test_nil_structs_and_a_wrong_value_in_a_projection_read_or_fail_as_decode(schema: zebrapack.Schema) -> None:
    nils = pack(outer(3, F1=None, F2=None, F3=None, F4=None))
    for columns in COLUMN_SETS:
        check(schema, go_run(100) + nils + go_run(10, 100), columns)
    # a wrong value in a chosen column (values of the others are stepped over unread)
    bad = outer(3)
    bad[2] = {-1: "Inner", 0: "not an int"}
    check(schema, go_run(100) + pack(bad), ["List", "PIn.N"])
    assert_same_error_after_a_plan(schema, pack(bad), columns=["List", "PIn.N"])


def test_a_plan_spans_batches_and_starts_again_in_a_new_reader(schema: zebrapack.Schema) -> None:
    data = go_run(300) + b"".join(ODD_ROWS["reordered"](i) for i in range(300, 320)) + go_run(300, 320)
    for batch_rows in (1, 7, 64, 1025):
        assert_same_table(read(schema, data, batch_rows=batch_rows), expected_read(schema, data, "Outer").table)
