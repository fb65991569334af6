"""Files, pipes and sockets: ``iter_decode`` and ``open_stream`` give each record as soon
as its last byte has arrived, whatever buffers the source has, and a non-blocking
source with no data is an error, never the end of the stream.

The writers here wait for the reader to acknowledge each record before they write
the next: a reader that held a record back until more bytes came would never
acknowledge it, and the test fails when the writer gives up waiting (no timing
threshold decides)."""

from __future__ import annotations

import io
import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

import pytest
from support.vectors import VECTORS, vector_schema

import zebrapack
from zebrapack import TornTailError

ZP = vector_schema("zp.z")
STREAM = (VECTORS / "zp" / "A_stream.zpk").read_bytes()
RECORDS = ZP.decode_all(STREAM)
#: How long a writer waits for an acknowledgement before it gives up (and the test fails).
ACK_TIMEOUT = 10.0


class Handshake:
    """A writer thread that sends each record in pieces, then waits for its acknowledgement."""

    def __init__(self, write: Callable[[bytes], Any], close: Callable[[], Any], payloads: list[bytes]) -> None:
        self._write, self._close, self._payloads = write, close, payloads
        self._acks: queue.Queue[int] = queue.Queue()
        self.failure: str | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Handshake:
        self._thread.start()
        return self

    def ack(self, count: int) -> None:
        self._acks.put(count)

    def _run(self) -> None:
        try:
            for number, payload in enumerate(self._payloads, 1):
                for start in range(0, len(payload), 11):          # in pieces, a little apart
                    self._write(payload[start:start + 11])
                    time.sleep(0.0005)
                try:
                    acked = self._acks.get(timeout=ACK_TIMEOUT)
                except queue.Empty:
                    self.failure = f"record {number} was never acknowledged: the reader held it back"
                    return
                if acked != number:
                    self.failure = f"acknowledged {acked} after record {number}"
                    return
        finally:
            self._close()

    def __exit__(self, *exc_info: object) -> None:
        self._thread.join(ACK_TIMEOUT + 5)
        assert self.failure is None, self.failure


def payloads(records: list[Any]) -> list[bytes]:
    return [ZP.encode(record) for record in records]


@contextmanager
def pipe(buffering: int) -> Iterator[tuple[IO[bytes], Callable[[bytes], Any], Callable[[], Any]]]:
    read_fd, write_fd = os.pipe()
    with open(read_fd, "rb", buffering=buffering) as source, open(write_fd, "wb", buffering=0) as sink:
        yield source, sink.write, sink.close


@contextmanager
def socket_pair(kind: str) -> Iterator[tuple[Any, Callable[[bytes], Any], Callable[[], Any]]]:
    reader, writer = socket.socketpair()
    reader.settimeout(ACK_TIMEOUT + 5)          # a reader that waits for nothing fails, never hangs
    with reader, writer, socket_source(reader, kind) as source:
        yield source, writer.sendall, lambda: writer.shutdown(socket.SHUT_WR)


@contextmanager
def socket_source(sock: socket.socket, kind: str) -> Iterator[Any]:
    """The socket itself, or a file made on it (closed at the end)."""
    if kind == "socket":
        yield sock
        return
    with sock.makefile("rb", buffering=0 if kind == "makefile unbuffered" else -1) as source:
        yield source


SOURCES = {
    "pipe, buffered": lambda: pipe(-1),
    "pipe, unbuffered": lambda: pipe(0),
    "socket": lambda: socket_pair("socket"),
    "socket.makefile": lambda: socket_pair("makefile"),
    "socket.makefile, unbuffered": lambda: socket_pair("makefile unbuffered"),
}


@pytest.mark.parametrize("make_source", SOURCES.values(), ids=SOURCES.keys())
def test_iter_decode_gives_each_record_before_the_next_is_written(make_source: Any) -> None:
    got: list[Any] = []
    with make_source() as (source, write, close), Handshake(write, close, payloads(RECORDS)) as writer:
        for record in ZP.iter_decode(source):
            got.append(record)
            writer.ack(len(got))
    assert got == RECORDS


