"""Streams of records: reading them incrementally and writing them.

A stream is records concatenated (each is a self-delimiting msgpack map).
Optionally its first object is the schema itself, the ``.z`` document as one
msgpack map (``schema.writer(f, write_schema=True)``); ``self_describing``
reads such a stream back without a separate schema file.

Files, pipes and sockets are read through the push decoder of the core
(``schema.stream_decoder``), fed what the source has as it arrives
(``sources.available_reader``): each record is given out as soon as its last
byte is there, whatever the size of the pieces.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, Protocol

import msgpack

from .._core import DEFAULT_MAX_RECORD_SIZE, StreamDecoder
from .._errors import TornTailError
from ..schema.document import schema_document
from ..schema.model import SchemaDef
from .index_format import DEFAULT_EVERY, DEFAULT_EVERY_BYTES, IndexRecorder, default_index_path, write_index
from .sources import Buffer, ByteSource, available_reader


class Schema(Protocol):
    """What a stream needs of a ``zebrapack.Schema`` (declared here so that the
    loader depends on streams and not the reverse)."""

    @property
    def model(self) -> SchemaDef: ...

    def _decode_at(self, data: bytes | bytearray | memoryview, start: int, type: Any = None,
                   strict: bool = False, base: int = 0, stop: int = -1,
                   partial: bool = False) -> tuple[Any, int]: ...

    def stream_decoder(self, type: Any = None, *, strict: bool = False, max_record_size: int = ...,
                       offset: int = 0) -> StreamDecoder[Any]: ...

    def encode_into(self, obj: Any, buffer: bytearray, offset: int = 0, *, structnames: bool = True,
                    mode: str = "zebrapack") -> None: ...


def iter_records(
    schema: Schema,
    source: bytes | bytearray | memoryview | ByteSource,
    type: Any = None,
    *,
    strict: bool = False,
    chunk_size: int = 1 << 16,
    max_record_size: int = DEFAULT_MAX_RECORD_SIZE,
    prefix: bytes | bytearray | memoryview = b"",
    base: int = 0,
) -> Iterator[Any]:
    """The records of a bytes-like stream, or of a binary file, pipe or socket read as
    its bytes arrive.

    A record is given out as soon as its last byte has been read (reads take what
    the source has, up to ``chunk_size``: see ``sources``). For a file, memory holds
    one record plus a chunk; a record that needs more than ``max_record_size`` bytes
    is a ``DecodeError``. Input that ends inside a record is a ``TornTailError``
    once every complete record before it has been given out. ``prefix``: bytes
    already read from the file; ``base``: the stream offset where the bytes (of
    ``source``, or ``prefix`` first) start.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        yield from _buffer_records(schema, source, type, strict, base)
        return
    read = available_reader(source, chunk_size)
    decoder = schema.stream_decoder(type, strict=strict, max_record_size=max_record_size, offset=base)
    decoder.feed(prefix)
    yield from pulled_records(decoder, read, chunk_size)


class PushDecoder(Protocol):
    """``StreamDecoder`` or ``SchemaStreamDecoder``: fed bytes, iterated for records, closed."""

    def feed(self, data: Buffer, /) -> None: ...

    def close(self) -> None: ...

    def __iter__(self) -> Iterator[Any]: ...


def pulled_records(decoder: PushDecoder, read: Callable[[int], Buffer], chunk_size: int) -> Iterator[Any]:
    """The records of ``decoder``, fed what ``read`` gives as it arrives, to the end."""
    while True:
        for record in decoder:     # not yield from: closing the generator would close the decoder
            yield record
        chunk = read(chunk_size)
        if not chunk:
            decoder.close()     # TornTailError if the input ended inside a record
            return
        decoder.feed(chunk)


def _buffer_records(schema: Schema, source: bytes | bytearray | memoryview, type: Any, strict: bool,
                    position: int) -> Iterator[Any]:
    """The records of a buffer (not copied), from ``position``."""
    data = memoryview(source).cast("B") if not isinstance(source, bytes) else source
    while position < len(data):
        record, end = schema._decode_at(data, position, type, strict, 0, -1, True)
        if end < 0:
            # The buffer ends inside this record: its error as a stream read in pieces gives it.
            tail = schema.stream_decoder(type, strict=strict, max_record_size=_UNLIMITED, offset=position)
            tail.feed(data[position:])
            tail.close()
            raise TornTailError("the input ends inside a record", "$", position)    # (close raised it)
        yield record
        position = end


_UNLIMITED = 1 << 62


class RecordWriter:
    """Appends encoded records to a binary file, buffering up to ``buffer_size`` bytes.

    ``fileobj``: a binary file, or a path (the file is created, or truncated, and
    closed by ``close()``). ``write_schema=True`` first writes the schema document,
    making the stream self-describing (read it back with ``zebrapack.open_stream``).
    Use as a context manager, or call ``close()`` (which flushes; a file given open
    stays open).

    ``index``: also write the file's sidecar index (see ``zebrapack.build_index``)
    when the writer is closed, to this path, or with ``True`` to the file's name
    plus ``.zpi``; an entry every ``index_every`` records or ``index_every_bytes``
    bytes. The writer must start at the beginning of the file.
    """

    def __init__(self, schema: Schema, fileobj: IO[bytes] | str | os.PathLike[str], *, structnames: bool = True,
                 mode: str = "zebrapack", write_schema: bool = False, buffer_size: int = 1 << 16,
                 index: str | os.PathLike[str] | bool | None = None, index_every: int = DEFAULT_EVERY,
                 index_every_bytes: int = DEFAULT_EVERY_BYTES) -> None:
        self._schema = schema
        self._structnames = structnames
        self._mode = mode
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
        self._schema.encode_into(obj, self._buffer, -1, structnames=self._structnames, mode=self._mode)
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
