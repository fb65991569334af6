"""zpa.read(..., threads=N): the sources cut into ranges (index entries or a boundary scan),
decoded in parallel, give the table, the errors and the torn tails one thread gives."""

from __future__ import annotations

import dataclasses
import gc
import random
import threading
import time
import zlib

import msgpack
import pytest

import zebrapack
import zebrapack.arrow as zpa
from zebrapack.arrow import _threads
from zebrapack.recordio.index_format import IndexEntry, parse_index

from support.engines import engine
from support.mutations import drawn_mutations, mutated

pa = engine("pyarrow")


@pytest.fixture(autouse=True, params=["guessed well", "guessed badly"])
def small_ranges(request, monkeypatch):
    """Ranges of a few hundred bytes, scanned 1000 bytes at a time: many ranges, chunk ends
    inside records; boundaries guessed where 16 records step over whole, or (badly) where
    any one map does, which is often inside a record: the reader then reads on from it."""
    monkeypatch.setattr(_threads, "RANGE_BYTES", 700)
    monkeypatch.setattr(_threads, "SCAN_CHUNK", 1000)
    if request.param == "guessed badly":
        monkeypatch.setattr(_threads, "GUESS_RECORDS", 1)


def read_table(source, record_file, **options):
    return zpa.read(source, record_file.schema, type=record_file.type, **options).read_all()


def sources_of(record_file, tmp_path, kind):
    """The same records as the kind of source named."""
    path = tmp_path / "records.zpk"
    path.write_bytes(record_file.data)
    if kind == "path":
        return path
    if kind == "indexed path":
        zebrapack.build_index(path, every=7)
        return path
    if kind == "bytes":
        return record_file.data
    if kind == "indexed splits":
        zebrapack.build_index(path, every=5)
        return zebrapack.file_splits(path, target_records=40)
    if kind == "split":
        return zebrapack.file_splits(path)
    if kind == "list":
        return [record_file.data, path, bytearray(record_file.data)]
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["path", "indexed path", "bytes", "indexed splits", "split", "list"])
@pytest.mark.parametrize("fixture", ["a_file", "compound_file"])
def test_threads_read_the_table_one_thread_reads(request, tmp_path, kind, fixture):
    record_file = request.getfixturevalue(fixture)
    rng = random.Random(f"{kind} {fixture}")
    source = sources_of(record_file, tmp_path, kind)
    for _ in range(2):
        batch_rows = rng.choice([1, 3, 17, 250])
        options = {"batch_rows": batch_rows, "columns": rng.choice([None, None, [record_file.schema.model.structs[
            record_file.type].wire_fields[-1].go_name]])}
        one = read_table(source, record_file, **options)
        threads = rng.choice([2, 3, 4])
        many = zpa.read(source, record_file.schema, type=record_file.type, threads=threads, **options)
        batches = list(many)
        assert all(b.num_rows <= batch_rows for b in batches)
        assert pa.Table.from_batches(batches, schema=one.schema).equals(one)
        assert read_table(source, record_file, threads=threads, **options).equals(one)


def bad_records(record_file, before, after):
    """``before`` good records, one whose Name is an int (a DecodeError), ``after`` more."""
    records = record_file.schema.decode_all(record_file.data, record_file.type)[:before + after]
    good = [record_file.schema.encode(r) for r in records]
    bad = msgpack.packb({0: 12345})
    return b"".join(good[:before]) + bad + b"".join(good[before:before + after]), sum(map(len, good[:before]))


def outcome(source, record_file, **options):
    """The rows delivered before the error, and the error."""
    rows = []
    with pytest.raises(zebrapack.DecodeError) as caught:
        for batch in zpa.read(source, record_file.schema, type=record_file.type, **options):
            rows.extend(batch.column("Name").to_pylist())
    return rows, caught.value


