"""Records over asyncio streams: ``schema.aiter_decode(reader)`` and ``schema.async_writer(writer)``.

Reading feeds the core's push decoder (``schema.stream_decoder``) with what each
``await reader.read(n)`` gives, which is whatever has arrived (an
``asyncio.StreamReader`` does not wait for n bytes): each record comes out as
soon as its last byte is there. Writing encodes records into one buffer and
hands it to the transport in one ``write`` per ``buffer_size`` bytes or per
``flush``, awaiting ``drain()`` each time, which is asyncio's back-pressure: a
peer that reads slowly makes the writer wait instead of filling memory.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Iterable
from typing import Any, Protocol

from .._core import DEFAULT_MAX_RECORD_SIZE
from .records import Schema


class AsyncReader(Protocol):
    """What ``aiter_decode`` reads: an ``asyncio.StreamReader``, or anything whose ``read(n)``
    is awaited for at most n bytes of what has arrived (``b""`` at the end)."""

    def read(self, n: int = ..., /) -> Awaitable[bytes]: ...


class AsyncWriter(Protocol):
    """What ``AsyncRecordWriter`` writes to: an ``asyncio.StreamWriter``, or anything with
    ``write(data)`` and an awaitable ``drain()``."""

    def write(self, data: bytes | bytearray | memoryview, /) -> Any: ...

    def drain(self) -> Awaitable[None]: ...


async def aiter_records(schema: Schema, reader: AsyncReader, type: Any = None, *, strict: bool = False,
                        chunk_size: int = 1 << 16,
                        max_record_size: int = DEFAULT_MAX_RECORD_SIZE) -> AsyncIterator[Any]:
    """The records of an asyncio stream, each as soon as its last byte has arrived; a
    ``TornTailError`` after the complete ones if the stream ends inside a record."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    read = getattr(reader, "read", None)
    if read is None:
        raise TypeError(f"aiter_decode reads an asyncio.StreamReader (an async read(n)), not {type_name(reader)}")
    decoder = schema.stream_decoder(type, strict=strict, max_record_size=max_record_size)
    while True:
        for record in decoder:
            yield record
        pending = read(chunk_size)
        if not inspect.isawaitable(pending):
            raise TypeError(f"{type_name(reader)}.read is not async: read a blocking file with iter_decode")
        chunk = await pending
        if chunk is None or not isinstance(chunk, (bytes, bytearray, memoryview)):
            raise TypeError(f"{type_name(reader)}.read gave {type_name(chunk)}, not bytes")
        if not chunk:
            decoder.close()     # TornTailError if the stream ended inside a record
            return
        decoder.feed(chunk)


def type_name(value: object) -> str:
    return type(value).__name__


class AsyncRecordWriter:
    """Writes records to an asyncio stream (``asyncio.StreamWriter``) with back-pressure.

    ``await write(obj)`` encodes a record into the writer's buffer; when the buffer
    holds ``buffer_size`` bytes it goes to the stream in one ``write`` and the writer
    awaits ``drain()`` (the transport's back-pressure: it waits while the peer is
    behind). ``await flush()`` sends what is buffered now, and awaits ``drain()``:
    call it when the peer should have the records (a request, the end of a burst).
    ``async with`` flushes at the end (leaving on an error, it hands the buffer to the
    stream without awaiting); the stream stays open (it is the caller's).
    ``write_schema=True`` first writes the schema document (read such a stream with
    ``zebrapack.open_stream`` or ``zebrapack.schema_stream_decoder``).
    """

    def __init__(self, schema: Schema, stream: AsyncWriter, *, structnames: bool = True, mode: str = "zebrapack",
                 write_schema: bool = False, buffer_size: int = 1 << 16) -> None:
        if buffer_size < 1:
            raise ValueError("buffer_size must be positive")
        self._schema = schema
        self._stream = stream
        self._structnames = structnames
        self._mode = mode
        self._buffer_size = buffer_size
        self._buffer = bytearray()
        self.records = 0
        if write_schema:
            self._buffer += schema.document

    @property
    def buffered(self) -> int:
        """Bytes encoded and not yet handed to the stream."""
        return len(self._buffer)

    async def write(self, obj: Any) -> None:
        """Encode one record (``EncodeError`` leaves the stream untouched); send the buffer
        once it holds ``buffer_size`` bytes."""
        self._schema.encode_into(obj, self._buffer, -1, structnames=self._structnames, mode=self._mode)
        self.records += 1
        if len(self._buffer) >= self._buffer_size:
            await self.flush()

    async def write_all(self, objs: Iterable[Any]) -> None:
        for obj in objs:
            await self.write(obj)

    async def flush(self) -> None:
        """Hand what is buffered to the stream in one ``write``, then await its ``drain()``."""
        if self._buffer:
            # The stream may keep the object it is given until the transport has sent
            # it: it gets this buffer, and the writer a new one.
            buffer, self._buffer = self._buffer, bytearray()
            self._stream.write(buffer)
        await self._stream.drain()

    async def __aenter__(self) -> AsyncRecordWriter:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, *exc_info: object) -> None:
        if exc_type is None:
            await self.flush()
            return
        # Leaving on an error (or a cancellation): what is buffered is handed over,
        # not awaited, and the error goes on.
        closing = getattr(self._stream, "is_closing", None)
        if self._buffer and not (closing is not None and closing()):
            buffer, self._buffer = self._buffer, bytearray()
            self._stream.write(buffer)
