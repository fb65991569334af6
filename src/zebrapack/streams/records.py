"""Streams of records: reading them incrementally and writing them.

A stream is records concatenated (each is a self-delimiting msgpack map).
Optionally its first object is the schema itself, the ``.z`` document as one
msgpack map (``schema.writer(f, write_schema=True)``); ``self_describing``
reads such a stream back without a separate schema file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import IO, Any, Protocol

import msgpack

from .._errors import DecodeError
from ..schema.document import schema_document
from ..schema.model import SchemaDef
from .index_format import DEFAULT_EVERY, DEFAULT_EVERY_BYTES, IndexRecorder, default_index_path, write_index


class Schema(Protocol):
    """What a stream needs of a ``zebrapack.Schema`` (declared here so that the
    loader depends on streams and not the reverse)."""

    @property
    def model(self) -> SchemaDef: ...

    def _decode_at(self, data: bytes | bytearray | memoryview, start: int, type: Any = None,
                   strict: bool = False, base: int = 0, stop: int = -1,
                   partial: bool = False) -> tuple[Any, int]: ...

    def encode_into(self, obj: Any, buffer: bytearray, offset: int = 0, *, structnames: bool = True,
                    mode: str = "zebrapack", fixext: bool = False) -> None: ...


class BinaryReader(Protocol):
    """What iter_decode and open_stream need of a file: ``read`` returning bytes."""

    def read(self, size: int = ..., /) -> bytes: ...


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
    if isinstance(source, (bytes, bytearray, memoryview)):
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

    ``fileobj``: a binary file, or a path (the file is created, or truncated, and
    closed by ``close()``). ``write_schema=True`` first writes the schema document,
    making the stream self-describing (read it back with ``zebrapack.open_stream``).
    Use as a context manager, or call ``close()`` (which flushes; a file given open
    stays open). ``structnames``, ``mode``, ``fixext``: as ``schema.encode``.

    ``index``: also write the file's sidecar index (see ``zebrapack.build_index``)
    when the writer is closed, to this path, or with ``True`` to the file's name
    plus ``.zpi``; an entry every ``index_every`` records or ``index_every_bytes``
    bytes. The writer must start at the beginning of the file.
    """

    def __init__(self, schema: Schema, fileobj: IO[bytes] | str | os.PathLike[str], *, structnames: bool = True,
                 mode: str = "zebrapack", fixext: bool = False, write_schema: bool = False,
                 buffer_size: int = 1 << 16,
                 index: str | os.PathLike[str] | bool | None = None, index_every: int = DEFAULT_EVERY,
                 index_every_bytes: int = DEFAULT_EVERY_BYTES) -> None:
        self._schema = schema
        self._structnames = structnames
        self._mode = mode
        self._fixext = fixext
        self._buffer_size = buffer_size
        self._buffer = bytearray()
        self._written = 0           # bytes passed to the file
        self.records = 0
        if write_schema:
            self._buffer += msgpack.packb(schema_document(schema.model), use_bin_type=True)
        # Index options are checked before a path is opened: a refused one creates no file.
        self._index_path = _index_path(fileobj, index)
        self._index = None if self._index_path is None else IndexRecorder(len(self._buffer), index_every,
                                                                          index_every_bytes)
        self._owned = isinstance(fileobj, (str, os.PathLike))
        self._file: IO[bytes] = open(fileobj, "wb") if isinstance(fileobj, (str, os.PathLike)) else fileobj

    def write(self, obj: Any) -> None:
        """Encode and buffer one record (EncodeError leaves the stream untouched)."""
        self._schema.encode_into(obj, self._buffer, -1, structnames=self._structnames, mode=self._mode,
                                 fixext=self._fixext)
        self.records += 1
        if self._index is not None:
            self._index.record_end(self._written + len(self._buffer))
        if len(self._buffer) >= self._buffer_size:
            self.flush()

    def write_encoded(self, data: bytes, records: int, ends: Iterable[int] | None = None) -> None:
        """Append ``records`` records encoded elsewhere (``zebrapack.arrow.write``); ``ends``:
        where each ends in ``data``, needed when the writer keeps an index."""
        start = self._written + len(self._buffer)
        if self._index is not None:
            if ends is None:
                raise ValueError("an indexed writer needs the end of every record")
            for end in ends:
                self._index.record_end(start + end)
        self.records += records
        if self._buffer or len(data) < self._buffer_size:
            self._buffer += data
            if len(self._buffer) >= self._buffer_size:
                self.flush()
            return
        if self._index is not None:         # a whole chunk: to the file without a copy
            self._index.data(data)
        self._file.write(data)
        self._written += len(data)

    def write_all(self, objs: Iterable[Any]) -> None:
        for obj in objs:
            self.write(obj)

    def flush(self) -> None:
        if self._buffer:
            if self._index is not None:
                self._index.data(self._buffer)
            self._file.write(self._buffer)
            self._written += len(self._buffer)
            self._buffer.clear()
        flush = getattr(self._file, "flush", None)
        if flush is not None:
            flush()

    def close(self) -> None:
        """Flush, write the index if one was asked for, and close a file opened from a path."""
        try:
            self.flush()
            if self._index is not None and self._index_path is not None:
                write_index(self._index.finish(), self._index_path)
                self._index = None
        finally:
            if self._owned:
                self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _index_path(fileobj: IO[bytes] | str | os.PathLike[str], index: str | os.PathLike[str] | bool | None) -> str | None:
    """Where ``RecordWriter(index=...)`` writes the index, checking that it can."""
    if index is None or index is False:
        return None
    if isinstance(fileobj, (str, os.PathLike)):       # a file the writer creates
        return default_index_path(fileobj) if index is True else os.fspath(index)
    try:
        position = fileobj.tell()
    except (AttributeError, OSError):
        position = 0            # a pipe: its reader sees the bytes from the first one written
    if position:
        raise ValueError(f"an index covers a whole file: the writer starts at byte {position}, not 0")
    if index is True:
        name = getattr(fileobj, "name", None)
        if not isinstance(name, (str, os.PathLike)):
            raise ValueError("index=True needs a file with a path name; give the index path instead")
        return default_index_path(name)
    return os.fspath(index)
