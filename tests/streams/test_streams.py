"""Streams of records: decode_all, iter_decode (bytes and files), the writer, and
streams that carry their schema as their first object."""

from __future__ import annotations

import io
import tracemalloc
from datetime import datetime, timezone

import pytest
from support.vectors import VECTORS, vector_schema

import zebrapack
from zebrapack import DecodeError

STREAM = (VECTORS / "zp" / "A_stream.zpk").read_bytes()


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return vector_schema("zp.z")


class Trickle(io.RawIOBase):
    """A binary file that hands out at most `step` bytes per read."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step, self.position = data, step, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        chunk = self.data[self.position:self.position + min(self.step, size if size >= 0 else self.step)]
        self.position += len(chunk)
        return chunk


def test_decode_all_reads_every_record(zp: zebrapack.Schema) -> None:
    records = zp.decode_all(STREAM)
    assert [r.Name for r in records] == [f"rec{i}" for i in range(5)]
    assert [r.Sibs for r in records] == [0, 100, 200, 300, 400]


def test_decode_all_of_nothing_is_empty(zp: zebrapack.Schema) -> None:
    assert zp.decode_all(b"") == []


def test_decode_all_mixes_struct_types_named_on_the_wire(zp: zebrapack.Schema) -> None:
    mixed = zp.encode(zp.types.A(Name="a")) + zp.encode(zp.types.Inner(X=1)) + zp.encode(zp.types.Tree(Label="t"))
    assert [type(r).__name__ for r in zp.decode_all(mixed)] == ["A", "Inner", "Tree"]


def test_decode_all_error_offset_is_in_the_whole_stream(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError) as caught:
        zp.decode_all(STREAM[:-2])
    assert caught.value.offset is not None and caught.value.offset > len(STREAM) * 3 // 4


@pytest.mark.parametrize("source", [STREAM, bytearray(STREAM), memoryview(STREAM)], ids=["bytes", "bytearray", "memoryview"])
def test_iter_decode_over_a_buffer(zp: zebrapack.Schema, source: object) -> None:
    assert list(zp.iter_decode(source)) == zp.decode_all(STREAM)  # type: ignore[arg-type]


@pytest.mark.parametrize("step", [1, 7, 64, 1 << 20])
def test_iter_decode_reads_a_file_incrementally(zp: zebrapack.Schema, step: int) -> None:
    records = list(zp.iter_decode(Trickle(STREAM, step), chunk_size=5))
    assert records == zp.decode_all(STREAM)


def test_iter_decode_yields_each_record_before_reading_the_rest(zp: zebrapack.Schema) -> None:
    source = Trickle(STREAM, 1 << 20)
    iterator = zp.iter_decode(source, chunk_size=64)
    assert next(iterator).Name == "rec0"
    assert source.position < len(STREAM)


def test_iter_decode_of_a_truncated_file_names_the_offset(zp: zebrapack.Schema) -> None:
    with pytest.raises(zebrapack.TornTailError, match="torn tail") as caught:
        list(zp.iter_decode(Trickle(STREAM[:-3], 16)))
    assert caught.value.offset == len(STREAM) - len(zp.encode(zp.decode_all(STREAM)[-1]))   # the torn record's start


def test_iter_decode_of_a_corrupt_record_in_a_file_names_the_stream_offset(zp: zebrapack.Schema) -> None:
    corrupt = bytearray(STREAM)
    second = zp.encode(zp.decode_all(STREAM)[0])
    corrupt[len(second) + 5] = 0xc1
    with pytest.raises(DecodeError) as caught:
        list(zp.iter_decode(Trickle(bytes(corrupt), 10)))
    assert caught.value.offset == len(second) + 5


def test_iter_decode_refuses_a_record_beyond_max_record_size(zp: zebrapack.Schema) -> None:
    claims_huge_string = b"\x82\xff\xa1A\x00\xdb\xff\xff\xff\xff" + b"x" * 4000
    with pytest.raises(DecodeError, match="max_record_size=1000"):
        list(zp.iter_decode(io.BytesIO(claims_huge_string), chunk_size=100, max_record_size=1000))


def test_iter_decode_memory_stays_within_a_record_and_a_chunk(zp: zebrapack.Schema) -> None:
    record = zp.encode(zp.types.A(Name="x" * 100, Bday=datetime(2000, 1, 1, tzinfo=timezone.utc)))
    big = record * 20000      # about 2.4 MB
    tracemalloc.start()
    try:
        count = sum(1 for _ in zp.iter_decode(io.BytesIO(big), chunk_size=4096))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 20000
    assert peak < 200_000, peak


def test_writer_appends_records_and_reads_back(zp: zebrapack.Schema) -> None:
    out = io.BytesIO()
    records = zp.decode_all(STREAM)
    with zp.writer(out, buffer_size=100) as writer:
        writer.write_all(records)
        writer.flush()          # records and bytes_written count what reached the file
        assert (writer.records, writer.bytes_written) == (5, len(STREAM))
    assert out.getvalue() == STREAM


def test_writer_leaves_the_stream_whole_when_a_record_is_refused(zp: zebrapack.Schema) -> None:
    out = io.BytesIO()
    with zp.writer(out) as writer:
        writer.write(zp.types.A(Name="ok"))
        with pytest.raises(zebrapack.EncodeError):
            writer.write(zp.types.A(Sibs="not an int"))
        writer.write(zp.types.A(Name="after"))
    assert [r.Name for r in zp.decode_all(out.getvalue())] == ["ok", "after"]


def test_writer_honours_mode_and_structnames(zp: zebrapack.Schema) -> None:
    out = io.BytesIO()
    with zp.writer(out, structnames=False) as writer:
        writer.write(zp.types.Inner(X=1))
    assert out.getvalue() == b"\x81\x00\x01"
    out = io.BytesIO()
    with zp.writer(out, mode="msgp") as writer:
        writer.write(zp.types.Inner(X=1))
    assert out.getvalue() == b"\x82\xa1X\x01\xa1Y\xa0"


def test_stream_with_its_schema_first_reads_back_without_a_schema_file(zp: zebrapack.Schema, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "self.zpk"
    records = zp.decode_all(STREAM)
    with open(path, "wb") as handle, zp.writer(handle, write_schema=True) as writer:
        writer.write_all(records)
    with zebrapack.open_stream(path) as stream:
        assert stream.schema.model == zp.model
        assert [r.Name for r in stream] == [r.Name for r in records]
    with zebrapack.open_stream(Trickle(path.read_bytes(), 13)) as stream:  # type: ignore[arg-type]
        assert [r.Sibs for r in stream] == [r.Sibs for r in records]
    assert [r.GPA for r in zebrapack.open_stream(path.read_bytes())] == [r.GPA for r in records]


def test_open_stream_of_data_without_a_schema_is_an_error() -> None:
    with pytest.raises(zebrapack.SchemaError):
        zebrapack.open_stream(STREAM)
    with pytest.raises(DecodeError, match="stream ends before its schema"):
        zebrapack.open_stream(io.BytesIO(b"\x85"))


def self_describing_stream(zp: zebrapack.Schema) -> bytes:
    out = io.BytesIO()
    with zp.writer(out, write_schema=True) as writer:
        writer.write_all(zp.decode_all(STREAM))
    return out.getvalue()


def test_a_stream_with_its_schema_first_can_be_pushed_byte_by_byte(zp: zebrapack.Schema) -> None:
    data = self_describing_stream(zp)
    schema_size = len(data) - len(STREAM)
    decoder = zebrapack.schema_stream_decoder()
    got = []
    for position in range(len(data)):
        decoder.feed(data[position:position + 1])
        got.extend(decoder)
        assert (decoder.schema is None) == (position + 1 < schema_size)
    decoder.close()
    assert [r.Name for r in got] == [f"rec{i}" for i in range(5)]
    assert decoder.offset == len(data) and decoder.records == 5 and decoder.closed


def test_a_stream_with_its_schema_first_can_be_pushed_whole(zp: zebrapack.Schema) -> None:
    decoder = zebrapack.schema_stream_decoder(type="A", strict=True)
    decoder.feed(memoryview(self_describing_stream(zp) * 1)[:])
    assert [r.Sibs for r in decoder] == [0, 100, 200, 300, 400]
    decoder.close()


def test_a_pushed_stream_that_ends_inside_its_schema_or_a_record_is_torn(zp: zebrapack.Schema) -> None:
    data = self_describing_stream(zp)
    inside_schema = zebrapack.schema_stream_decoder()
    inside_schema.feed(data[:30])
    with pytest.raises(zebrapack.TornTailError, match="before its schema") as caught:
        inside_schema.close()
    assert caught.value.offset == 0
    with pytest.raises(zebrapack.TornTailError):
        next(inside_schema)
    inside_record = zebrapack.schema_stream_decoder()
    inside_record.feed(data[:-2])
    assert len(list(inside_record)) == 4
    with pytest.raises(zebrapack.TornTailError) as caught:
        inside_record.close()
    assert caught.value.offset == len(data) - len(zp.encode(zp.decode_all(STREAM)[-1]))
    empty = zebrapack.schema_stream_decoder()
    with pytest.raises(DecodeError, match="empty"):
        empty.close()


def test_a_pushed_stream_that_does_not_start_with_a_schema_stays_refused(zp: zebrapack.Schema) -> None:
    decoder = zebrapack.schema_stream_decoder()
    with pytest.raises(zebrapack.SchemaError):
        decoder.feed(STREAM)
    with pytest.raises(zebrapack.SchemaError):
        decoder.feed(STREAM)
    with pytest.raises(DecodeError, match="does not start with a schema"):
        zebrapack.schema_stream_decoder().feed(b"\xc1")
    with pytest.raises(ValueError, match="has no struct 'Nope'"):
        zebrapack.schema_stream_decoder(type="Nope").feed(self_describing_stream(zp))
    with pytest.raises(ValueError, match="feed after close"):
        closed = zebrapack.schema_stream_decoder()
        closed.feed(self_describing_stream(zp))
        closed.close()
        closed.feed(b"")
