"""Batching bounds (rows, bytes, a record larger than the bound) and projection: a read of
chosen columns (nested paths too) is the oracle's projected table, and for top-level columns
the same as selecting them from the full read."""

from __future__ import annotations

from typing import Any

import pytest

import zebrapack.arrow as zpa

from support.engines import engine

from .checks import check_read, read_table
from .conftest import RecordFile
from .oracle import assert_same_table, expected_read, split_records
from .sources import COLUMN_CHOICES, SOURCES, Source

pa = engine("pyarrow")


def batches(records: RecordFile, **options: Any) -> list[Any]:
    out = list(zpa.read(records.data, records.schema, records.type, **options))
    for batch in out:
        batch.validate(full=True)
    return out


@pytest.mark.parametrize("batch_rows", [1, 7, 1000, 2999, 3000, 65536])
def test_batches_hold_at_most_batch_rows_and_only_the_last_fewer(a_file: RecordFile, batch_rows: int) -> None:
    sizes = [b.num_rows for b in batches(a_file, batch_rows=batch_rows)]
    full, rest = divmod(3000, batch_rows)
    assert sizes == [batch_rows] * full + ([rest] if rest else [])


@pytest.mark.parametrize("batch_bytes", [1000, 4096, 20000])
def test_a_batch_closes_once_its_buffers_reach_about_batch_bytes(a_file: RecordFile, batch_bytes: int) -> None:
    got = batches(a_file, batch_bytes=batch_bytes)
    one_record = max(b.nbytes for b in batches(a_file, batch_bytes=1))
    assert sum(b.num_rows for b in got) == 3000
    for batch in got[:-1]:
        assert batch_bytes - one_record <= batch.nbytes <= batch_bytes + 4 * one_record, batch.nbytes
    assert got[-1].nbytes <= batch_bytes + 4 * one_record


def test_a_record_larger_than_batch_bytes_closes_its_batch(compound_file: RecordFile) -> None:
    got = batches(compound_file, batch_bytes=1024, time_unit="us")
    spans = split_records(compound_file.data)
    assert sum(b.num_rows for b in got) == len(spans)
    big = {i for i, (start, end) in enumerate(spans) if end - start > 100_000}
    ends = [sum(b.num_rows for b in got[:i + 1]) - 1 for i in range(len(got))]
    assert big and big <= set(ends), (sorted(big), ends)


def test_batching_does_not_change_the_table(compound_file: RecordFile) -> None:
    whole = pa.Table.from_batches(batches(compound_file, time_unit="us"))
    for options in ({"batch_rows": 3}, {"batch_bytes": 512}, {"batch_rows": 1}):
        assert_same_table(pa.Table.from_batches(batches(compound_file, time_unit="us", **options)), whole)


@pytest.mark.parametrize("batch_rows", [0, -1, 1.5, True])
def test_a_batch_bound_that_is_not_a_positive_int_is_refused(a_file: RecordFile, batch_rows: Any) -> None:
    with pytest.raises((ValueError, TypeError)):
        zpa.read(a_file.data, a_file.schema, "A", batch_rows=batch_rows)
    with pytest.raises((ValueError, TypeError)):
        zpa.read(a_file.data, a_file.schema, "A", batch_bytes=batch_rows)


def _projection_sources() -> list[Any]:
    cases = []
    for schema_name, type_name, columns in COLUMN_CHOICES:
        prefix = f"vectors/{schema_name}/" if schema_name in ("zp", "mp") else f"golden/{schema_name}/"
        for source in SOURCES:
            if source.id.startswith(prefix) and source.type == type_name:
                cases.append(pytest.param(source, columns, id=f"{source.id}-{'+'.join(columns) or 'none'}"))
    return cases


@pytest.mark.parametrize(("source", "columns"), _projection_sources())
def test_chosen_columns_read_as_the_oracle_projects_them(source: Source, columns: list[str]) -> None:
    check_read(source.data, source, columns=columns, time_unit="us")


def _readable(source: Source) -> bool:
    return expected_read(source.schema, source.data, source.type, time_unit="us").table is not None


@pytest.mark.parametrize("source", [s for s in SOURCES if s.id.startswith(("vectors/zp/", "golden/deep/"))
                                    and _readable(s)], ids=repr)
def test_top_level_columns_are_the_full_read_selected(source: Source) -> None:
    names = expected_read(source.schema, source.data, source.type, time_unit="us").table.column_names
    for columns in (names[::2], names[-1:], names[1:3]):
        assert_same_table(read_table(source.data, source, columns=columns, time_unit="us"),
                          read_table(source.data, source, time_unit="us").select(columns))
