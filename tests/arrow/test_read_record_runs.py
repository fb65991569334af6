"""Runs of records (zp_struct_read_rows): records that the root struct's key plan reads
whole are read many to a call, their children's rows closed once for the run instead of
per value. A record that stops a run at any of its fields (its partial appends cut
back, then read one by one), runs across batch ends by rows and by bytes and across the
first batch's presize point, nullable columns whose validity bits are set for a whole
run across bitmap bytes, and projections read exactly as records read one by one:
decode's values, the same batches, the same errors."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zebrapack
import zebrapack.arrow as zpa
from zebrapack import DecodeError

from support.engines import engine
from support.go_schemas import schema_from_go_text
from .checks import assert_refused_as_expected
from .oracle import assert_same_table, expected_read, validate_full
from .test_read_fast_paths import FIELDS, GO_SCHEMA, ZID, go_time, wire_str
from .test_read_fast_paths import record as fields_record

pa = engine("pyarrow")


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, GO_SCHEMA, "runs")


def values(i: int) -> dict[str, bytes]:
    """Record i's values of F in encodings every field's appender takes (the pointers set)."""
    return dict(S=wire_str(b"name %d" % i), B=wire_str(bytes([i % 256]) * (i % 5), "bin"),
                I8=struct.pack(">b", -(i % 30)), I16=b"\xd1" + struct.pack(">h", -i), I32=bytes([i % 128]),
                I64=b"\xd3" + struct.pack(">q", i * 1_000_003), U8=b"\xcc" + bytes([i % 256]),
                U16=b"\xcd" + struct.pack(">H", i % 65536), U32=bytes([i % 100]), U64=b"\xcf" + struct.pack(">Q", i),
                F32=b"\xca" + struct.pack(">f", i / 4), F64=b"\xcb" + struct.pack(">d", i / 3),
                T=go_time(1_600_000_000 + i, i), Ok=b"\xc3" if i % 3 else b"\xc2", PS=wire_str(b"p%d" % i),
                PI=bytes([i % 100]))


def record(i: int, order: list[str] | None = None, name: bool = True, **changes: bytes | None) -> bytes:
    """Record i as Go writes it (its name, then the fields in zid order), changed."""
    fields = values(i)
    for key, value in changes.items():
        if value is None:
            del fields[key]
        else:
            fields[key] = value
    keys = order if order is not None else [key for key in FIELDS if key in fields]
    return fields_record([(ZID[key], fields[key]) for key in keys], b"F" if name else None)


def _with_unknown(i: int) -> bytes:
    return fields_record([(ZID[key], value) for key, value in values(i).items()] + [(48, b"\xa3abc")])


def _given_twice(i: int) -> bytes:
    return fields_record([(ZID[key], value) for key, value in values(i).items()] + [(0, wire_str(b"again %d" % i))])


#: Records that stop a run, each at the field named (read one by one, as decode reads them).
STOPPERS: dict[str, Callable[[int], bytes]] = {
    "a long string first": lambda i: record(i, S=wire_str(b"x" * 300)),
    "a nil pointer": lambda i: record(i, PS=b"\xc0"),
    "a uint encoding of a signed field": lambda i: record(i, I64=b"\xcc\x07"),
    "a uint encoding of the last field": lambda i: record(i, PI=b"\xcc\x05"),
    "an int where a float is": lambda i: record(i, F64=b"\x01"),
    "a field missing": lambda i: record(i, F32=None),
    "fields reordered": lambda i: record(i, order=list(reversed(FIELDS))),
    "no name": lambda i: record(i, name=False),
    "an unknown zid": _with_unknown,
    "a field given twice": _given_twice,
}


#: Records that fail (the error the record gives read one by one).
FAILING: dict[str, Callable[[int], bytes]] = {
    "invalid UTF-8 in the last string": lambda i: record(i, PS=wire_str(b"ab\xffcd")),
    "a bool that is not": lambda i: record(i, Ok=b"\x01"),
    "a record cut short": lambda i: record(i)[:-3],
}


def read_batches(schema: zebrapack.Schema, data: bytes, **options: Any) -> list[Any]:
    return validate_full(zpa.read(data, schema, "F", **options))


def check(schema: zebrapack.Schema, data: bytes, columns: list[str] | None = None, **options: Any) -> None:
    """The oracle's table (decode's values) or its error."""
    expected = expected_read(schema, data, "F", columns=columns)
    if expected.table is None:
        with pytest.raises(DecodeError) as refused:
            read_batches(schema, data, columns=columns, **options)
        assert_refused_as_expected(refused.value, expected, data)
    else:
        stream = zpa.read(data, schema, "F", columns=columns, **options)
        table = pa.Table.from_batches(validate_full(stream), schema=stream.schema)
        assert_same_table(table, expected.table)


def go_run(start: int, count: int) -> bytes:
    return b"".join(record(i) for i in range(start, start + count))


@pytest.mark.parametrize("stopper", sorted(STOPPERS))
@pytest.mark.parametrize("batch_rows", [7, 1024, 65536])
def test_a_record_that_stops_a_run_reads_as_decode_reads_it(schema: zebrapack.Schema, stopper: str,
                                                             batch_rows: int) -> None:
    make = STOPPERS[stopper]
    # one stopper inside runs (before and after the presize point), then many in a row
    data = go_run(0, 1000) + make(1000) + go_run(1001, 100) + b"".join(make(i) for i in range(1101, 1140)) \
        + go_run(1140, 300)
    check(schema, data, batch_rows=batch_rows)
    check(schema, data, columns=["PS", "I64"], batch_rows=batch_rows)


@pytest.mark.parametrize("failing", sorted(FAILING))
def test_a_record_that_fails_inside_a_run_gives_the_error_it_gives_read_alone(schema: zebrapack.Schema,
                                                                             failing: str) -> None:
    check(schema, go_run(0, 1500) + FAILING[failing](1500) + go_run(1501, 10))
    check(schema, go_run(0, 1500) + FAILING[failing](1500) + go_run(1501, 10), batch_rows=100)


@pytest.mark.parametrize("batch_bytes", [1, 500, 4096, 100_000])
def test_batches_end_by_bytes_where_records_read_one_by_one_end_them(schema: zebrapack.Schema,
                                                                      batch_bytes: int) -> None:
    # the same values, once in Go's order (read in runs) and once every other record in
    # another order (no plan holds them: read one by one): the same batches
    count = 3000
    runs = go_run(0, count)
    one_by_one = b"".join(record(i, order=list(reversed(FIELDS)) if i % 2 else None) for i in range(count))
    got = read_batches(schema, runs, batch_bytes=batch_bytes)
    want = read_batches(schema, one_by_one, batch_bytes=batch_bytes)
    assert [batch.num_rows for batch in got] == [batch.num_rows for batch in want]
    assert pa.Table.from_batches(got).equals(pa.Table.from_batches(want))


@pytest.mark.parametrize("batch_rows", [1, 8, 1023, 1024, 1025, 2049])
def test_batches_end_by_rows_with_every_row_in_order(schema: zebrapack.Schema, batch_rows: int) -> None:
    batches = read_batches(schema, go_run(0, 5000), batch_rows=batch_rows)
    assert [batch.num_rows for batch in batches] == [min(batch_rows, 5000 - start)
                                                      for start in range(0, 5000, batch_rows)]
    check(schema, go_run(0, 5000), batch_rows=batch_rows)


SEGMENTS = st.lists(st.tuples(st.sampled_from(["go"] + sorted(STOPPERS)), st.integers(1, 90)), min_size=1,
                    max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(segments=SEGMENTS, batch_rows=st.sampled_from([3, 64, 1000, 65536]),
       columns=st.sampled_from([None, ["PS"], ["Ok", "PI", "S"]]))
def test_runs_and_stoppers_in_any_mix_read_as_decode_reads_them(schema: zebrapack.Schema,
                                                                segments: list[tuple[str, int]], batch_rows: int,
                                                                columns: list[str] | None) -> None:
    data, i = b"", 0
    for kind, count in segments:
        make = record if kind == "go" else STOPPERS[kind]
        data += b"".join(make(j) for j in range(i, i + count))
        i += count
    check(schema, data, columns=columns, batch_rows=batch_rows)


#: Steps of a plan the threaded run reads (ZP_RUN_PLAN_MAX in cython/zp_arrow_read.h);
#: a longer plan's rows are read step by step by zp_struct_read_plan_at.
RUN_PLAN_MAX = 72


@pytest.mark.parametrize("fields", [RUN_PLAN_MAX - 2, RUN_PLAN_MAX - 1, RUN_PLAN_MAX, 100])
@pytest.mark.parametrize("projected", [False, True])
def test_plans_of_either_side_of_the_threaded_runs_length_read_as_decode(tmp_path: Path, fields: int,
                                                                        projected: bool) -> None:
    # a plan is the name and every field (the projected-out ones stepped over): fields + 1 steps
    source = "package p\n\ntype W struct {\n" + "".join(
        f'\tF{k} {"string" if k % 3 == 0 else "int64"} `zid:"{k}"`\n' for k in range(fields)) + "}\n"
    (tmp_path / "w.go").write_text(source)
    wide = zebrapack.schema_from_go(tmp_path / "w.go")
    W = wide.types.W
    records = [W(**{f"F{k}": (f"v{i}-{k}" if k % 3 == 0 else i * k - 50) for k in range(fields)}) for i in range(300)]
    records[150] = W(**{f"F{k}": (f"v-{k}" if k % 3 == 0 else 1) for k in range(fields - 1)})   # last field left out
    data = b"".join(wide.encode(r) for r in records)
    columns = [f"F{k}" for k in range(0, fields, 7)] if projected else None
    expected = expected_read(wide, data, "W", columns=columns)
    for batch_rows in (7, 1000):
        stream = zpa.read(data, wide, "W", columns=columns, batch_rows=batch_rows)
        assert_same_table(pa.Table.from_batches(validate_full(stream), schema=stream.schema), expected.table)