@pytest.mark.parametrize("indexed", [False, True])
def test_an_error_in_a_later_range_names_its_record_and_offset(a_file, tmp_path, indexed):
    data, offset = bad_records(a_file, 150, 60)
    path = tmp_path / "bad.zpk"
    path.write_bytes(data)
    if indexed:
        zebrapack.build_index(path, every=9)
    rows, one = outcome(path, a_file, batch_rows=4)
    assert one.record == 150 and one.offset == offset + 2     # the value of zid 0
    for threads in (2, 4):
        many_rows, many = outcome(path, a_file, batch_rows=4, threads=threads)
        assert (str(many), many.record, many.offset, type(many)) == (str(one), one.record, one.offset, type(one))
        assert many_rows == rows and len(rows) == 150
    # and after other sources: records counted from the first one's start
    rows, one = outcome([a_file.data, path], a_file, batch_rows=4)
    many_rows, many = outcome([a_file.data, path], a_file, batch_rows=4, threads=3)
    assert (str(many), many.record, many.offset) == (str(one), one.record, one.offset)
    assert one.record == 3000 + 150 and many_rows == rows


def test_a_torn_tail_delivers_every_complete_record_then_tears_as_with_one_thread(a_file, tmp_path):
    path = tmp_path / "torn.zpk"
    path.write_bytes(a_file.data[:len(a_file.data) - 9])
    for source in (path, path.read_bytes()):
        rows, one = outcome(source, a_file, batch_rows=16)
        assert isinstance(one, zebrapack.TornTailError) and one.record == 2999 == len(rows)
        for threads in (2, 3):
            many_rows, many = outcome(source, a_file, batch_rows=16, threads=threads)
            assert isinstance(many, zebrapack.TornTailError)
            assert (str(many), many.record, many.offset) == (str(one), one.record, one.offset)
            assert many_rows == rows


@pytest.mark.parametrize("threads", [0, -1, True, 1.5, "2", None, 10**6])
def test_threads_must_be_a_positive_int(a_file, threads):
    with pytest.raises(ValueError, match="threads"):
        zpa.read(a_file.path, a_file.schema, type="A", threads=threads)


@pytest.mark.parametrize("kind", ["path", "bytes"])
def test_a_wrong_guess_is_found_and_the_rest_is_cut_by_a_scan_and_read_by_threads(a_file, tmp_path, monkeypatch,
                                                                                  kind):
    source = sources_of(a_file, tmp_path, kind)
    wrong = []
    rests = []
    recover = _threads.ParallelBatches._recover

    def counted(self, guess):
        wrong.append(guess.offset)
        recover(self, guess)
        rests.append(self._rest)
    scanned = []
    for name in ("scan_file", "scan_memory"):
        def scan(self, offer, *args, _scan=getattr(_threads.Planner, name)):
            def counted_offer(item):
                scanned.append(item)
                offer(item)
            _scan(self, counted_offer, *args)
        monkeypatch.setattr(_threads.Planner, name, scan)
    monkeypatch.setattr(_threads.ParallelBatches, "_recover", counted)
    monkeypatch.setattr(_threads, "GUESS_RECORDS", 1)
    one = read_table(source, a_file, batch_rows=50)
    assert read_table([source, source], a_file, batch_rows=50, threads=2) == pa.concat_tables([one, one])
    assert wrong        # some guess was inside a record
    # the rest after it was cut at scanned boundaries (several ranges, none guessed) and
    # decoded by the rest's own threads, which stop at its end
    assert len(scanned) > len(wrong) and all(item.rest is None for item in scanned)
    assert rests and all(rest.closed and len(rest._workers) == 2 for rest in rests)
    for worker in (worker for rest in rests for worker in rest._workers):
        worker.join(timeout=10)
        assert not worker.is_alive()


@pytest.mark.parametrize("batch_rows", [2, 64])     # many batches a range; a range a batch
def test_memory_is_bounded_by_the_threads_whatever_the_file(a_file, batch_rows):
    stream = zpa.read(a_file.data, a_file.schema, type="A", batch_rows=batch_rows, threads=2)
    batches = stream._open_parallel()
    try:
        taken = batches.next().num_rows
        assert taken <= batch_rows
        time.sleep(0.3)         # the decoders run ahead as far as they may
        # each decoder holds at most SLOT finished batches over all its slots (and the one
        # it builds): whatever the number of ranges it has gone through
        waiting: dict[int, int] = {}
        for _, slot, budget in list(batches._slots):
            held = sum(kind == "batch" for kind, _ in list(slot.queue))
            waiting[id(budget)] = waiting.get(id(budget), 0) + held
        assert len(waiting) <= 2
        assert all(held <= _threads.SLOT == 2 for held in waiting.values())
        while (batch := batches.next()) is not None:
            assert batch.num_rows <= batch_rows
            taken += batch.num_rows
        assert taken == 3000
    finally:
        batches.close()


