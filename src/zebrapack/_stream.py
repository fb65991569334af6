"""Streams of records: reading them incrementally, writing them, and streams
that carry their schema as their first object.

A stream is records concatenated (each is a self-delimiting msgpack map).
Optionally its first object is the schema itself, the ``.z`` document as one
msgpack map (``schema.writer(f, write_schema=True)``); ``open_stream`` reads
such a stream back without a separate schema file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, Protocol

import msgpack

from ._document import schema_document
from ._errors import DecodeError

if TYPE_CHECKING:
    from ._schema import Schema


class BinaryReader(Protocol):
    """What iter_decode and open_stream need of a file: ``read`` returning bytes."""

    def read(self, size: int = ..., /) -> bytes: ...


def _is_buffer(source: object) -> bool:
    return isinstance(source, (bytes, bytearray, memoryview))


def iter_records(
    schema: Schema,
    source: bytes | bytearray | memoryview | BinaryReader,
    type: Any = None,
    *,
    strict: bool = False,
    chunk_size: int = 1 << 16,
    max_record_size: int = 1 << 28,
    prefix: bytes = b"",
    base: int = 0,
) -> Iterator[Any]:
    """The records of a bytes-like stream or of a binary file read chunk by chunk.

    For files, memory holds one record plus a chunk; a record that would need
    more than ``max_record_size`` bytes is a ``DecodeError``. ``prefix``: bytes
    already read from the file; ``base``: the file offset ``prefix`` starts at.
    """
    if _is_buffer(source):
        data = memoryview(source).cast("B") if not isinstance(source, bytes) else source
        size = len(data)
        position = base
        while position < size:
            record, position = schema._decode_at(data, position, type, strict)
            yield record
        return
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    buffer = bytearray(prefix)
    offset = base        # the stream offset of buffer[0]
    position = 0
    at_end = False
    while True:
        if position < len(buffer):
            record, end = schema._decode_at(buffer, position, type, strict, offset, -1, not at_end)
            if end >= 0:
                yield record
                position = end
                continue
            if len(buffer) - position > max_record_size:
                raise DecodeError(f"record larger than max_record_size={max_record_size}", "$", offset + position)
        elif at_end:
            return
        if position:
            del buffer[:position]
            offset += position
            position = 0
        chunk = source.read(max(chunk_size, len(buffer)))
        if not chunk:
            at_end = True
        else:
            buffer += chunk


class RecordWriter:
    """Appends encoded records to a binary file, buffering up to ``buffer_size`` bytes.

    ``write_schema=True`` first writes the schema document, making the stream
    self-describing (read it back with ``zebrapack.open_stream``). Use as a
    context manager, or call ``close()`` (which flushes; the file stays open).
    """

    def __init__(self, schema: Schema, fileobj: IO[bytes], *, structnames: bool = True,
                 mode: str = "zebrapack", write_schema: bool = False, buffer_size: int = 1 << 16) -> None:
        self._schema = schema
        self._file = fileobj
        self._structnames = structnames
        self._mode = mode
        self._buffer_size = buffer_size
        self._buffer = bytearray()
        self.records = 0
        if write_schema:
            self._buffer += msgpack.packb(schema_document(schema.model), use_bin_type=True)

    def write(self, obj: Any) -> None:
        """Encode and buffer one record (EncodeError leaves the stream untouched)."""
        self._schema.encode_into(obj, self._buffer, -1, structnames=self._structnames, mode=self._mode)
        self.records += 1
        if len(self._buffer) >= self._buffer_size:
            self.flush()

    def write_all(self, objs: Iterable[Any]) -> None:
        for obj in objs:
            self.write(obj)

    def flush(self) -> None:
        if self._buffer:
            self._file.write(self._buffer)
            self._buffer.clear()
        flush = getattr(self._file, "flush", None)
        if flush is not None:
            flush()

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class SchemaStream:
    """A stream whose first object is its schema: ``.schema``, then iterate the records."""

    def __init__(self, schema: Schema, records: Iterator[Any], closer: IO[bytes] | None) -> None:
        self.schema = schema
        self._records = records
        self._closer = closer

    def __iter__(self) -> Iterator[Any]:
        return self._records

    def close(self) -> None:
        if self._closer is not None:
            self._closer.close()

    def __enter__(self) -> SchemaStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


#: Largest schema document ``open_stream`` reads before the records (real ones are kilobytes).
MAX_SCHEMA_SIZE = 16 << 20


def open_stream(source: str | os.PathLike[str] | bytes | bytearray | memoryview | BinaryReader, *,
                strict: bool = False, chunk_size: int = 1 << 16, **load_options: Any) -> SchemaStream:
    """Open a stream written with ``write_schema=True``: its first object is the schema.

    ``source``: a path, a binary file, or bytes. ``load_options`` go to ``zebrapack.load``.
    The schema document may take ``MAX_SCHEMA_SIZE`` bytes at most.
    """
    from ._schema import load

    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    closer = None
    if isinstance(source, (str, os.PathLike)):
        source = closer = open(source, "rb")
    if isinstance(source, (bytes, bytearray, memoryview)):
        view = memoryview(source).cast("B")
        document, schema_end, _ = _read_schema_document(_BufferReader(view).read, chunk_size)
        schema = load(document, **load_options)
        return SchemaStream(schema, iter_records(schema, source, strict=strict, base=schema_end), closer)
    document, schema_end, rest = _read_schema_document(source.read, chunk_size)
    schema = load(document, **load_options)
    records = iter_records(schema, source, strict=strict, chunk_size=chunk_size, prefix=rest, base=schema_end)
    return SchemaStream(schema, records, closer)


class _BufferReader:
    """``read(n)`` over a buffer, for reading a schema document from bytes as from a file."""

    def __init__(self, view: memoryview) -> None:
        self._view = view
        self._position = 0

    def read(self, size: int) -> bytes:
        chunk = bytes(self._view[self._position:self._position + size])
        self._position += len(chunk)
        return chunk


def _read_schema_document(read: Callable[[int], bytes], chunk_size: int) -> tuple[Any, int, bytes]:
    """The schema document that starts a stream, its size, and the bytes read past it."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=MAX_SCHEMA_SIZE)
    fed = bytearray()
    while True:
        try:
            document = unpacker.unpack()
        except msgpack.OutOfData:
            room = MAX_SCHEMA_SIZE - len(fed)
            if room <= 0:
                raise DecodeError(f"schema document larger than MAX_SCHEMA_SIZE={MAX_SCHEMA_SIZE} bytes",
                                  "$", 0) from None
            chunk = read(min(chunk_size, room))
            if not chunk:
                raise DecodeError("stream ends before its schema", "$", len(fed)) from None
            fed += chunk
            unpacker.feed(chunk)
            continue
        except (ValueError, TypeError) as exc:      # malformed msgpack; an unhashable map key
            raise DecodeError(f"the stream does not start with a schema: {exc}", "$", 0) from exc
        schema_end = unpacker.tell()
        return document, schema_end, bytes(fed[schema_end:])
