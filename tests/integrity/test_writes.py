"""A writer never reports success for bytes that were not written: short writes are
written on, a failing file (a full disk) raises, ``records`` and ``bytes_written`` say
what reached the file, an index covers only bytes that reached it, its temporary file
cannot be taken for data, and the file being read is refused before it is truncated."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from support.integrity import SCHEMA, a_records, layout, schema_bytes
from support.engines import engine

import zebrapack
import zebrapack.arrow as zpa
from zebrapack.streams.planning import expand_paths, plan_splits

RECORDS = a_records(2000)
PLAIN = layout(RECORDS)


class Stingy(io.RawIOBase):
    """A raw file whose write takes at most ``step`` bytes a call, and (``room``) fails
    with ENOSPC once it holds that many bytes, as a raw file on a full disk does."""

    def __init__(self, step: int, room: int | None = None) -> None:
        self.data = bytearray()
        self.step, self.room = step, room

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        left = len(b) if self.room is None else self.room - len(self.data)
        if left <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        taken = bytes(b[:min(self.step, left)])
        self.data += taken
        return len(taken)


def test_short_writes_are_written_on(tmp_path: Path) -> None:
    out = Stingy(100)
    with SCHEMA.writer(out, write_schema=True, buffer_size=5000) as writer:
        writer.write_all(RECORDS)
    expected = schema_bytes() + PLAIN.data
    assert bytes(out.data) == expected
    assert (writer.records, writer.bytes_written) == (2000, len(expected))


def test_short_writes_of_arrow_chunks_are_written_on() -> None:
    pa = engine("pyarrow")
    table = zpa.read(PLAIN.data, SCHEMA, "A").read_all()
    for rows, chunk_bytes in ((300, 20000), (2000, 1 << 20)):   # chunks through the writer's buffer, and past it
        out = Stingy(4093)
        assert zpa.write(pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=rows)), out,
                         SCHEMA, "A", chunk_bytes=chunk_bytes) == 2000
        assert bytes(out.data) == PLAIN.data


@pytest.mark.parametrize("room", [1, 5000, PLAIN.ends[700], PLAIN.ends[700] + 3])
def test_a_full_disk_raises_and_records_counts_what_the_file_holds_whole(room: int, tmp_path: Path) -> None:
    out = Stingy(1 << 20, room)
    writer = SCHEMA.writer(out, buffer_size=4096, index=tmp_path / "out.zpi")
    with pytest.raises(OSError) as failed:
        writer.write_all(RECORDS)
        writer.close()
    assert failed.value.errno == errno.ENOSPC
    assert bytes(out.data) == PLAIN.data[:room]
    assert (writer.records, writer.bytes_written) == (PLAIN.whole_before(room), room)
    with pytest.raises(ValueError, match=f"the file holds its first {writer.records} records whole"):
        writer.write(RECORDS[0])       # a failed writer writes nothing more
    with pytest.raises(ValueError, match="the writer failed"):
        writer.flush()
    writer.close()                      # closes without writing more, nor an index
    assert bytes(out.data) == PLAIN.data[:room]
    assert not (tmp_path / "out.zpi").exists()


def test_a_buffered_file_that_fails_counts_only_what_was_flushed(tmp_path: Path) -> None:
    class Failing(io.BytesIO):
        def flush(self) -> None:
            if self.tell() > 30000:
                raise OSError(errno.EIO, "I/O error")
    out = Failing()
    writer = SCHEMA.writer(out, buffer_size=10000)
    with pytest.raises(OSError):
        writer.write_all(RECORDS)
    assert writer.records == PLAIN.whole_before(writer.bytes_written) and writer.bytes_written <= 30000
    assert writer.records > 0


def test_a_raw_file_that_takes_nothing_fails_the_writer() -> None:
    class WouldBlock(io.RawIOBase):
        def writable(self) -> bool:
            return True

        def write(self, b: Any) -> None:        # a non-blocking raw file that would block
            return None
    writer = SCHEMA.writer(WouldBlock())
    writer.write(RECORDS[0])
    with pytest.raises(BlockingIOError):
        writer.flush()
    assert (writer.records, writer.bytes_written) == (0, 0)


def test_a_file_object_that_does_not_count_is_taken_at_its_word() -> None:
    class Quiet:
        def __init__(self) -> None:
            self.data = bytearray()

        def write(self, b: Any) -> None:         # as socket.sendall: everything, no count
            self.data += b
    out = Quiet()
    with SCHEMA.writer(out) as writer:
        writer.write_all(RECORDS[:10])
    assert bytes(out.data) == PLAIN.data[:PLAIN.ends[9]] and writer.records == 10


def test_a_full_file_system_when_writing_to_a_path(tmp_path: Path) -> None:
    """A real short write: the file size limit (RLIMIT_FSIZE) makes the OS take part of a
    write, then refuse the next with EFBIG, as a full disk does (ENOSPC)."""
    path = tmp_path / "limited.zpk"
    room = PLAIN.ends[900] + 17
    script = textwrap.dedent(f"""
        import resource, signal, sys
        sys.path.insert(0, {str(Path(__file__).parent.parent)!r})
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({room}, {room}))
        from support.integrity import SCHEMA, a_records
        writer = SCHEMA.writer({str(path)!r}, index=True, buffer_size=8192)
        try:
            writer.write_all(a_records(2000))
            writer.close()
        except OSError as error:
            print(error.errno, writer.records, writer.bytes_written)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    error, records, written = map(int, done.stdout.split())
    assert (error, records, written) == (errno.EFBIG, PLAIN.whole_before(room), room)
    assert path.read_bytes() == PLAIN.data[:room]
    assert not Path(f"{path}.zpi").exists()        # no index for bytes that are not there
    found = zebrapack.recover(path, SCHEMA)
    assert (found.records, found.torn) == (records, True)