def test_polars_and_duckdb_read_a_threaded_stream(a_file):
    pl = engine("polars")
    duckdb = engine("duckdb")
    one = read_table(a_file.path, a_file)
    frame = pl.DataFrame(zpa.read(a_file.path, a_file.schema, type="A", batch_rows=100, threads=2))
    assert frame.to_arrow().equals(pl.DataFrame(one).to_arrow())
    reader = zpa.read(a_file.path, a_file.schema, type="A", batch_rows=100, threads=2)
    got = duckdb.sql("select Name, count(*) as n from reader group by Name order by Name").fetchall()
    expected = sorted(__import__("collections").Counter(one.column("Name").to_pylist()).items())
    assert got == expected


def test_read_next_batch_with_threads_gives_every_batch_once_in_order(a_file):
    stream = zpa.read(a_file.data, a_file.schema, type="A", batch_rows=100, threads=3)
    names = []
    with pytest.raises(StopIteration):
        while True:
            names.extend(stream.read_next_batch().column("Name").to_pylist())
    assert names == [r.Name for r in a_file.schema.decode_all(a_file.data)]


def test_a_threaded_stream_read_to_its_end_or_closed_leaves_no_thread_running(a_file):
    def decoder_threads() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name.startswith("zebrapack-arrow")]

    stream = zpa.read(a_file.path, a_file.schema, type="A", batch_rows=10, threads=3)
    with pytest.raises(StopIteration):
        while True:
            stream.read_next_batch()
    assert decoder_threads() == []          # at once, not after a poll
    assert sum(batch.num_rows for batch in zpa.read(a_file.path, a_file.schema, type="A",
                                                    batch_rows=10, threads=3)) == 3000
    assert decoder_threads() == []
    stream = zpa.read(a_file.data, a_file.schema, type="A", batch_rows=10, threads=2)
    batches = stream._open_parallel()     # (its decoders hold the stream only weakly)
    assert batches.next() is not None
    batches.close()                         # half read: the decoders end after their batch
    assert decoder_threads() == []


def test_a_stream_dropped_half_read_stops_its_threads(a_file):
    def decoder_threads() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name.startswith("zebrapack-arrow")]

    assert decoder_threads() == []
    def half_read_by_read_next_batch(stream):
        stream.read_next_batch()
        return stream

    def half_read_by_an_iterator(stream):
        batches = iter(stream)
        next(batches)
        return batches

    for read_some in (half_read_by_read_next_batch, half_read_by_an_iterator):
        held = read_some(zpa.read(a_file.path, a_file.schema, type="A", batch_rows=10, threads=2))
        assert decoder_threads()
        del held
        gc.collect()
        deadline = time.monotonic() + 10
        while decoder_threads() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert decoder_threads() == []


