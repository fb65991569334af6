"""Splittable record files: the sidecar index (zebrapack index, RecordWriter(index=...)),
splits planned by it, and reading a split, which never gives wrong rows whatever
happened to the index or the data since."""

from __future__ import annotations

import io
import pickle
import random
import struct
import tempfile
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.cli import error_line, run_cli
from support.vectors import MANIFEST, VECTORS, case_id, vector_bytes, vector_schema
from hypothesis import given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import DecodeError, IndexWarning, Split
from zebrapack.schema.document import schema_document
from zebrapack.recordio.index_format import parse_index

HEADER = struct.Struct("<8sHHIQQQQQQII")
ENTRY = struct.Struct("<QII")


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return vector_schema("zp.z")


def some_records(schema: zebrapack.Schema, count: int, seed: int = 7) -> list[Any]:
    rng = random.Random(seed)
    A = schema.types.A
    return [A(Name="n" * rng.randint(0, 300) + str(i), Sibs=i, Phone=str(rng.random()), GPA=i / 3)
            for i in range(count)]


def write_records(schema: zebrapack.Schema, path: Path, records: list[Any], **options: Any) -> None:
    with open(path, "wb") as out, schema.writer(out, **options) as writer:
        writer.write_all(records)


def read_all(schema: zebrapack.Schema, splits: list[Split], type: Any = None) -> list[Any]:
    return [record for split in splits for record in zebrapack.iter_split(schema, split, type)]


def schema_bytes(schema: zebrapack.Schema) -> bytes:
    return msgpack.packb(schema_document(schema.model), use_bin_type=True)


@pytest.fixture
def indexed(tmp_path: Path, zp: zebrapack.Schema) -> tuple[Path, list[Any]]:
    """A file of 2000 records (370 kB) with its index, an entry every 37 records."""
    path = tmp_path / "records.zpk"
    records = some_records(zp, 2000)
    write_records(zp, path, records)
    zebrapack.build_index(path, every=37)
    return path, records


# -- round trips -------------------------------------------------------------------


@pytest.mark.parametrize("case", MANIFEST, ids=case_id)
def test_vector_streams_read_by_splits_as_decode_all_reads_them(case: dict[str, Any], tmp_path: Path) -> None:
    schema = vector_schema(case["schema"])
    data = vector_bytes(case) * 7
    path = tmp_path / "vectors.zpk"
    path.write_bytes(data)
    index = zebrapack.build_index(path, every=3)
    expected = schema.decode_all(data, case["type"])
    assert index.record_count == len(expected)
    splits = zebrapack.file_splits(path)
    assert [split.records for split in splits] == [entry.records for entry in index.entries]
    # repr: some vectors hold NaN, which is not equal to itself.
    assert repr(read_all(schema, splits, case["type"])) == repr(expected)


@pytest.mark.parametrize("write_schema", [False, True], ids=["records", "schema-first"])
@pytest.mark.parametrize(("every", "every_bytes"), [(1, 1 << 20), (37, 1 << 20), (10_000, 4096), (65536, 16 << 20)])
def test_writer_index_is_byte_for_byte_the_index_the_command_writes(
        tmp_path: Path, zp: zebrapack.Schema, write_schema: bool, every: int, every_bytes: int) -> None:
    path = tmp_path / "records.zpk"
    with open(path, "wb") as out:
        # A small buffer: segments end inside flushes and across them.
        with zp.writer(out, write_schema=write_schema, buffer_size=1000, index=True, index_every=every,
                       index_every_bytes=every_bytes) as writer:
            writer.write_all(some_records(zp, 700))
    written = (tmp_path / "records.zpk.zpi").read_bytes()
    result = run_cli("index", path, "-o", tmp_path / "cli.zpi", "--every", every, "--every-bytes", every_bytes)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "cli.zpi").read_bytes() == written


def test_splits_cover_every_record_exactly_once_in_order(indexed: tuple[Path, list[Any]], zp: zebrapack.Schema) -> None:
    path, records = indexed
    size = path.stat().st_size
    for options in [{}, {"target_records": 1}, {"target_records": 100}, {"target_bytes": 10_000},
                    {"target_records": 10**9}, {"target_records": 80, "target_bytes": 5000}]:
        splits = zebrapack.file_splits(path, **options)
        assert splits[0].start == 0 and splits[-1].stop == size
        assert all(a.stop == b.start for a, b in zip(splits, splits[1:]))
        assert sum(split.records or 0 for split in splits) == len(records)
        assert read_all(zp, splits) == records, options


