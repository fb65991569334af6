"""zpa.write writes its chunks into one buffer of the encoder, again and again while nothing
else holds it (a new buffer of a megabyte is mapped anew and faults in page by page): a
sink that keeps what it was given keeps its bytes, whatever the writer writes next."""

from __future__ import annotations

import io
from typing import Any

import zebrapack
from zebrapack import examples

from support.engines import engine
from .writing import encoded

pa = engine("pyarrow")


class KeepingSink(io.RawIOBase):
    """A file that keeps every object its write is given, as a queue of buffers would."""

    def __init__(self) -> None:
        self.kept: list[Any] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        # the chunks as given; the record writer's own buffer (a bytearray it clears once
        # written) copied
        self.kept.append(data if isinstance(data, memoryview) else bytes(data))
        return len(memoryview(data))


def _records(schema: zebrapack.Schema, count: int) -> list[Any]:
    A = schema.types.A
    return [A(Name=f"name {k}", Phone=str(k) * (k % 7), Sibs=k, GPA=k / 8, Friend=k % 3 == 0) for k in range(count)]


def _table(records: list[Any]) -> Any:
    return pa.table({"Name": [r.Name for r in records], "Phone": [r.Phone for r in records],
                     "Sibs": [r.Sibs for r in records], "GPA": [r.GPA for r in records],
                     "Friend": [r.Friend for r in records]})


def test_a_sink_that_keeps_its_chunks_keeps_their_bytes() -> None:
    schema = zebrapack.load(examples.SCHEMA)
    records = _records(schema, 30000)
    sink = KeepingSink()
    # chunks past the record writer's 64 KiB buffer: each handed to the file as written
    zebrapack.arrow.write(_table(records), sink, schema, "A", chunk_bytes=70000)
    assert sum(isinstance(data, memoryview) for data in sink.kept) > 5
    assert b"".join(bytes(data) for data in sink.kept) == encoded(schema, records)


def test_chunks_written_one_after_another_into_a_file_are_each_whole() -> None:
    schema = zebrapack.load(examples.SCHEMA)
    records = _records(schema, 5000)
    out = io.BytesIO()
    for chunk_bytes in (100, 4000, 1 << 20):
        out.seek(0)
        out.truncate()
        zebrapack.arrow.write(_table(records), out, schema, "A", chunk_bytes=chunk_bytes)
        assert out.getvalue() == encoded(schema, records)