def test_a_decoder_threads_next_range_starts_at_its_last_batchs_sizes_and_reads_the_same(a_file):
    stream = zpa.read(a_file.data, a_file.schema, type="A", batch_rows=64)
    first = stream._new_reader()
    first.add_buffer(a_file.data[:len(a_file.data) // 2], 0)
    assert first.next_batch() is not None       # a batch made: its sizes are there to follow
    followed = stream._new_reader()
    followed.follow(first)
    followed.follow(followed)                   # itself: nothing to take
    followed.add_buffer(a_file.data, 0)
    alone = stream._new_reader()
    alone.add_buffer(a_file.data, 0)

    def table(reader):
        batches = []
        while (capsules := reader.next_batch()) is not None:
            batches.append(pa.RecordBatch._import_from_c_capsule(*capsules))
        return pa.Table.from_batches(batches)
    expected = table(alone)
    assert expected.num_rows == 3000 and table(followed).equals(expected)
    with pytest.raises(ValueError, match="before the first batch"):
        followed.follow(first)
    # a reader of other columns (another projection) leaves this one's sizes as they are
    other = zpa.read(a_file.data, a_file.schema, type="A", columns=["Name"], batch_rows=64)._new_reader()
    other.follow(first)
    other.add_buffer(a_file.data, 0)
    assert table(other).column("Name").equals(expected.column("Name"))


@pytest.mark.parametrize("megabytes", [1, 64, 256, 1024, 4096])
def test_index_entries_make_ranges_of_a_32nd_of_the_source(megabytes, monkeypatch):
    # a range per batch cost two threads 7% more CPU on 1 GB than ranges of 16 MiB
    monkeypatch.setattr(_threads, "RANGE_BYTES", 4 << 20)
    entry_bytes, entry_records = 1 << 20, 17_000
    entries = [IndexEntry(k * entry_bytes, (k + 1) * entry_bytes, entry_records, 0) for k in range(megabytes)]
    ranges = []
    planner = _threads.Planner(batch_rows=1 << 20, max_depth=100, max_record_size=1 << 20)   # (batches not the bound)
    planner.index_entries(ranges.append, entries, lambda group: group, True)
    step = min(max(4 << 20, (megabytes << 20) // 32), 16 << 20)
    assert [r.records for r in ranges[:-1]] == [step // entry_bytes * entry_records] * (len(ranges) - 1)
    assert sum(r.records for r in ranges) == megabytes * entry_records
    assert [r.stop for r in ranges] == [min((k + 1) * step, megabytes << 20) for k in range(len(ranges))]
    assert [r.last for r in ranges] == [False] * (len(ranges) - 1) + [True]


@pytest.mark.parametrize("batch_rows", [1000, 4000, 16384])
def test_a_range_holds_a_few_batches_of_records_so_that_threads_overlap(a_file, tmp_path, batch_rows, monkeypatch):
    # a thread holds SLOT finished batches of a range waiting behind another's: a range of
    # many more batches had it wait, and two threads read 16384-row batches of A no faster
    # than one (0.98x; 1.45-1.5x with ranges of RANGE_BATCHES batches)
    monkeypatch.setattr(_threads, "RANGE_BYTES", 4 << 20)
    record = len(a_file.data) / 3000
    entries = [IndexEntry(k * 100_000, (k + 1) * 100_000, 1000, 0) for k in range(4000)]    # 400 MB
    ranges = []
    planner = _threads.Planner(batch_rows=batch_rows, max_depth=100, max_record_size=1 << 20)
    planner.index_entries(ranges.append, entries, lambda group: group, True)
    assert max(r.records for r in ranges) <= _threads.RANGE_BATCHES * batch_rows
    assert sum(r.records for r in ranges) == 4_000_000
    path = tmp_path / "many.zpk"
    path.write_bytes(a_file.data * 400)      # 1.2 million records, guessed ranges
    guessed = []
    _threads.Planner(batch_rows=batch_rows, max_depth=100, max_record_size=1 << 20).guess_file(
        guessed.append, str(path), 0, path.stat().st_size, lambda start, stop: (start, stop))
    sizes = [r.stop - r.add[0] for r in guessed]
    step = max(_threads.RANGE_BATCHES * batch_rows * record, 1 << 20)      # (a quarter of RANGE_BYTES at least)
    assert step * 0.9 <= min(sizes[:-1]) <= max(sizes[:-1]) <= step * 1.1 + (16 << 10)     # (guessed: a little past)
    one = zpa.read(path, a_file.schema, type="A", batch_rows=batch_rows).read_all()
    assert zpa.read(path, a_file.schema, type="A", batch_rows=batch_rows, threads=2).read_all().equals(one)


# -- damaged files and forged indexes, drawn by seed ----------------------------------------


def read_outcome(source, record_file, **options):
    """Every batch delivered, and the error that ended the read (or None) as (type,
    message, record, offset)."""
    batches = []
    error = None
    try:
        for batch in zpa.read(source, record_file.schema, type=record_file.type, **options):
            batches.append(batch)
    except zebrapack.DecodeError as exc:
        error = (type(exc), str(exc), getattr(exc, "record", None), exc.offset)
    return batches, error


def first_records(record_file, count):
    records = record_file.schema.decode_all(record_file.data, record_file.type)[:count]
    return b"".join(record_file.schema.encode(record) for record in records)


def rows_of(batches):
    """The rows of the batches, NaN equal to NaN (damage can make a float64 one, and
    ``Table.equals`` takes NaN as unequal to itself), times as their integers (damage can
    make one that ``datetime`` cannot hold)."""
    def plain(batch):
        columns = [column.cast(pa.int64()) if pa.types.is_timestamp(column.type) else column
                   for column in batch.columns]
        return pa.RecordBatch.from_arrays(columns, names=batch.schema.names).to_pylist()
    return repr([row for batch in batches for row in plain(batch)])


def same_outcome(one, many):
    (one_batches, one_error), (many_batches, many_error) = one, many
    assert many_error == one_error
    assert rows_of(many_batches) == rows_of(one_batches)


@pytest.mark.parametrize("seed", range(16))
def test_a_damaged_file_gives_the_rows_and_the_error_of_one_thread(a_file, tmp_path, seed):
    rng = random.Random(seed)
    data = mutated(first_records(a_file, 300), drawn_mutations(rng)) or b"\x80"
    path = tmp_path / "damaged.zpk"
    path.write_bytes(data)
    indexed = tmp_path / "damaged-indexed.zpk"
    indexed.write_bytes(data)
    sources = [data, path, [first_records(a_file, 20), data, path]]
    try:
        zebrapack.build_index(indexed, every=rng.choice([3, 7, 20]))
        sources.append(indexed)
    except zebrapack.DecodeError:       # damage the index cannot step over: no index
        pass
    batch_rows = rng.choice([1, 7, 50, 65536])
    for source in sources:
        one = read_outcome(source, a_file, batch_rows=batch_rows)
        for threads in (2, 3):
            same_outcome(one, read_outcome(source, a_file, batch_rows=batch_rows, threads=threads))


@pytest.mark.parametrize("seed", range(16))
def test_a_forged_well_formed_index_gives_the_table_of_one_thread_or_a_decode_error(a_file, tmp_path, seed):
    # entries moved into records, their counts changed, two made one (under a larger
    # `every`), each entry's checksum made to match the bytes it now names (nine times in
    # ten): a hostile index that passes the index's own checks, not a damaged one. Threads
    # read by it; one thread does not need it.
    rng = random.Random(seed)
    data = first_records(a_file, 300)
    path = tmp_path / "forged.zpk"
    path.write_bytes(data)
    zebrapack.build_index(path, every=rng.choice([3, 7, 20, 64]))
    index = parse_index((tmp_path / "forged.zpk.zpi").read_bytes())
    every = index.every * rng.choice([1, 2])
    starts = [entry.start for entry in index.entries] + [index.data_size]
    counts = [entry.records for entry in index.entries]
    for _ in range(rng.choice([1, 2, 3])):
        at = rng.randrange(1, len(counts)) if len(counts) > 1 else 0
        kind = rng.randrange(3) if at else 1
        if kind == 0:       # a start moved, between its neighbours
            starts[at] = min(max(starts[at] + rng.choice([-3, -1, 1, 2, 5, 17]), starts[at - 1] + counts[at - 1]),
                             starts[at + 1] - counts[at])
        elif kind == 1:
            counts[at] = rng.randint(1, every)
        else:               # two entries made one
            del starts[at]
            counts[at - 1] = min(counts[at - 1] + counts.pop(at), every)
    entries = []
    for start, stop, count in zip(starts, starts[1:], counts):
        crc = zlib.crc32(data[start:stop]) if rng.random() < 0.9 else rng.randrange(1 << 32)
        entries.append(IndexEntry(start, stop, count, crc))
    forged = dataclasses.replace(index, entries=tuple(entries), record_count=sum(counts), every=every)
    (tmp_path / "forged.zpk.zpi").write_bytes(forged.to_bytes())
    assert parse_index(forged.to_bytes()) == forged         # it passes the index's checks
    batch_rows = rng.choice([1, 7, 50, 65536])
    table, error = read_outcome(path, a_file, batch_rows=batch_rows)
    assert error is None
    one = pa.Table.from_batches(table)
    for threads in (2, 3):
        batches, error = read_outcome(path, a_file, batch_rows=batch_rows, threads=threads)
        many = pa.Table.from_batches(batches, schema=one.schema)
        if error is None:
            assert many.equals(one)
        else:       # every row before it is the file's, and the message blames the index
            assert error[0] is zebrapack.DecodeError and "index" in error[1]
            assert many.equals(one.slice(0, many.num_rows))
