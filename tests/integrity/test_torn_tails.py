"""A file that ends inside a record (a writer killed mid-write): every reader delivers
every complete record, then a TornTailError whose offset is where the torn record starts;
decode_all stays all-or-nothing. A tear is told from corruption by the record's
structure, never by a message: damage before the end is a DecodeError, not a tear."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.integrity import SCHEMA, Layout, a_records, layout, write_bytes
from support.engines import engine

import zebrapack
import zebrapack.arrow as zpa
from zebrapack import DecodeError, TornTailError
from zebrapack.recordio.reading import being_read

pa = engine("pyarrow")

RECORDS = a_records(3000)          # more than iter_split's batches (1024), in one zpa.read batch
PLAIN = layout(RECORDS)
WITH_SCHEMA = layout(RECORDS, write_schema=True)


def names_until_error(batches: Iterable[Any]) -> tuple[list[str], BaseException | None]:
    """The Name of every record delivered (records, or Arrow batches), then the error that ended it."""
    names: list[str] = []
    try:
        for item in batches:
            if isinstance(item, (list, pa.RecordBatch)):
                names += item.column("Name").to_pylist() if isinstance(item, pa.RecordBatch) else \
                    [record.Name for record in item]
            else:
                names.append(item.Name)
    except DecodeError as error:
        return names, error
    return names, None


def c_stream_batches(stream: Any) -> Iterator[Any]:
    """The batches pyarrow imports through the C stream, one at a time."""
    reader = pa.RecordBatchReader.from_stream(stream)
    while True:
        try:
            yield reader.read_next_batch()
        except StopIteration:
            return
        except pa.ArrowInvalid as error:        # the consumer's own error, with the reader's text
            offset = int(re.search(r"\(byte offset (\d+)\)$", str(error)).group(1))    # type: ignore[union-attr]
            kind = TornTailError if "torn tail:" in str(error) else DecodeError
            raise kind(str(error), "$", offset) from error


class Trickle(io.RawIOBase):
    """A raw file that returns at most ``step`` bytes a read."""

    def __init__(self, data: bytes, step: int) -> None:
        self._data, self._at, self._step = data, 0, step

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._data[self._at:self._at + min(len(buffer), self._step)]
        buffer[:len(chunk)] = chunk
        self._at += len(chunk)
        return len(chunk)


Reader = Callable[[Path, bytes], Iterable[Any]]

READERS: dict[str, Reader] = {
    "iter_decode(bytes)": lambda path, data: SCHEMA.iter_decode(data),
    "iter_decode(path)": lambda path, data: SCHEMA.iter_decode(path, chunk_size=4096),
    "iter_decode(raw file)": lambda path, data: SCHEMA.iter_decode(Trickle(data, 997), chunk_size=1000),
    "zpa.read(path)": lambda path, data: zpa.read(path, SCHEMA, "A"),
    "zpa.read(bytes)": lambda path, data: zpa.read(data, SCHEMA, "A"),
    "zpa.read(raw file)": lambda path, data: zpa.read(Trickle(data, 4093), SCHEMA, "A"),
    "zpa.read(splits)": lambda path, data: zpa.read(zebrapack.file_splits(path), SCHEMA, "A"),
    "zpa.read(path, batch_rows=700)": lambda path, data: zpa.read(path, SCHEMA, "A", batch_rows=700),
    "zpa.read(path) C stream": lambda path, data: c_stream_batches(zpa.read(path, SCHEMA, "A", batch_rows=1000)),
    "iter_split": lambda path, data: zebrapack.iter_split(SCHEMA, zebrapack.file_splits(path)[0]),
    "iter_split_batches": lambda path, data: zebrapack.iter_split_batches(SCHEMA, zebrapack.file_splits(path)[0],
                                                                         batch_size=333),
    "recover": lambda path, data: zebrapack.recover(path, SCHEMA),
}


def cuts(file: Layout) -> list[int]:
    """Sizes that end inside a record: in the first, mid-file, inside a header, a byte short."""
    ends = file.ends
    return [file.data_start + 1, ends[1499] + 1, ends[1500] - 7, ends[-2] + 3, len(file.data) - 1]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("file", [PLAIN, WITH_SCHEMA], ids=["plain", "write_schema"])
def test_every_complete_record_then_a_torn_tail_at_the_torn_records_start(reader: str, file: Layout,
                                                                         tmp_path: Path) -> None:
    for size in cuts(file):
        data = file.data[:size]
        if reader.startswith("iter_decode") and file.data_start:
            data = data[file.data_start:]         # iter_decode reads records only (open_stream: below)
        path = write_bytes(tmp_path / "torn.zpk", data)
        names, error = names_until_error(READERS[reader](path, data))
        whole = file.whole_before(size)
        if reader == "recover":       # the recovery API reads up to the valid end, and says where it is
            assert error is None and names == [record.Name for record in RECORDS[:whole]]
            found = zebrapack.recover(path)
            assert (found.records, found.valid_end, found.torn) == (whole, file.valid_end(size), True)
            continue
        assert names == [record.Name for record in RECORDS[:whole]], (reader, size)
        assert isinstance(error, TornTailError), (reader, size, error)
        base = file.data_start if reader.startswith("iter_decode") else 0
        assert error.offset == file.valid_end(size) - base, (reader, size)


def test_open_stream_gives_every_complete_record_then_the_torn_tail(tmp_path: Path) -> None:
    size = WITH_SCHEMA.ends[2000] - 5
    path = write_bytes(tmp_path / "torn.zpk", WITH_SCHEMA.data[:size])
    for source in (path, WITH_SCHEMA.data[:size], Trickle(WITH_SCHEMA.data[:size], 501)):
        with zebrapack.open_stream(source) as stream:      # type: ignore[arg-type]
            names, error = names_until_error(stream)
        assert names == [record.Name for record in RECORDS[:2000]]
        assert isinstance(error, TornTailError) and error.offset == WITH_SCHEMA.ends[1999]


def test_a_stream_torn_inside_its_schema_document_is_a_torn_tail_at_0(tmp_path: Path) -> None:
    for size in (1, WITH_SCHEMA.data_start // 2, WITH_SCHEMA.data_start - 1):
        with pytest.raises(TornTailError) as torn:
            zebrapack.open_stream(WITH_SCHEMA.data[:size])
        assert torn.value.offset == 0
        path = write_bytes(tmp_path / "torn.zpk", WITH_SCHEMA.data[:size])
        with pytest.raises(TornTailError):
            zebrapack.open_stream(path)
        assert not being_read(path)         # the refused stream's file is closed, not left open
        found = zebrapack.recover(path)
        assert (found.data_start, found.records, found.valid_end, found.torn) == (0, 0, 0, True)


def test_decode_all_stays_all_or_nothing() -> None:
    with pytest.raises(DecodeError) as caught:
        SCHEMA.decode_all(PLAIN.data[:-1])
    assert not isinstance(caught.value, TornTailError)


@pytest.mark.parametrize("reader", [name for name in READERS if name != "recover"])
def test_damage_before_the_end_is_corruption_not_a_tear(reader: str, tmp_path: Path) -> None:
    """A record that is whole but does not decode, and one whose bytes are not msgpack,
    end the read with a DecodeError after the records before it; neither is a tear."""
    start = PLAIN.ends[1199]
    for damage in (b"\xc1", b"\x91"):          # never used; an array where a record (a map) is
        data = PLAIN.data[:start] + damage + PLAIN.data[start + 1:]
        path = write_bytes(tmp_path / "damaged.zpk", data)
        names, error = names_until_error(READERS[reader](path, data))
        assert names == [record.Name for record in RECORDS[:1200]], (reader, damage)
        assert isinstance(error, DecodeError) and not isinstance(error, TornTailError), (reader, error)
    # a last record cut short inside a str whose bytes are then not UTF-8: still a tear, by structure
    name_at = PLAIN.data.index(b"rec2999", PLAIN.ends[-2])
    data = PLAIN.data[:name_at] + b"\xff\xfe"
    names, error = names_until_error(READERS[reader](write_bytes(tmp_path / "damaged.zpk", data), data))
    assert isinstance(error, TornTailError) and error.offset == PLAIN.ends[-2], (reader, error)


def test_zpa_read_delivers_the_whole_records_of_a_batch_a_bad_record_ends() -> None:
    bad = PLAIN.ends[99]
    data = PLAIN.data[:bad + 1] + b"\xc1" + PLAIN.data[bad + 2:]
    stream = zpa.read(data, SCHEMA, "A")
    assert stream.read_next_batch().num_rows == 100
    with pytest.raises(DecodeError) as caught:
        stream.read_next_batch()
    assert caught.value.record == 100      # type: ignore[attr-defined]
    with pytest.raises(DecodeError):        # and the stream stays failed
        stream.read_next_batch()


def test_build_index_of_a_torn_file_is_a_torn_tail_and_writes_no_index(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "torn.zpk", WITH_SCHEMA.data[:-4])
    with pytest.raises(TornTailError) as torn:
        zebrapack.build_index(path, every=100)
    assert torn.value.offset == WITH_SCHEMA.ends[-2]
    assert not (tmp_path / "torn.zpk.zpi").exists()


def test_a_raw_dump_of_a_torn_file_is_a_torn_tail_at_the_objects_start() -> None:
    from zebrapack.textformats.rawdump import iter_raw_records
    objects, error = [], None
    try:
        for offset, _, _ in iter_raw_records(io.BytesIO(PLAIN.data[:PLAIN.ends[3] + 9]), chunk_size=64):
            objects.append(offset)
    except TornTailError as exc:
        error = exc
    assert objects == [0] + PLAIN.ends[:3]
    assert error is not None and error.offset == PLAIN.ends[3]


def test_dask_raises_the_torn_tail_of_the_file(tmp_path: Path) -> None:
    engine("dask.dataframe")
    zpd = engine("zebrapack.dask")
    path = write_bytes(tmp_path / "torn.zpk", PLAIN.data[:-2])
    frame = zpd.read_records(path, SCHEMA, "A")
    with pytest.raises(TornTailError) as torn:
        frame.compute(scheduler="sync")
    assert torn.value.offset == PLAIN.ends[-2]
