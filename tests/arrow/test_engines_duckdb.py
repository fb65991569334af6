"""DuckDB queries zpa.read streams for real: the stream object found by its variable's name
in the query (DuckDB's replacement scan), a group by, nested columns, errors."""

from __future__ import annotations

import pytest

import zebrapack.arrow as zpa

from support.engines import engine

from .conftest import RecordFile
from .oracle import expected_read

pa = engine("pyarrow")
duckdb = engine("duckdb")


def test_a_group_by_over_the_stream_counts_the_records(a_file: RecordFile) -> None:
    reader = zpa.read(a_file.path, a_file.schema, type="A")  # noqa: F841 (DuckDB finds it by name)
    got = duckdb.sql('select Name, count(*) as n, sum(Sibs) as sibs from reader group by Name order by Name').fetchall()
    records = a_file.schema.decode_all(a_file.data)
    names = sorted({r.Name for r in records})
    assert got == [(name, sum(r.Name == name for r in records), sum(r.Sibs for r in records if r.Name == name))
                   for name in names]


def test_every_value_reaches_duckdb_as_the_oracle_table_gives_it(a_file: RecordFile) -> None:
    expected = expected_read(a_file.schema, a_file.data, "A").table
    reader = zpa.read(a_file.data, a_file.schema, "A")  # noqa: F841 (DuckDB finds it by name)
    got = duckdb.sql("select * from reader").arrow()
    if hasattr(got, "read_all"):           # newer DuckDB hands out a RecordBatchReader
        got = got.read_all()
    assert got.column_names == expected.column_names
    for name in expected.column_names:
        assert got.column(name).cast(expected.schema.field(name).type).equals(expected.column(name)), name


def test_the_same_stream_object_serves_query_after_query(a_file: RecordFile) -> None:
    reader = zpa.read(a_file.path, a_file.schema, "A")  # noqa: F841 (DuckDB finds it by name)
    first = duckdb.sql("select count(*) from reader where Bday is null").fetchall()
    second = duckdb.sql("select count(*) from reader where Bday is null").fetchall()
    assert first == second == [(300,)]


def test_nested_columns_are_queryable(compound_file: RecordFile) -> None:
    stream = zpa.read(compound_file.data, compound_file.schema, "Compound", time_unit="us")
    reader = stream  # noqa: F841 (DuckDB finds it by name)
    got = duckdb.sql("select Nested.X as x, len(Ints) as n, Arr[1] as first from reader").fetchall()
    records = compound_file.schema.decode_all(compound_file.data)
    assert got == [(r.Nested.X, len(r.Ints), r.Arr[0]) for r in records]


def test_a_decode_error_fails_the_query_with_its_record_and_path(a_file: RecordFile) -> None:
    schema = a_file.schema
    broken = a_file.data + schema.encode(schema.types.A(Name="x"))[:-1] + b"\xc1"
    reader = zpa.read(broken, schema, "A")  # noqa: F841 (DuckDB finds it by name)
    with pytest.raises(duckdb.Error, match=r"A\.Name") as refused:
        duckdb.sql("select count(*) from reader").fetchall()
    assert "record 3000" in str(refused.value)
