"""zpa.write's clean runs (rows checked in bulk, none null, every key of at most 8 bytes)
go through a program of steps built once per run: a struct name entry or a field
without a column of at most 8 bytes stored as one word and longer ones word by word,
each column's buffers moved to the run's first row (a bitmap by whole bytes, its bit
kept), a time's unit, and the records' ends for an index. Each writes what encode
writes, for every length of name, every constant field, every slice and every unit."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import zebrapack

from support.engines import engine
from .writing import encoded, written

pa = engine("pyarrow")

#: Rows checked in bulk at a time (ZP_CLEAN_ROWS in cython/zp_arrow_write.h).
ROWS = 1024
UTC = timezone.utc

SOURCE = """package p

import "time"

type {name} struct {{
	Label  string    `zid:"0" msg:"l"`
	Flag   bool      `zid:"1" msg:"f"`
	When   time.Time `zid:"2" msg:"w"`
	Count  int64     `zid:"3" msg:"c"`
	Gone   int64     `zid:"4" msg:"{gone}"`
	Ratio  float64   `zid:"5" msg:"r"`
	Blob   []byte    `zid:"6" msg:"b"`
}}
"""

#: Struct names whose name entry (its key, header and name) is shorter than, just at and
#: just past one word, and much longer.
NAMES = ["R", "Recor", "Record", "RecordLongName"]


def _schema(tmp_path: Path, name: str, gone: str = "g") -> zebrapack.Schema:
    path = tmp_path / f"{name}_{len(gone)}.go"
    path.write_text(SOURCE.format(name=name, gone=gone))
    return zebrapack.schema_from_go(path)


def _values(count: int, seed: int) -> dict[str, list[Any]]:
    rng = random.Random(seed)
    texts = ["", "a", "Ann Lee", "x" * 31, "y" * 40, "é", "日本語"]
    return {"Label": [rng.choice(texts) for _ in range(count)],
            "Flag": [rng.random() < 0.5 for _ in range(count)],
            "When": [datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(-9 * 10**9, 9 * 10**9),
                                                                  microseconds=rng.randrange(10**6))
                     for _ in range(count)],
            "Count": [rng.choice([0, 1, -1, 300, -2**63, 2**63 - 1]) for _ in range(count)],
            "Ratio": [rng.choice([0.0, 1.5, -2.25]) for _ in range(count)],
            "Blob": [bytes(rng.randrange(256) for _ in range(rng.choice([0, 3, 17]))) for _ in range(count)]}


def _table(values: dict[str, list[Any]], unit: str = "us") -> Any:
    types = {"Label": pa.string(), "Flag": pa.bool_(), "When": pa.timestamp("us", "UTC"), "Count": pa.int64(),
             "Ratio": pa.float64(), "Blob": pa.binary()}
    table = pa.table({name: pa.array(column, types[name]) for name, column in values.items()})
    if unit != "us":
        index = table.schema.get_field_index("When")
        table = table.set_column(index, "When", table.column(index).cast(pa.timestamp(unit, "UTC")))
    return table


def _records(schema: zebrapack.Schema, name: str, values: dict[str, list[Any]]) -> list[Any]:
    cls = getattr(schema.types, name)
    return [cls(**dict(zip(values, row))) for row in zip(*values.values())]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("options", [{}, {"structnames": False}, {"mode": "msgp"}])
def test_a_name_entry_of_every_length_writes_as_encode(tmp_path: Path, name: str, options: dict[str, Any]) -> None:
    schema = _schema(tmp_path, name)
    values = _values(ROWS + 5, seed=len(name))
    records = _records(schema, name, values)
    assert written(_table(values), schema, name, **options) == encoded(schema, records, **options)


@pytest.mark.parametrize("gone", ["g", "gone567", "a_field_of_a_long_tag"])
def test_a_field_without_a_column_writes_its_zero_value_as_encode(tmp_path: Path, gone: str) -> None:
    # in msgp mode a zero value keeps its key: the constant bytes are the key and a zero
    schema = _schema(tmp_path, "Record", gone)
    values = _values(ROWS + 5, seed=5)
    del values["Count"]
    table = _table(values)
    records = _records(schema, "Record", values)
    for options in ({}, {"mode": "msgp"}, {"structnames": False, "mode": "msgp"}):
        assert written(table, schema, "Record", **options) == encoded(schema, records, **options)


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_times_of_every_unit_in_clean_runs_write_as_encode(tmp_path: Path, unit: str) -> None:
    schema = _schema(tmp_path, "Record")
    values = _values(2 * ROWS + 3, seed=7)
    whole = {"s": 1_000_000, "ms": 1000}.get(unit, 1)
    values["When"] = [t - timedelta(microseconds=t.microsecond % whole) for t in values["When"]]
    records = _records(schema, "Record", values)
    assert written(_table(values, unit), schema, "Record") == encoded(schema, records)


def test_every_slice_start_moves_each_column_to_its_own_rows(tmp_path: Path) -> None:
    # a bool column's bitmap moves by whole bytes and keeps the bit; the others by value
    schema = _schema(tmp_path, "Record")
    values = _values(ROWS + 40, seed=9)
    table = _table(values)
    records = _records(schema, "Record", values)
    for start in range(17):
        for length in (1, 7, ROWS - start):
            assert written(table.slice(start, length), schema, "Record") == \
                encoded(schema, records[start:start + length])


def test_an_index_holds_every_record_end_of_clean_runs_past_its_first_room(tmp_path: Path) -> None:
    # the runs stop where the ends have no room left (1024 at first) and go on once it grows
    schema = _schema(tmp_path, "Record")
    values = _values(3 * ROWS + 11, seed=11)
    records = _records(schema, "Record", values)
    with schema.writer(tmp_path / "default.zpk", index=True) as writer:
        writer.write_all(records)
    for chunk_bytes in (1 << 20, 5000):
        target = tmp_path / f"arrow{chunk_bytes}.zpk"
        assert zebrapack.arrow.write(_table(values), target, schema, "Record", index=True,
                                     chunk_bytes=chunk_bytes) == len(records)
        assert target.read_bytes() == (tmp_path / "default.zpk").read_bytes()
        assert Path(f"{target}.zpi").read_bytes() == (tmp_path / "default.zpk.zpi").read_bytes()