def test_the_index_covers_what_reached_the_file(tmp_path: Path) -> None:
    path = tmp_path / "stingy.zpk"
    with open(path, "wb", buffering=0) as raw:
        stingy = _StingyFile(raw, 333)
        with SCHEMA.writer(stingy, index=tmp_path / "stingy.zpi", index_every=64) as writer:
            writer.write_all(RECORDS)
    assert path.read_bytes() == PLAIN.data
    index = zebrapack.load_index(path, tmp_path / "stingy.zpi", full=True)
    assert index.record_count == 2000


class _StingyFile:
    """A real raw file whose write passes on at most ``step`` bytes a call."""

    def __init__(self, raw: Any, step: int) -> None:
        self._raw, self._step = raw, step
        self.name = raw.name

    def write(self, b: Any) -> int:
        return int(self._raw.write(memoryview(b)[:self._step]))

    def tell(self) -> int:
        return int(self._raw.tell())


# -- the file being read ----------------------------------------------------------------


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "records.zpk"
    path.write_bytes(PLAIN.data)
    return path


def test_writing_the_file_a_stream_reads_is_refused_before_truncating(source: Path) -> None:
    engine("pyarrow")
    link = source.parent / "link.zpk"
    os.link(source, link)
    symlink = source.parent / "symlink.zpk"
    symlink.symlink_to(source)
    for dest in (source, str(source), source.parent / "." / "records.zpk", link, symlink):
        for index in (False, True):
            with pytest.raises(ValueError, match="a reader of this process is reading this file"):
                zpa.write(zpa.read(source, SCHEMA, "A"), dest, SCHEMA, "A", index=index)
            assert source.read_bytes() == PLAIN.data, dest
            assert not Path(f"{dest}.zpi").exists()
    splits = zebrapack.file_splits(source)
    with pytest.raises(ValueError, match="a reader of this process is reading this file"):
        zpa.write(zpa.read(splits, SCHEMA, "A"), link, SCHEMA, "A")
    with open(source, "rb") as handle, pytest.raises(ValueError, match="reading this file"):
        zpa.write(zpa.read(handle, SCHEMA, "A"), source, SCHEMA, "A")
    assert source.read_bytes() == PLAIN.data
    # read first, then write: the table holds the rows, the file is no longer read
    table = zpa.read(source, SCHEMA, "A").read_all()
    assert zpa.write(table, source, SCHEMA, "A", index=True) == 2000
    assert source.read_bytes() == PLAIN.data


def test_a_writer_fed_by_a_reader_of_its_own_file_refuses_before_truncating(source: Path) -> None:
    writer = SCHEMA.writer(source, buffer_size=4096)          # made first: nothing truncated yet
    decoded = SCHEMA.iter_decode(source)
    with pytest.raises(ValueError, match="reading this file"):
        writer.write_all(decoded)
    writer.close()
    decoded.close()
    assert source.read_bytes() == PLAIN.data
    with zebrapack.open_stream(_with_schema(source)) as stream:
        with pytest.raises(ValueError, match="reading this file"):
            SCHEMA.writer(source.parent / "with_schema.zpk")
        list(stream)
    split = zebrapack.file_splits(source)[0]
    records = zebrapack.iter_split(SCHEMA, split)
    next(records)
    with pytest.raises(ValueError, match="reading this file"):
        SCHEMA.writer(source)
    records.close()                     # the reader is done: writing is allowed again
    with SCHEMA.writer(source) as writer:
        writer.write_all(RECORDS[:5])
    assert source.read_bytes() == PLAIN.data[:PLAIN.ends[4]]


def _with_schema(source: Path) -> Path:
    path = source.parent / "with_schema.zpk"
    path.write_bytes(schema_bytes() + PLAIN.data)
    return path


def test_a_writer_truncates_its_path_only_when_it_writes(source: Path) -> None:
    writer = SCHEMA.writer(source)
    assert source.read_bytes() == PLAIN.data and not writer.started
    writer.close()                      # nothing written: the file is emptied all the same
    assert source.read_bytes() == b"" and writer.started


# -- temporary files ------------------------------------------------------------------


def test_an_index_writer_killed_leaves_nothing_taken_for_data(tmp_path: Path) -> None:
    folder = tmp_path / "day"
    folder.mkdir()
    path = folder / "records.zpk"
    path.write_bytes(PLAIN.data)
    script = textwrap.dedent(f"""
        import os, signal
        import zebrapack
        os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)     # killed inside write_index
        zebrapack.build_index({str(path)!r})
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert done.returncode == -9
    left = [name for name in os.listdir(folder) if name != "records.zpk"]
    assert len(left) == 1 and left[0].startswith(".records.zpk.zpi.") and left[0].endswith(".tmp")
    assert expand_paths(folder) == expand_paths(str(folder / "*")) == [str(path)]
    assert [split.records for split in plan_splits(folder)] == [None]
    zpd = engine("zebrapack.dask")
    assert len(zpd.read_records(folder, SCHEMA, "A").compute(scheduler="sync")) == 2000