def test_splits_merge_entries_up_to_the_target(indexed: tuple[Path, list[Any]]) -> None:
    path, _ = indexed
    assert [s.records for s in zebrapack.file_splits(path)] == [37] * 54 + [2]
    assert [s.records for s in zebrapack.file_splits(path, target_records=100)] == [111] * 18 + [2]
    assert len(zebrapack.file_splits(path, target_records=10**9)) == 1
    with pytest.raises(ValueError, match="target_bytes must be positive"):
        zebrapack.file_splits(path, target_bytes=0)


def test_split_batches_hold_at_most_batch_size_records(indexed: tuple[Path, list[Any]], zp: zebrapack.Schema) -> None:
    path, records = indexed
    for split in [*zebrapack.file_splits(path), Split(str(path), 0, path.stat().st_size, None)]:
        batches = list(zebrapack.iter_split_batches(zp, split, batch_size=10))
        assert all(1 <= len(batch) <= 10 for batch in batches)
    whole = Split(str(path), 0, path.stat().st_size, None)
    assert [r for batch in zebrapack.iter_split_batches(zp, whole, batch_size=7) for r in batch] == records


def test_splits_pickle_for_reading_in_another_process(indexed: tuple[Path, list[Any]], zp: zebrapack.Schema) -> None:
    path, records = indexed
    splits = pickle.loads(pickle.dumps(zebrapack.file_splits(path, target_records=200)))
    assert read_all(zp, splits) == records


def test_stream_with_leading_schema_splits_after_the_schema(tmp_path: Path, zp: zebrapack.Schema) -> None:
    path = tmp_path / "stream.zpk"
    records = some_records(zp, 100)
    write_records(zp, path, records, write_schema=True)
    index = zebrapack.build_index(path, every=10)
    assert index.schema_prefix and index.data_start == len(schema_bytes(zp))
    splits = zebrapack.file_splits(path)
    assert splits[0].start == index.data_start and len(splits) == 10
    with zebrapack.open_stream(path) as stream:     # its own schema: other classes, same values
        assert repr(read_all(stream.schema, splits)) == repr(list(stream)) == repr(records)
    # Without an index the one split also starts after the schema.
    (tmp_path / "stream.zpk.zpi").unlink()
    assert zebrapack.file_splits(path) == [Split(str(path), 0, path.stat().st_size, None)]
    assert read_all(zp, zebrapack.file_splits(path)) == records


def test_schema_prefix_can_be_stated_instead_of_recognized(tmp_path: Path, zp: zebrapack.Schema) -> None:
    path = tmp_path / "stream.zpk"
    write_records(zp, path, some_records(zp, 5), write_schema=True)
    assert zebrapack.build_index(path, schema_prefix=False).data_start == 0
    assert zebrapack.build_index(path, schema_prefix=True).data_start == len(schema_bytes(zp))


def test_empty_files_have_no_splits(tmp_path: Path, zp: zebrapack.Schema) -> None:
    empty = tmp_path / "empty.zpk"
    write_records(zp, empty, [], index=True)
    index = zebrapack.read_index(empty)
    assert index is not None and index.record_count == 0 and index.entries == ()
    assert zebrapack.build_index(empty).to_bytes() == (tmp_path / "empty.zpk.zpi").read_bytes()
    assert zebrapack.file_splits(empty) == []
    only_schema = tmp_path / "only_schema.zpk"
    write_records(zp, only_schema, [], write_schema=True, index=True)
    index = zebrapack.read_index(only_schema)
    assert index is not None and index.record_count == 0 and index.data_start == only_schema.stat().st_size
    assert zebrapack.file_splits(only_schema) == []
    assert read_all(zp, [Split(str(only_schema), 0, only_schema.stat().st_size, None)]) == []


def test_without_an_index_a_file_is_one_split_and_no_warning(tmp_path: Path, zp: zebrapack.Schema) -> None:
    path = tmp_path / "records.zpk"
    records = some_records(zp, 20)
    write_records(zp, path, records)
    assert zebrapack.read_index(path) is None
    assert read_all(zp, zebrapack.file_splits(path)) == records


