"""Records over asyncio: ``schema.aiter_decode(reader)`` gives each record as soon as its
last byte has arrived, the push decoder serves a ``Protocol``, and
``schema.async_writer(writer)`` batches records into few writes and waits on
``drain()`` (back-pressure). Every wait is bounded: a test fails, never hangs."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from support.vectors import VECTORS, vector_schema

import zebrapack
from zebrapack import EncodeError, TornTailError

ZP = vector_schema("zp.z")
STREAM = (VECTORS / "zp" / "A_stream.zpk").read_bytes()
RECORDS = ZP.decode_all(STREAM)
TIMEOUT = 20.0


def run(coroutine: Awaitable[Any]) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coroutine, TIMEOUT)
    return asyncio.run(bounded())


async def loopback(serve: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
                   client: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[Any]]) -> Any:
    """Run ``serve`` for one connection on 127.0.0.1 (an ephemeral port) and ``client`` against it."""
    served: list[asyncio.Task[None]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served.append(asyncio.current_task())       # type: ignore[arg-type]
        try:
            await serve(reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    async with server:
        host, port = server.sockets[0].getsockname()[:2]
        reader, writer = await asyncio.open_connection(host, port)
        try:
            result = await client(reader, writer)
        finally:
            writer.close()
            await writer.wait_closed()
        await asyncio.gather(*served)
    return result


async def read_ack(reader: asyncio.StreamReader) -> int:
    return int.from_bytes(await reader.readexactly(4), "big")


# -- reading ---------------------------------------------------------------------------------

def test_aiter_decode_gives_each_record_before_the_next_is_sent() -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for number, record in enumerate(RECORDS, 1):
            data = ZP.encode(record)
            for start in range(0, len(data), 9):      # in pieces, a little apart
                writer.write(data[start:start + 9])
                await writer.drain()
                await asyncio.sleep(0.001)
            assert await read_ack(reader) == number   # a reader holding it back never acks

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> list[Any]:
        got = []
        async for record in ZP.aiter_decode(reader):
            got.append(record)
            writer.write(len(got).to_bytes(4, "big"))
            await writer.drain()
        return got

    assert run(loopback(serve, client)) == RECORDS


def test_aiter_decode_of_a_stream_closed_inside_a_record_ends_with_a_torn_tail() -> None:
    async def main() -> tuple[list[Any], TornTailError]:
        reader = asyncio.StreamReader()
        reader.feed_data(STREAM[:-4])
        reader.feed_eof()
        got = []
        with pytest.raises(TornTailError) as caught:
            async for record in ZP.aiter_decode(reader, chunk_size=10):
                got.append(record)
        return got, caught.value

    got, error = run(main())
    assert got == RECORDS[:-1]
    assert error.offset == len(STREAM) - len(ZP.encode(RECORDS[-1]))


class Trickle:
    """Anything with an async read(n): gives at most 3 bytes at a time."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    async def read(self, size: int) -> bytes:
        await asyncio.sleep(0)
        chunk, self.data = self.data[:min(size, 3)], self.data[min(size, 3):]
        return chunk


def test_aiter_decode_reads_anything_with_an_async_read() -> None:
    async def main() -> list[Any]:
        return [record async for record in ZP.aiter_decode(Trickle(STREAM), "A", strict=True)]
    assert run(main()) == RECORDS


def test_aiter_decode_refuses_a_blocking_reader() -> None:
    async def main() -> None:
        async for _ in ZP.aiter_decode(io.BytesIO(STREAM)):      # type: ignore[arg-type]
            pass
    with pytest.raises(TypeError, match="not async"):
        run(main())


