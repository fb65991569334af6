"""Streams that carry their schema as their first object (``open_stream``).

``schema.writer(f, write_schema=True)`` writes the schema document (the
``.z`` map) first; ``open_stream`` reads it, loads it, and iterates the
records after it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any

import msgpack

from .._errors import DecodeError
from ..schema.loader import Schema, load
from .records import BinaryReader, iter_records


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
        if not isinstance(document, Mapping):
            # never handed to load() as anything else: a str would be opened as a path
            raise DecodeError(f"the stream does not start with a schema (a map): found {type(document).__name__}",
                              "$", 0)
        schema_end = unpacker.tell()
        return document, schema_end, bytes(fed[schema_end:])