def test_unindexed_split_ends_at_its_stop(indexed: tuple[Path, list[Any]], zp: zebrapack.Schema) -> None:
    path, records = indexed
    split = Split(str(path), 0, path.stat().st_size, None)
    with open(path, "ab") as out:
        out.write(zp.encode(records[0]))
    assert read_all(zp, [split]) == records


def test_writer_index_needs_the_start_of_a_named_file(tmp_path: Path, zp: zebrapack.Schema) -> None:
    with pytest.raises(ValueError, match="index=True needs a file with a path name"):
        zp.writer(io.BytesIO(), index=True)
    with open(tmp_path / "x.zpk", "wb") as out:
        out.write(b"\x80")
        with pytest.raises(ValueError, match="starts at byte 1, not 0"):
            zp.writer(out, index=tmp_path / "x.zpi")
    with pytest.raises(ValueError, match="every must be between"):
        zp.writer(io.BytesIO(), index=tmp_path / "x.zpi", index_every=0)


def test_index_of_bytes_that_are_not_records_is_a_decode_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.zpk"
    for data, message in [(b"\x81\x00\x01\x05", "a record is a struct map, not positive fixint"),
                          (b"\x82\x00\x01\x01", "torn tail: the input ends inside the record"),
                          (b"\x81\x00\xc1", "0xc1 is never used")]:
        path.write_bytes(data)
        with pytest.raises(DecodeError, match=message):
            zebrapack.build_index(path)
        assert not (tmp_path / "junk.zpk.zpi").exists()


def test_index_walk_is_bounded_by_max_depth(tmp_path: Path) -> None:
    path = tmp_path / "deep.zpk"
    path.write_bytes(b"\x81\x00" + b"\x91" * 50 + b"\x00")
    assert zebrapack.build_index(path, max_depth=60).record_count == 1
    with pytest.raises(DecodeError, match="deep"):
        zebrapack.build_index(path, max_depth=20)


def test_index_size_is_sixteen_bytes_an_entry(indexed: tuple[Path, list[Any]]) -> None:
    path, _ = indexed
    index = zebrapack.read_index(path)
    assert index is not None
    assert (path.parent / "records.zpk.zpi").stat().st_size == 72 + 16 * len(index.entries) + 8


# -- a stale index ------------------------------------------------------------------


def rewrite(path: Path, change: Callable[[bytearray], bytes | bytearray]) -> None:
    path.write_bytes(change(bytearray(path.read_bytes())))


def flip(at: int) -> Callable[[bytearray], bytearray]:
    def change(data: bytearray) -> bytearray:
        data[at] ^= 0x01
        return data
    return change


@pytest.mark.parametrize(("name", "change"), [
    ("truncated", lambda data: data[:-5]),
    ("appended", lambda data: data + data[:100]),
    ("first byte changed", flip(0)),
    ("last bytes changed", flip(-2)),
    ("replaced by other records", lambda data: data[::-1]),
])
def test_stale_index_is_ignored_with_a_warning_and_the_file_read_whole(
        indexed: tuple[Path, list[Any]], zp: zebrapack.Schema, name: str, change: Callable[[bytearray], bytes]) -> None:
    path, _ = indexed
    rewrite(path, change)
    with pytest.warns(IndexWarning, match=r"records\.zpk\.zpi: stale index: .*reading .* as one split"):
        splits = zebrapack.file_splits(path)
    assert splits == [Split(str(path), 0, path.stat().st_size, None)]
    with pytest.raises(ValueError, match="stale index"):
        zebrapack.load_index(path)


