"""Indexes are untrusted input: reading one allocates in proportion to the index, not
to the data file; an entry larger than the reader's max_record_size is read in chunks,
not held; and an index whose data_start hides records is refused (IndexWarning, the file
read as one split), so that no reader ever gives fewer rows than the file holds."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
import tracemalloc
import warnings
from pathlib import Path
from typing import Annotated

import pytest
from support.cli import run_cli
from support.integrity import SCHEMA, a_records, layout, write_bytes
from support.engines import engine

import zebrapack
import zebrapack.arrow as zpa
from zebrapack import IndexWarning, Split
from zebrapack.recordio.index_format import default_index_path

RECORDS = a_records(3000)
PLAIN = layout(RECORDS)
WITH_SCHEMA = layout(RECORDS, write_schema=True)
TESTS = Path(__file__).parent.parent


def all_readers_rows(path: Path) -> dict[str, int]:
    """The rows each reader of a planned file gives."""
    pa = engine("pyarrow")
    zpd = engine("zebrapack.dask")
    splits = zebrapack.file_splits(path)
    return {
        "iter_split": sum(1 for split in splits for _ in zebrapack.iter_split(SCHEMA, split)),
        "zpa.read(splits)": zpa.read(splits, SCHEMA, "A").read_all().num_rows,
        "zpa.read(path)": pa.Table.from_batches(list(zpa.read(path, SCHEMA, "A"))).num_rows,
        "dask": len(zpd.read_records(path, SCHEMA, "A").compute(scheduler="sync")),
    }


# -- data_start ------------------------------------------------------------------------


def test_a_forged_data_start_is_refused_and_every_row_read(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "records.zpk", PLAIN.data)
    honest = zebrapack.build_index(path, every=100)
    # the first 100 records made out to be "a schema document": checksums all valid
    forged = dataclasses.replace(honest, data_start=honest.entries[1].start, entries=honest.entries[1:],
                                 record_count=honest.record_count - 100)
    Path(default_index_path(path)).write_bytes(forged.to_bytes())
    with pytest.warns(IndexWarning, match=f"the index says the records start at byte {PLAIN.ends[99]}, but the file"):
        assert zebrapack.file_splits(path) == [Split(str(path), 0, len(PLAIN.data), None)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IndexWarning)
        assert set(all_readers_rows(path).values()) == {3000}
    checked = run_cli("index", "--check", path)
    assert checked.returncode == 1 and "does not start with a schema document" in checked.stdout.decode()


def test_a_data_start_past_the_schema_document_is_refused(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "records.zpk", WITH_SCHEMA.data)
    honest = zebrapack.build_index(path, every=100)
    assert honest.data_start == WITH_SCHEMA.data_start
    forged = dataclasses.replace(honest, data_start=honest.entries[1].start, entries=honest.entries[1:],
                                 record_count=honest.record_count - 100)
    Path(default_index_path(path)).write_bytes(forged.to_bytes())
    with pytest.warns(IndexWarning, match=f"but a schema document ends at byte {WITH_SCHEMA.data_start}"):
        zebrapack.file_splits(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IndexWarning)
        assert set(all_readers_rows(path).values()) == {3000}


def test_schema_prefix_true_on_a_file_without_one_is_refused(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "records.zpk", PLAIN.data)
    with pytest.raises(ValueError, match="does not start with a schema document"):
        zebrapack.build_index(path, schema_prefix=True)
    assert not Path(default_index_path(path)).exists()
    assert zebrapack.build_index(path).record_count == 3000


def test_a_msgp_record_shaped_like_a_schema_document_is_a_record(tmp_path: Path) -> None:
    """A msgp-mode record whose keys are Name and Structs parses as a schema document
    ({"Name": "row0", "Structs": {}}): it is a record, since Name is no key of zebra.Schema."""
    schema = zebrapack.schema_from_dataclasses(Row, package="rows")
    path = tmp_path / "rows.zpk"
    with schema.writer(path, mode="msgp") as writer:
        writer.write_all([Row(f"row{i}") for i in range(3)])
    assert path.read_bytes().startswith(b"\x82\xa4Name\xa4row0\xa7Structs\x80")
    assert zebrapack.build_index(path).record_count == 3
    split = zebrapack.file_splits(path)[0]
    assert [row.Name for row in zebrapack.iter_split(schema, split, "Row")] == ["row0", "row1", "row2"]
    engine("pyarrow")
    assert zpa.read(path, schema, "Row").read_all().column("Name").to_pylist() == ["row0", "row1", "row2"]
    assert [row.Name for row in zebrapack.recover(path, schema, "Row")] == ["row0", "row1", "row2"]


@dataclasses.dataclass
class Row:
    Name: Annotated[str, zebrapack.Zid(0)] = ""
    Structs: Annotated[dict[str, int], zebrapack.Zid(1)] = dataclasses.field(default_factory=dict)


# -- memory ------------------------------------------------------------------------------


def test_opening_the_index_of_a_big_file_allocates_in_proportion_to_the_index(tmp_path: Path) -> None:
    """A data file grown sparse to 3 GiB beside its small index: the index is read by its own
    size (the data file's size once asked read() for 16 times it), then found stale."""
    path = write_bytes(tmp_path / "big.zpk", PLAIN.data)
    zebrapack.build_index(path)
    with open(path, "r+b") as handle:
        handle.truncate(3 << 30)
    script = textwrap.dedent(f"""
        import os, resource, tracemalloc, warnings
        if "libasan" not in os.environ.get("LD_PRELOAD", ""):     # ASan's shadow memory needs more
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        import zebrapack
        tracemalloc.start()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            splits = zebrapack.file_splits({str(path)!r})
        print(tracemalloc.get_traced_memory()[1], len(splits), caught[0].category.__name__)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    peak, splits, warning = done.stdout.split()
    assert int(peak) < 1 << 20 and (splits, warning) == ("1", "IndexWarning")


@pytest.fixture(scope="module")
def one_entry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 MiB of records whose honest index has a single entry (every_bytes=2**62)."""
    path = tmp_path_factory.mktemp("one_entry") / "big.zpk"
    records = a_records(2000)
    with SCHEMA.writer(path) as writer:
        for _ in range(60):
            writer.write_all(records)
    index = zebrapack.build_index(path, every=0xFFFFFFFF, every_bytes=1 << 62)
    assert len(index.entries) == 1 and index.record_count == 120000
    return path


def test_iter_split_streams_an_entry_larger_than_max_record_size(one_entry: Path) -> None:
    split = zebrapack.file_splits(one_entry)[0]
    assert split.stop - split.start > 11 << 20
    tracemalloc.start()
    try:
        rows = sum(len(batch) for batch in zebrapack.iter_split_batches(SCHEMA, split, max_record_size=1 << 20))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rows == 120000
    assert peak < 6 << 20, peak      # a chunk, a record and a batch; holding the entry took 12 MiB


def test_zpa_read_streams_an_entry_larger_than_max_record_size(one_entry: Path) -> None:
    engine("pyarrow")
    script = textwrap.dedent(f"""
        import resource, sys
        import pyarrow
        import zebrapack, zebrapack.arrow as zpa
        sys.path.insert(0, {str(TESTS)!r})
        from support.integrity import SCHEMA
        split = zebrapack.file_splits({str(one_entry)!r})[0]
        stream = zpa.read(split, SCHEMA, "A", batch_rows=2000, max_record_size=1 << 20)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        rows = sum(batch.num_rows for batch in stream)
        print(rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    rows, grown_kib = map(int, done.stdout.split())
    assert rows == 120000
    assert grown_kib < 6 << 10, grown_kib       # holding the entry took 12 MiB more


def test_a_streamed_entry_is_checked_before_any_record_is_read(tmp_path: Path, one_entry: Path) -> None:
    """Checked in chunks all the same: a changed byte at its very end is found before the
    first record is delivered."""
    path = tmp_path / "changed.zpk"
    data = bytearray(one_entry.read_bytes())
    data[-2] ^= 1                       # inside the last record's Phone: still msgpack
    path.write_bytes(bytes(data))
    split = dataclasses.replace(zebrapack.file_splits(one_entry)[0], path=str(path))
    with pytest.raises(zebrapack.DecodeError, match="do not match the index's checksum") as caught:
        next(zebrapack.iter_split_batches(SCHEMA, split, max_record_size=1 << 20))
    assert caught.value.offset == 0
    engine("pyarrow")
    stream = zpa.read(split, SCHEMA, "A", max_record_size=1 << 20)
    with pytest.raises(zebrapack.DecodeError, match="do not match the index's checksum"):
        stream.read_next_batch()
    # a record count that the entry does not hold: refused too
    miscounted = dataclasses.replace(split, path=str(one_entry), records=119999,
                                     entries=(split.entries[0]._replace(records=119999),))
    with pytest.raises(zebrapack.DecodeError, match="the index says 119999"):
        next(zebrapack.iter_split_batches(SCHEMA, miscounted, max_record_size=1 << 20))
    with pytest.raises(zebrapack.DecodeError, match="the index says 119999"):
        zpa.read(miscounted, SCHEMA, "A", max_record_size=1 << 20).read_all()