def test_the_push_decoder_serves_a_protocol() -> None:
    class Records(asyncio.Protocol):
        def __init__(self) -> None:
            self.decoder = ZP.stream_decoder()
            self.got: list[Any] = []
            self.done: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
            self.transport: asyncio.Transport | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            assert isinstance(transport, asyncio.Transport)
            self.transport = transport

        def data_received(self, data: bytes) -> None:
            self.decoder.feed(data)
            for record in self.decoder:
                self.got.append(record)
                assert self.transport is not None
                self.transport.write(len(self.got).to_bytes(4, "big"))

        def eof_received(self) -> None:
            try:
                self.decoder.close()
            except Exception as exc:        # a torn tail: the future says so
                self.done.set_exception(exc)
            else:
                self.done.set_result(self.got)

    async def main() -> list[Any]:
        protocols: list[Records] = []

        def factory() -> Records:
            protocols.append(Records())
            return protocols[-1]

        server = await asyncio.get_running_loop().create_server(factory, "127.0.0.1", 0)
        async with server:
            reader, writer = await asyncio.open_connection(*server.sockets[0].getsockname()[:2])
            for number, record in enumerate(RECORDS, 1):
                data = ZP.encode(record)
                writer.write(data[:5])
                await writer.drain()
                await asyncio.sleep(0.001)
                writer.write(data[5:])
                assert await read_ack(reader) == number
            writer.write_eof()
            got = await protocols[0].done
            writer.close()
            await writer.wait_closed()
            return got

    assert run(main()) == RECORDS


# -- writing ---------------------------------------------------------------------------------

class HeldStream:
    """A stream writer whose drain() waits until released: a peer that reads slowly."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.released = asyncio.Event()
        self.drains = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    async def drain(self) -> None:
        self.drains += 1
        await self.released.wait()


def test_async_writer_batches_small_records_into_few_writes() -> None:
    async def main() -> HeldStream:
        stream = HeldStream()
        stream.released.set()
        async with ZP.async_writer(stream, buffer_size=1 << 16) as out:
            await out.write_all(RECORDS * 2000)
            assert out.records == 10_000
        return stream

    stream = run(main())
    assert b"".join(stream.writes) == STREAM * 2000
    assert all(len(write) >= 1 << 16 for write in stream.writes[:-1]) and len(stream.writes) <= 10
    assert stream.drains == len(stream.writes)


def test_async_writer_waits_on_drain_once_its_buffer_is_full() -> None:
    async def main() -> None:
        stream = HeldStream()
        out = ZP.async_writer(stream, buffer_size=200)
        await out.write(RECORDS[0])                     # buffered: nothing to wait for
        assert stream.writes == [] and out.buffered == len(ZP.encode(RECORDS[0]))
        blocked = asyncio.ensure_future(out.write_all(RECORDS * 10))
        await asyncio.sleep(0.05)
        assert not blocked.done() and len(stream.writes) == 1       # held by the peer's back-pressure
        stream.released.set()
        await blocked
        await out.flush()
        assert b"".join(stream.writes) == ZP.encode(RECORDS[0]) + STREAM * 10

    run(main())


def test_async_writer_leaves_the_stream_whole_when_a_record_is_refused() -> None:
    async def main() -> HeldStream:
        stream = HeldStream()
        stream.released.set()
        async with ZP.async_writer(stream) as out:
            await out.write(ZP.types.A(Name="ok"))
            with pytest.raises(EncodeError):
                await out.write(ZP.types.A(Sibs="not an int"))
            await out.write(ZP.types.A(Name="after"))
        return stream

    assert [r.Name for r in ZP.decode_all(b"".join(run(main()).writes))] == ["ok", "after"]


def test_async_writer_over_a_connection_with_its_schema_first() -> None:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async with ZP.async_writer(writer, write_schema=True, buffer_size=100) as out:
            for number, record in enumerate(RECORDS, 1):
                await out.write(record)
                await out.flush()                   # a record the peer must have now
                assert await read_ack(reader) == number

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> list[Any]:
        decoder = zebrapack.schema_stream_decoder()
        got: list[Any] = []
        while chunk := await reader.read(1 << 16):
            decoder.feed(chunk)
            for record in decoder:
                got.append(record)
                writer.write(len(got).to_bytes(4, "big"))
                await writer.drain()
        decoder.close()
        assert decoder.schema is not None and decoder.schema.model == ZP.model
        return got

    assert [r.Name for r in run(loopback(serve, client))] == [r.Name for r in RECORDS]


def test_async_writer_leaving_on_an_error_hands_over_what_it_buffered() -> None:
    async def main() -> HeldStream:
        stream = HeldStream()
        with pytest.raises(RuntimeError):
            async with ZP.async_writer(stream) as out:
                await out.write(RECORDS[0])
                raise RuntimeError("the handler failed")
        return stream

    stream = run(main())
    assert stream.writes == [ZP.encode(RECORDS[0])] and stream.drains == 0