@pytest.mark.parametrize("make_source", [SOURCES["pipe, buffered"], SOURCES["socket"]], ids=["pipe", "socket"])
def test_open_stream_gives_the_schema_then_each_record_as_it_arrives(make_source: Any) -> None:
    head = io.BytesIO()
    with ZP.writer(head, write_schema=True):
        pass
    got: list[Any] = []
    with make_source() as (source, write, close), Handshake(write, close,
                                                             [head.getvalue(), *payloads(RECORDS)]) as writer:
        writer.ack(1)                                   # the schema comes first
        with zebrapack.open_stream(source) as stream:
            assert stream.schema.model == ZP.model
            for record in stream:
                got.append(record)
                writer.ack(len(got) + 1)
    assert [r.Name for r in got] == [r.Name for r in RECORDS]


def test_a_connection_closed_inside_a_record_gives_the_complete_ones_then_a_torn_tail() -> None:
    got: list[Any] = []
    cut = STREAM[:-5]
    with socket_pair("makefile") as (source, write, close), Handshake(write, close, [cut]) as writer:
        writer.ack(1)
        with pytest.raises(TornTailError) as caught:
            for record in ZP.iter_decode(source):
                got.append(record)
    assert got == RECORDS[:-1]
    assert caught.value.offset == len(STREAM) - len(ZP.encode(RECORDS[-1]))


# -- non-blocking sources --------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["socket", "makefile", "makefile unbuffered"])
def test_a_non_blocking_socket_without_data_is_an_error_after_the_records_that_came(kind: str) -> None:
    reader, writer = socket.socketpair()
    with reader, writer:
        writer.sendall(STREAM + STREAM[:9])
        time.sleep(0.05)
        reader.setblocking(False)
        got: list[Any] = []
        with socket_source(reader, kind) as source, pytest.raises(BlockingIOError, match="no data now"):
            got.extend(ZP.iter_decode(source))
    assert got == RECORDS


@pytest.mark.parametrize("buffering", [-1, 0], ids=["buffered", "unbuffered"])
def test_a_non_blocking_pipe_without_data_is_an_error_not_the_end(buffering: int) -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    with open(read_fd, "rb", buffering=buffering) as source, open(write_fd, "wb") as sink:
        with pytest.raises(BlockingIOError, match="no data now"):
            list(ZP.iter_decode(source))
        with pytest.raises(BlockingIOError, match="no data now"):
            zebrapack.open_stream(source)
        sink.write(STREAM)
        sink.flush()
        got: list[Any] = []
        with pytest.raises(BlockingIOError, match="no data now"):
            got.extend(ZP.iter_decode(source))
        assert got == RECORDS


def test_only_binary_sources_are_read(tmp_path: Any) -> None:
    path = tmp_path / "records.zpk"
    path.write_bytes(STREAM)
    with open(path, encoding="latin-1") as text, pytest.raises(TypeError, match="binary"):
        list(ZP.iter_decode(text))      # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot read records"):
        list(ZP.iter_decode(object()))  # type: ignore[arg-type]


# -- large records ---------------------------------------------------------------------------

def test_a_large_record_through_an_unbuffered_pipe_costs_about_a_decode() -> None:
    record = ZP.encode(ZP.types.Compound(Inners=[ZP.types.Inner(X=i, Y="y" * (i % 30)) for i in range(300_000)]))

    def through_a_pipe() -> None:
        with pipe(0) as (source, write, close):
            writer = threading.Thread(target=lambda: (write(record), close()))
            writer.start()
            assert len(list(ZP.iter_decode(source))) == 1
            writer.join()

    # Parsing the record again at each read of the pipe (64 kB, ~100 of them) would
    # cost about 50 decodes; CPU time, which load from other processes moves less.
    assert cpu_seconds(through_a_pipe) < 8 * cpu_seconds(lambda: ZP.decode(record)) + 0.3


def cpu_seconds(function: Callable[[], Any]) -> float:
    """The best of three, in CPU time."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        function()
        best = min(best, time.process_time() - start)
    return best
