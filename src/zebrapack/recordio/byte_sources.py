"""Reading what a binary source has now: files, pipes and sockets, as their bytes arrive.

``read(n)`` on a buffered file waits for n bytes or the end, which holds back a
record that has arrived whole until more come after it (a pipe from a process
that writes one record and waits, a connection whose peer waits for an answer).
The stream readers take what is there instead, blocking only while nothing is:

- a buffered file (``open(path, "rb")``, ``sock.makefile("rb")``, ``sys.stdin.buffer``,
  ``io.BytesIO``, ``gzip.open``): ``readinto1``, at most one read of the device;
- a raw file (``buffering=0``, ``io.RawIOBase``): its ``read``, one system call;
- a ``socket.socket``: ``recv_into``;
- anything else: ``read1`` if it has one, else ``read(n)``, whose own rules apply.

A non-blocking source with no data now answers ``None`` (files) or raises
``BlockingIOError`` (sockets): both are a ``BlockingIOError`` here, never the end of
the stream, which a blocking reader could not tell apart and would silently cut short.
"""

from __future__ import annotations

import errno
import io
import socket
from collections.abc import Callable
from typing import Any, Protocol

Buffer = bytes | bytearray | memoryview


class BinaryReader(Protocol):
    """What the stream readers need of a file: ``read`` returning bytes (``readinto1``,
    ``read1`` or a socket's ``recv_into`` are used when it has them)."""

    def read(self, size: int = ..., /) -> bytes: ...


#: What the blocking stream readers (``iter_decode``, ``open_stream``) read besides bytes and paths.
ByteSource = BinaryReader | socket.socket


def available_reader(source: object, chunk_size: int) -> Callable[[int], Buffer]:
    """A function ``read_some(size)`` that returns the next bytes ``source`` has, up to
    ``size`` (at most ``chunk_size``), blocking only until some arrive, and empty bytes at
    its end. What it returns is valid until the next call (it may be a view of a buffer
    that call fills again)."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    if isinstance(source, io.TextIOBase):
        raise TypeError("records are read from a binary file, not a text one: open it with 'rb' "
                        "(standard input: sys.stdin.buffer)")
    if isinstance(source, socket.socket):
        return _filled(source.recv_into, chunk_size, source)
    readinto1 = getattr(source, "readinto1", None)
    if readinto1 is not None:
        return _filled(readinto1, chunk_size, source)
    read = getattr(source, "read1", None) or getattr(source, "read", None)
    if read is None:
        raise TypeError(f"cannot read records from {type(source).__name__}: give bytes, a path, a binary file "
                        "or a socket")

    def read_some(size: int) -> Buffer:
        data = read(size)
        if data is None:
            raise no_data_now(source)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{type(source).__name__}.read returned {type(data).__name__}, not bytes: "
                            "records are read from a binary file")
        return data
    return read_some


def _filled(readinto: Callable[[Any], int | None], chunk_size: int, source: object) -> Callable[[int], Buffer]:
    buffer = bytearray(chunk_size)
    view = memoryview(buffer)

    def read_some(size: int) -> Buffer:
        try:
            count = readinto(view[:size])
        except BlockingIOError as exc:      # a non-blocking socket's
            raise no_data_now(source) from exc
        if count is None:
            raise no_data_now(source)
        return view[:count]
    return read_some


def no_data_now(source: object) -> BlockingIOError:
    """The error of a non-blocking source that has no data at the moment."""
    return BlockingIOError(errno.EAGAIN, f"{type(source).__name__} has no data now (it is non-blocking): the "
                           "blocking readers cannot tell that from its end; read it with schema.aiter_decode "
                           "(asyncio) or feed a schema.stream_decoder() as its data arrives")
