"""Every kind of source reads the same table: bytes-like objects, paths, binary files, lists
of sources, files that start with their schema, and the splits of an indexed file; each
__arrow_c_stream__ call starts again from the beginning (a file object only once)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

import zebrapack
import zebrapack.arrow as zpa
from zebrapack import DecodeError

from support.engines import engine

from .conftest import RecordFile
from .oracle import assert_same_table, expected_read, split_records, validate_full

pa = engine("pyarrow")


def table_of(source: Any, records: RecordFile, **options: Any) -> Any:
    stream = zpa.read(source, records.schema, records.type, **options)
    return pa.Table.from_batches(validate_full(stream), schema=stream.schema)


def expected(records: RecordFile, data: bytes | None = None, **options: Any) -> Any:
    table = expected_read(records.schema, records.data if data is None else data, records.type, **options).table
    assert table is not None
    return table


SOURCE_KINDS = {
    "bytes": lambda f: f.data,
    "bytearray": lambda f: bytearray(f.data),
    "memoryview": lambda f: memoryview(f.data),
    "str path": lambda f: str(f.path),
    "Path": lambda f: f.path,
    "binary file": lambda f: open(f.path, "rb"),
    "BytesIO": lambda f: io.BytesIO(f.data),
}


@pytest.mark.parametrize("kind", SOURCE_KINDS)
def test_every_kind_of_source_reads_the_records(kind: str, a_file: RecordFile) -> None:
    source = SOURCE_KINDS[kind](a_file)
    try:
        assert_same_table(table_of(source, a_file, batch_rows=1000), expected(a_file))
    finally:
        if hasattr(source, "close"):
            source.close()


@pytest.mark.parametrize("kind", SOURCE_KINDS)
def test_every_kind_of_source_reads_records_larger_than_a_read_chunk(kind: str, compound_file: RecordFile) -> None:
    source = SOURCE_KINDS[kind](compound_file)
    try:
        assert_same_table(table_of(source, compound_file, time_unit="us"), expected(compound_file, time_unit="us"))
    finally:
        if hasattr(source, "close"):
            source.close()


def test_a_list_of_sources_reads_one_after_another(a_file: RecordFile) -> None:
    first = a_file.data[:split_records(a_file.data)[999][1]]        # the first 1,000 records
    got = table_of([a_file.path, first, memoryview(a_file.data), str(a_file.path)], a_file)
    whole = a_file.data + first + a_file.data + a_file.data
    assert_same_table(got, expected(a_file, whole))


def test_a_file_that_starts_with_its_schema_reads_the_records_after_it(a_file: RecordFile, tmp_path: Path) -> None:
    path = tmp_path / "with_schema.zpk"
    records = a_file.schema.decode_all(a_file.data)
    with a_file.schema.writer(path, write_schema=True) as writer:
        writer.write_all(records)
    assert path.read_bytes() != a_file.data
    assert_same_table(table_of(path, a_file), expected(a_file))
    assert_same_table(table_of(path.read_bytes(), a_file), expected(a_file))


def test_the_splits_of_an_indexed_file_read_the_file_between_them(a_file: RecordFile, tmp_path: Path) -> None:
    path = tmp_path / "indexed.zpk"
    records = a_file.schema.decode_all(a_file.data)
    with a_file.schema.writer(path, index=True, index_every=100) as writer:
        writer.write_all(records)
    splits = zebrapack.file_splits(path, target_records=700)
    assert len(splits) > 2
    parts = [table_of(split, a_file) for split in splits]
    assert [t.num_rows for t in parts] == [len(list(zebrapack.iter_split(a_file.schema, s, "A"))) for s in splits]
    assert_same_table(pa.concat_tables(parts), expected(a_file))
    assert_same_table(table_of(splits, a_file), expected(a_file))


def test_a_split_whose_bytes_changed_is_refused(a_file: RecordFile, tmp_path: Path) -> None:
    path = tmp_path / "indexed.zpk"
    with a_file.schema.writer(path, index=True, index_every=100) as writer:
        writer.write_all(a_file.schema.decode_all(a_file.data))
    splits = zebrapack.file_splits(path, target_records=700)
    data = bytearray(path.read_bytes())
    data[splits[1].start + 5] ^= 0x01               # inside the second split, same length
    path.write_bytes(bytes(data))
    table_of(splits[0], a_file)                     # the first split is intact
    with pytest.raises(DecodeError):
        table_of(splits[1], a_file)


def test_each_c_stream_starts_from_the_beginning(a_file: RecordFile) -> None:
    for source in (a_file.data, a_file.path):
        stream = zpa.read(source, a_file.schema, "A")
        first = pa.RecordBatchReader.from_stream(stream).read_all()
        again = pa.RecordBatchReader.from_stream(stream).read_all()
        assert first.num_rows == again.num_rows == 3000
        assert first.equals(again)


def test_a_file_object_is_read_once(a_file: RecordFile) -> None:
    with open(a_file.path, "rb") as f:
        stream = zpa.read(f, a_file.schema, "A")
        assert pa.RecordBatchReader.from_stream(stream).read_all().num_rows == 3000
        with pytest.raises(Exception, match="once|again|consumed|already"):
            pa.RecordBatchReader.from_stream(stream).read_all()


def test_the_stream_says_its_schema_before_reading(a_file: RecordFile) -> None:
    stream = zpa.read(a_file.path, a_file.schema, "A", time_unit="us")
    want = expected(a_file, time_unit="us").schema
    assert stream.schema.equals(want, check_metadata=False)
    assert pa.schema(stream).equals(want)
    assert list(stream.schema) == list(want)


def test_read_next_batch_gives_the_batches_then_stops(a_file: RecordFile) -> None:
    stream = zpa.read(a_file.data, a_file.schema, "A", batch_rows=1024)
    rows = []
    while True:
        try:
            batch = stream.read_next_batch()
        except StopIteration:
            break
        batch.validate(full=True)
        rows.append(batch.num_rows)
    assert rows == [1024, 1024, 952]


def test_an_error_in_a_later_source_names_the_record_in_the_whole_source_and_the_offset_in_its_file(
        a_file: RecordFile) -> None:
    schema = a_file.schema
    good = schema.encode(schema.types.A(Name="ok"))
    bad = good + schema.encode(schema.types.A(Name="x"))[:-1] + b"\xc1"
    with pytest.raises(DecodeError) as refused:
        table_of([a_file.data, bad], a_file)
    with pytest.raises(DecodeError) as decode_refused:
        schema.decode(bad[len(good):])
    assert refused.value.path == decode_refused.value.path == "A.Name"
    assert "record 3001" in str(refused.value)
    assert refused.value.offset == len(good) + decode_refused.value.offset