def test_byte_changed_inside_a_record_fails_its_split_not_the_others(
        indexed: tuple[Path, list[Any]], zp: zebrapack.Schema) -> None:
    path, records = indexed
    splits = zebrapack.file_splits(path)
    middle = splits[len(splits) // 2]
    # Past the first and last 64 KiB the open-time check samples: only the split sees it.
    assert 1 << 16 < middle.start and middle.stop < path.stat().st_size - (1 << 16)
    rewrite(path, flip(middle.start + 10))
    assert zebrapack.file_splits(path) == splits
    with pytest.raises(DecodeError, match=rf"records\.zpk: split {middle.start}\.\.{middle.stop}: .* checksum") as caught:
        list(zebrapack.iter_split(zp, middle))
    assert caught.value.offset == middle.start
    assert read_all(zp, splits[:5]) == records[:5 * 37]
    with pytest.raises(ValueError, match="do not match the index's checksum"):
        zebrapack.load_index(path, full=True)


def test_file_changed_after_planning_fails_the_split(indexed: tuple[Path, list[Any]], zp: zebrapack.Schema) -> None:
    path, _ = indexed
    splits = zebrapack.file_splits(path)
    rewrite(path, lambda data: data[:splits[-1].start + 3])
    with pytest.raises(DecodeError, match="the file ends inside the indexed records"):
        list(zebrapack.iter_split(zp, splits[-1]))


# -- a corrupt index ----------------------------------------------------------------


def forge(index_path: Path, change: Callable[[list[Any], list[list[int]]], None], *, fix_checksum: bool = True) -> None:
    """Rewrite an index's header fields and entries, with a valid trailer checksum."""
    data = index_path.read_bytes()
    header = list(HEADER.unpack_from(data))
    entries = [list(ENTRY.unpack_from(data, HEADER.size + i * ENTRY.size)) for i in range(header[7])]
    change(header, entries)
    body = HEADER.pack(*header) + b"".join(ENTRY.pack(*entry) for entry in entries)
    trailer = data[-8:] if not fix_checksum else struct.pack("<I", zlib.crc32(body)) + b"ZPKI"
    index_path.write_bytes(body + trailer)


def set_field(position: int, value: Any) -> Callable[[list[Any], list[list[int]]], None]:
    def change(header: list[Any], entries: list[list[int]]) -> None:
        header[position] = value
    return change


def swap_entries(header: list[Any], entries: list[list[int]]) -> None:
    entries[2], entries[3] = entries[3], entries[2]


def huge_entry_count(header: list[Any], entries: list[list[int]]) -> None:
    header[7] = 1 << 60


def offset_out_of_range(header: list[Any], entries: list[list[int]]) -> None:
    entries[-1][0] = header[4] + 10


def zero_records(header: list[Any], entries: list[list[int]]) -> None:
    entries[1][1] = 0


@pytest.mark.parametrize(("name", "change", "reason"), [
    ("wrong magic", set_field(0, b"ZPKINDEY"), "bad magic"),
    ("newer version", set_field(1, 2), "version 2"),
    ("unknown flag", set_field(2, 4), "unknown flags"),
    ("schema flag without a schema", set_field(2, 1), "does not fit the flags"),
    ("huge entry count", huge_entry_count, "do not hold"),
    ("huge record count", set_field(6, 1 << 62), "do not cover"),
    ("every zero", set_field(8, 0), "every must be"),
    ("swapped entries", swap_entries, "entry 2"),
    ("offset out of range", offset_out_of_range, "inconsistent"),
    ("entry without records", zero_records, "entry 1"),
])
def test_corrupt_index_is_ignored_with_a_warning(indexed: tuple[Path, list[Any]], zp: zebrapack.Schema,
                                                 name: str, change: Any, reason: str) -> None:
    path, records = indexed
    forge(path.parent / "records.zpk.zpi", change)
    with pytest.warns(IndexWarning, match=f"corrupt index: .*{reason}"):
        splits = zebrapack.file_splits(path)
    assert read_all(zp, splits) == records


@pytest.mark.parametrize(("name", "change"), [
    ("truncated", lambda data: data[:-1]),
    ("cut to the header", lambda data: data[:70]),
    ("empty", lambda data: b""),
    ("garbage appended", lambda data: data + b"\0" * 16),
    ("entry byte flipped", flip(80)),
    ("trailer magic", flip(-1)),
])
def test_damaged_index_bytes_fail_its_own_checksum_or_size(indexed: tuple[Path, list[Any]], zp: zebrapack.Schema,
                                                           name: str, change: Callable[[bytearray], bytes]) -> None:
    path, records = indexed
    rewrite(path.parent / "records.zpk.zpi", change)
    with pytest.warns(IndexWarning, match="corrupt index"):
        assert zebrapack.read_index(path) is None
    with pytest.warns(IndexWarning):
        assert read_all(zp, zebrapack.file_splits(path)) == records


def test_swapped_entries_without_a_new_checksum_fail_the_checksum(indexed: tuple[Path, list[Any]]) -> None:
    path, _ = indexed
    forge(path.parent / "records.zpk.zpi", swap_entries, fix_checksum=False)
    with pytest.warns(IndexWarning, match="own checksum"):
        assert zebrapack.read_index(path) is None


def test_forged_boundaries_with_matching_checksums_never_give_wrong_rows(
        indexed: tuple[Path, list[Any]], zp: zebrapack.Schema) -> None:
    """An index whose entries are consistent and whose checksums match, but whose
    record counts or boundaries are not the file's, fails when the split is read."""
    path, records = indexed
    data = path.read_bytes()
    good = zebrapack.read_index(path)
    assert good is not None

    def move_boundary(header: list[Any], entries: list[list[int]]) -> None:
        # Entry 2 now starts 3 bytes into its first record; both neighbours get new CRCs.
        entries[2][0] += 3
        for i in (1, 2):
            stop = entries[i + 1][0]
            entries[i][2] = zlib.crc32(data[entries[i][0]:stop])

    def miscount(header: list[Any], entries: list[list[int]]) -> None:
        entries[4][1] -= 1
        header[6] -= 1

    for change, message in [(move_boundary, "records at|record is a struct map|input ends|expected"),
                            (miscount, "more records at .* the index says 36")]:
        (path.parent / "records.zpk.zpi").write_bytes(good.to_bytes())
        forge(path.parent / "records.zpk.zpi", change)
        splits = zebrapack.file_splits(path)
        got: list[Any] = []
        with pytest.raises(DecodeError, match=message):
            for split in splits:
                got.extend(zebrapack.iter_split(zp, split))
        assert got == records[:len(got)]


def test_index_file_is_read_only_as_far_as_the_data_could_need(tmp_path: Path) -> None:
    path = tmp_path / "tiny.zpk"
    path.write_bytes(b"\x80")
    zebrapack.build_index(path)
    index_file = tmp_path / "tiny.zpk.zpi"
    index_file.write_bytes(index_file.read_bytes() + b"\0" * (10 << 20))
    with pytest.warns(IndexWarning, match="corrupt index"):
        assert zebrapack.read_index(path) is None


def test_parse_index_refuses_short_input_before_reading_entries() -> None:
    with pytest.raises(ValueError, match="too short"):
        parse_index(b"ZPKINDEX")


def test_decode_errors_in_a_split_name_the_file_split_and_offset(tmp_path: Path, zp: zebrapack.Schema) -> None:
    path = tmp_path / "typed.zpk"
    good = zp.encode(zp.types.A(Name="ok"))
    bad = zp.encode(zp.types.Inner(X=1))          # a record of another struct
    path.write_bytes(good * 5 + bad + good * 5)
    zebrapack.build_index(path, every=4)
    splits = zebrapack.file_splits(path)
    with pytest.raises(DecodeError) as caught:
        list(zebrapack.iter_split(zp, splits[1], type="A"))
    assert f"typed.zpk: split {splits[1].start}..{splits[1].stop}" in str(caught.value)
    assert caught.value.offset is not None and caught.value.offset >= len(good) * 5


# -- the command --------------------------------------------------------------------


def test_index_command_writes_the_sidecar_and_says_what_it_holds(tmp_path: Path, zp: zebrapack.Schema) -> None:
    path = tmp_path / "stream.zpk"
    write_records(zp, path, some_records(zp, 50), write_schema=True)
    result = run_cli("index", path, "--every", 20)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == (f"{path}.zpi: 50 records in 3 entries, after its schema document "
                                      f"({72 + 3 * 16 + 8} bytes)\n")
    checked = run_cli("index", "--check", path)
    assert checked.returncode == 0 and checked.stdout.decode() == f"{path}.zpi: valid, 50 records in 3 entries\n"


def test_index_command_check_reports_a_stale_index_with_status_1(indexed: tuple[Path, list[Any]]) -> None:
    path, _ = indexed
    rewrite(path, flip(path.stat().st_size // 2))
    result = run_cli("index", "--check", path)
    assert result.returncode == 1
    assert "stale index: the records" in result.stdout.decode()


def test_index_command_check_finds_boundaries_a_forged_index_moved(indexed: tuple[Path, list[Any]]) -> None:
    path, _ = indexed
    data = path.read_bytes()

    def move_boundary(header: list[Any], entries: list[list[int]]) -> None:
        entries[2][0] += 1
        for i in (1, 2):
            entries[i][2] = zlib.crc32(data[entries[i][0]:entries[i + 1][0]])
    forge(path.parent / "records.zpk.zpi", move_boundary)
    result = run_cli("index", "--check", path)
    assert result.returncode == 1 and "does not start at a record" in result.stdout.decode()


@pytest.mark.parametrize(("args", "message"), [
    (["missing.zpk"], "missing.zpk: no such file"),
    (["{junk}"], "junk.zpk: not a record file: $: a record is a struct map, not str (byte offset 0)"),
    (["{good}", "-o", "{tmp}/no/such/dir.zpi"], "no/such/dir.zpi: No such file or directory"),
    (["{good}", "--every", "4294967296"], "every must be between 1 and 4294967295 records"),
    (["--check", "{good}"], "good.zpk.zpi: no such index"),
])
def test_index_command_bad_input_is_one_line_and_status_2(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "junk.zpk").write_bytes(b"\xa3abc")
    (tmp_path / "good.zpk").write_bytes(b"\x80")
    names = {"junk": tmp_path / "junk.zpk", "good": tmp_path / "good.zpk", "tmp": tmp_path}
    result = run_cli("index", *[arg.format(**names) for arg in args], cwd=tmp_path)
    assert message in error_line(result)


def test_index_command_usage_error_for_every_zero(tmp_path: Path) -> None:
    result = run_cli("index", tmp_path / "x", "--every", "0")
    assert result.returncode == 2 and "must be positive" in result.stderr.decode()


def test_vectors_index_without_their_schema(tmp_path: Path) -> None:
    stream = VECTORS / "zp" / "A_stream.zpk"
    index = zebrapack.build_index(stream, tmp_path / "a.zpi", every=2)
    assert [entry.records for entry in index.entries] == [2, 2, 1]
    assert zebrapack.read_index(stream, tmp_path / "a.zpi") == index


def test_index_warning_points_at_the_callers_line(indexed: tuple[Path, list[Any]]) -> None:
    path, _ = indexed
    rewrite(path, lambda data: data[:-1])
    for read in (zebrapack.read_index, zebrapack.file_splits):
        with pytest.warns(IndexWarning) as caught:
            read(path)
        assert caught[0].filename == __file__


def test_index_benchmark_reports_build_rate_size_and_read_costs(tmp_path: Path) -> None:
    pytest.importorskip("msgspec")
    from benchmarks import bench_index

    text = bench_index.main(["--quick", "--rounds", "1", "--size", "index_mb=1", "--out", str(tmp_path)])
    for needle in ("build_index", "bytes per record", "iter_decode(file)", "indexed splits", "unindexed split",
                   "the checks alone"):
        assert needle in text
    assert (tmp_path / "index.md").exists()


# -- damage anywhere, in the data or the index --------------------------------------

_DAMAGE_RECORDS = 900      # about 180 kB: more than the two 64 KiB samples of the open-time check
positions = st.integers(0, 1 << 20)
damage = st.one_of(
    st.tuples(st.just("flip"), positions, st.integers(0, 7)),
    st.tuples(st.just("truncate"), positions, st.just(0)),
    st.tuples(st.just("append"), positions, st.integers(1, 40)),
    st.tuples(st.just("swap"), positions, st.integers(1, 200)),
)


def damaged(data: bytes, operation: str, position: int, argument: int) -> bytes:
    changed = bytearray(data)
    if not changed:
        return data
    at = position % len(changed)
    if operation == "flip":
        changed[at] ^= 1 << argument
    elif operation == "truncate":
        del changed[at:]
    elif operation == "append":
        changed += changed[at:at + argument]
    else:           # two byte ranges exchanged: same size, same sampled ends when in the middle
        other = (at + argument) % len(changed)
        changed[at], changed[other] = changed[other], changed[at]
    return bytes(changed)


def rows_until_error(rows: Any) -> tuple[list[Any], bool]:
    got: list[Any] = []
    try:
        for row in rows:
            got.append(row)
    except DecodeError:
        return got, True
    return got, False


@given(data_damage=st.none() | damage, index_damage=st.none() | damage)
@settings(max_examples=150, deadline=None)
def test_damage_to_data_or_index_never_gives_wrong_rows(data_damage: Any, index_damage: Any) -> None:
    """Whatever happened to either file, reading by splits gives the rows the data
    file holds now, in order, each once, or stops with a DecodeError: never a row
    the file does not hold at that place. (The checks are layered, so this holds
    even with one of them gone; the tests above pin each check.)"""
    zp = vector_schema("zp.z")
    data = _damage_files()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "records.zpk"
        path.write_bytes(data[0] if data_damage is None else damaged(data[0], *data_damage))
        index_path = Path(directory) / "records.zpk.zpi"
        index_path.write_bytes(data[1] if index_damage is None else damaged(data[1], *index_damage))
        truth, truth_failed = rows_until_error(zp.iter_decode(path.read_bytes()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IndexWarning)
            splits = zebrapack.file_splits(path, target_records=100)
        got, failed = rows_until_error(record for split in splits for record in zebrapack.iter_split(zp, split))
    assert got == truth[:len(got)]
    assert failed or (not truth_failed and got == truth)


_DAMAGE_FILES: list[tuple[bytes, bytes]] = []


def _damage_files() -> tuple[bytes, bytes]:
    """A record file and its index (an entry every 37 records), made once."""
    if not _DAMAGE_FILES:
        zp = vector_schema("zp.z")
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "records.zpk"
            write_records(zp, path, some_records(zp, _DAMAGE_RECORDS), index=True, index_every=37)
            _DAMAGE_FILES.append((path.read_bytes(), (Path(directory) / "records.zpk.zpi").read_bytes()))
    return _DAMAGE_FILES[0]


def test_unindexed_split_reads_records_longer_than_its_chunk(tmp_path: Path, zp: zebrapack.Schema) -> None:
    path = tmp_path / "big_records.zpk"
    records = [zp.types.A(Name="x" * (3 << 20)), *some_records(zp, 50), zp.types.A(Name="y" * (5 << 20))]
    write_records(zp, path, records)
    whole = Split(str(path), 0, path.stat().st_size, None)
    assert read_all(zp, [whole]) == records
    with pytest.raises(DecodeError, match=r"big_records\.zpk: split 0\.\.\d+: record larger than max_record_size"):
        list(zebrapack.iter_split(zp, whole, max_record_size=1 << 20))


def test_unindexed_split_of_a_cut_file_fails_after_the_whole_records(tmp_path: Path, zp: zebrapack.Schema) -> None:
    path = tmp_path / "cut.zpk"
    records = some_records(zp, 30)
    write_records(zp, path, records)
    size = path.stat().st_size
    rewrite(path, lambda data: data[:-3])
    got, failed = rows_until_error(zebrapack.iter_split(zp, Split(str(path), 0, size, None)))
    assert failed and got == records[:-1]
    with pytest.raises(zebrapack.TornTailError, match="torn tail") as caught:
        list(zebrapack.iter_split(zp, Split(str(path), 0, size - 3, None)))
    assert caught.value.offset == size - len(zp.encode(records[-1]))     # where the torn record starts


def test_writer_to_a_path_writes_the_index_beside_it(tmp_path: Path, zp: zebrapack.Schema) -> None:
    path = tmp_path / "by_path.zpk"
    records = some_records(zp, 100)
    with zp.writer(path, index=True, index_every=30) as writer:
        writer.write_all(records)
    written = (tmp_path / "by_path.zpk.zpi").read_bytes()
    assert zebrapack.build_index(path, every=30).to_bytes() == written
    assert read_all(zp, zebrapack.file_splits(path)) == records


def test_writer_refusing_its_index_options_creates_no_file(tmp_path: Path, zp: zebrapack.Schema) -> None:
    with pytest.raises(ValueError, match="every_bytes must be positive"):
        zp.writer(tmp_path / "never.zpk", index=True, index_every_bytes=0)
    assert list(tmp_path.iterdir()) == []
