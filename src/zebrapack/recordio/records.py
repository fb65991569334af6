"""Streams of records: reading them incrementally and writing them.

A stream is records concatenated (each is a self-delimiting msgpack map).
Optionally its first object is the schema itself, the ``.z`` document as one
msgpack map (``schema.writer(f, write_schema=True)``); ``self_describing``
reads such a stream back without a separate schema file.

Files, pipes and sockets are read through the push decoder of the core
(``schema.stream_decoder``), fed what the source has as it arrives
(``byte_sources.available_reader``): each record is given out as soon as its last
byte is there, whatever the size of the pieces.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, Any, Protocol

from .._core import DEFAULT_MAX_RECORD_SIZE, StreamDecoder, skip_records
from .._errors import DecodeError
from .byte_sources import Buffer, ByteSource, available_reader
from .index_format import DEFAULT_EVERY, DEFAULT_EVERY_BYTES, IndexRecorder, default_index_path, write_index
from .locations import ObjectOutput, identity, local_path
from .reading import File, being_read, descriptor
from .tears import ends_inside_record, torn_tail_error


class Schema(Protocol):
    """What a stream needs of a ``zebrapack.Schema`` (declared here so that the
    schema layer depends on ``recordio`` and not the reverse)."""

    @property
    def document(self) -> bytes: ...

    @property
    def max_depth(self) -> int: ...

    def _decode_at(self, data: bytes | bytearray | memoryview, start: int, type: Any = None,
                   strict: bool = False, base: int = 0, stop: int = -1,
                   partial: bool = False) -> tuple[Any, int]: ...

    def stream_decoder(self, type: Any = None, *, strict: bool = False, max_record_size: int = ...,
                       offset: int = 0) -> StreamDecoder[Any]: ...

    def encode_into(self, obj: Any, buffer: bytearray, offset: int = 0, *, structnames: bool = True,
                    mode: str = "zebrapack", fixext: bool = False) -> None: ...


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
    once every complete record before it has been given out (a tear is told from
    corruption by the record's structure, see ``tears``). ``prefix``: bytes already
    read from the file; ``base``: the stream offset where the bytes (of ``source``,
    or ``prefix`` first) start.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = memoryview(source).cast("B") if not isinstance(source, bytes) else source
        size = len(data)
        position = base
        while position < size:
            try:
                record, position = schema._decode_at(data, position, type, strict)
            except DecodeError as exc:
                _raise_if_torn(exc, data, position, 0, schema.max_depth)
                raise
            yield record
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


def _raise_if_torn(error: DecodeError, data: bytes | bytearray | memoryview, start: int, base: int,
                   max_depth: int) -> None:
    """Raise ``TornTailError`` (from ``error``) when ``data`` ends inside the record at
    ``start`` (at stream offset ``base + start``); else ``error`` is corruption: return."""
    if ends_inside_record(data, start, max_depth):
        raise torn_tail_error(base + start, len(data) - start) from error


class RecordWriter:
    """Appends encoded records to a binary file, buffering up to ``buffer_size`` bytes.

    ``fileobj``: a binary file, or a path (the file is created, or truncated, and
    closed by ``close()``), or a URL (``s3://bucket/key``: see below; fsspec opens it
    with ``storage_options``). ``write_schema=True`` first writes the schema document,
    making the stream self-describing (read it back with ``zebrapack.open_stream``).
    Use as a context manager, or call ``close()`` (which flushes; a file given open
    stays open). ``structnames``, ``mode``, ``fixext``: as ``schema.encode``.

    ``index``: also write the file's sidecar index (see ``zebrapack.build_index``)
    when the writer is closed, to this path, or with ``True`` to the file's name
    plus ``.zpi``; an entry every ``index_every`` records or ``index_every_bytes``
    bytes. The writer must start at the beginning of the file.

    Nothing is reported written that the file did not take: ``records`` and
    ``bytes_written`` count the records (whole) and bytes that reached the file,
    that is, that its ``write`` took and its ``flush`` passed on. A short write is
    written on; a write that fails (a full disk) raises, and the writer is then
    failed: ``records`` says how many records the file holds whole, further writes
    raise, and no index is written. A path that a reader of this process is reading
    (``iter_decode``, ``open_stream``, ``iter_split``, ``zebrapack.arrow.read``: the
    same file by any path) is refused with a ``ValueError`` before it is truncated;
    a path is truncated only when the first bytes are written (or at ``close``).

    A URL is written as a whole object, atomically: it appears (replacing any object of
    that name) when ``close()`` returns, complete, and its index after it. Until then
    ``records`` and ``bytes_written`` count what the upload took; an upload that fails,
    or a ``with`` block left by an exception, abandons the object (none appears, an old
    one stays as it was), and both counts are then 0: the store holds nothing of it.
    """

    def __init__(self, schema: Schema, fileobj: IO[bytes] | str | os.PathLike[str], *, structnames: bool = True,
                 mode: str = "zebrapack", fixext: bool = False, write_schema: bool = False,
                 buffer_size: int = 1 << 16,
                 index: str | os.PathLike[str] | bool | None = None, index_every: int = DEFAULT_EVERY,
                 index_every_bytes: int = DEFAULT_EVERY_BYTES,
                 storage_options: Mapping[str, Any] | None = None) -> None:
        self._schema = schema
        self._structnames = structnames
        self._mode = mode
        self._fixext = fixext
        self._buffer_size = buffer_size
        self._buffer = bytearray()
        self._buffered = 0          # records in _buffer
        self._head = 0              # bytes of the schema document not written yet
        self.records = 0            # records whose every byte reached the file
        self.bytes_written = 0      # bytes that reached the file
        self._failure: BaseException | None = None
        if write_schema:
            self._buffer += schema.document
            self._head = len(self._buffer)
        # Index options are checked before a path is opened: a refused one creates no file.
        self._index_path = _index_path(fileobj, index)
        self._storage_options = storage_options
        self._object: ObjectOutput | None = None      # a URL's upload
        self._index = None if self._index_path is None else IndexRecorder(len(self._buffer), index_every,
                                                                          index_every_bytes)
        self._owned = isinstance(fileobj, (str, os.PathLike))
        self._started = not self._owned     # an owned file is truncated when the first bytes go
        self._name = os.fspath(fileobj) if isinstance(fileobj, (str, os.PathLike)) else \
            str(getattr(fileobj, "name", "the file"))
        if isinstance(fileobj, (str, os.PathLike)) and local_path(fileobj) is None:
            _refuse_if_being_read(identity(fileobj, storage_options), self._name)
            self._object = ObjectOutput(self._name, storage_options)
            self._file: IO[bytes] = self._object      # type: ignore[assignment]
        elif isinstance(fileobj, (str, os.PathLike)):
            path = local_path(fileobj) or ""
            _refuse_if_being_read(path, self._name)
            self._file = _open_untruncated(path)
        else:
            _refuse_if_being_read(descriptor(fileobj), self._name)
            self._file = fileobj
        self._raw = isinstance(self._file, io.RawIOBase)

    @property
    def started(self) -> bool:
        """Whether the file's bytes are the writer's: a path is created or truncated when
        the first bytes are written (a file given open: from the start)."""
        return self._started

    def write(self, obj: Any) -> None:
        """Encode and buffer one record (EncodeError leaves the stream untouched)."""
        if self._failure is not None:
            self._refuse()
        self._schema.encode_into(obj, self._buffer, -1, structnames=self._structnames, mode=self._mode,
                                 fixext=self._fixext)
        self._buffered += 1
        if self._index is not None:
            self._index.record_end(self.bytes_written + len(self._buffer))
        if len(self._buffer) >= self._buffer_size:
            self.flush()

    def write_encoded(self, data: bytes | bytearray | memoryview, records: int,
                      ends: Iterable[int] | None = None) -> None:
        """Append ``records`` records encoded elsewhere (``zebrapack.arrow.write``); ``ends``:
        where each ends in ``data``, needed when the writer keeps an index."""
        if self._failure is not None:
            self._refuse()
        start = self.bytes_written + len(self._buffer)
        if self._index is not None:
            if ends is None:
                raise ValueError("an indexed writer needs the end of every record")
            for end in ends:
                self._index.record_end(start + end)
        if self._buffer or len(data) < self._buffer_size:
            self._buffer += data
            self._buffered += records
            if len(self._buffer) >= self._buffer_size:
                self.flush()
            return
        self._put(data, records)        # a whole chunk: to the file without a copy

    def write_all(self, objs: Iterable[Any]) -> None:
        for obj in objs:
            self.write(obj)

    def flush(self) -> None:
        """Write the buffered records to the file and flush it (``records`` then counts them)."""
        if self._failure is not None:
            self._refuse()
        if self._buffer:
            self._put(self._buffer, self._buffered)
            self._buffer.clear()
            self._buffered = 0
        else:
            self._flush_file()

    def close(self) -> None:
        """Flush, write the index if one was asked for, and close a file opened from a path.
        A failed writer writes nothing more (its failure was raised)."""
        try:
            if self._failure is None:
                self.flush()
                if not self._started:       # nothing written: the path is truncated all the same
                    self._start()
                if self._object is not None:
                    self._commit()
                if self._index is not None and self._index_path is not None:
                    write_index(self._index.finish(), self._index_path, self._storage_options)
                    self._index = None
        finally:
            if self._object is not None:
                self._abandon(None)         # nothing once committed
            elif self._owned:
                self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: object) -> None:
        if exc is not None and self._object is not None:
            self.abort(exc)         # a URL's object appears whole or not at all
            return
        self.close()

    def abort(self, error: BaseException | None = None) -> None:
        """Stop writing without finishing the file: a URL's object is abandoned (none
        appears; ``records`` and ``bytes_written`` are 0), no index is written, and a file
        opened from a path is closed holding what reached it. The writer is failed."""
        if self._object is not None:
            self._abandon(error)
            return
        if self._failure is None:
            self._failure = error if error is not None else ValueError("the writer was aborted")
        self._index = None
        if self._owned:
            self._file.close()

    # -- what reaches the file -------------------------------------------------------

    def _start(self) -> None:
        """Truncate a file opened from a path: at the first bytes written, once no reader of
        this process reads it (a reader started after the writer was made counts too)."""
        if self._object is not None:
            _refuse_if_being_read(identity(self._name, self._storage_options), self._name)
            self._started = True
            return
        _refuse_if_being_read(self._file.fileno(), self._name)
        if stat.S_ISREG(os.fstat(self._file.fileno()).st_mode):
            self._file.truncate(0)
        self._started = True

    def _put(self, data: bytes | bytearray | memoryview, records: int) -> None:
        """Write ``data`` (``records`` records, after the schema document's bytes not yet
        written) to the file whole, then flush the file; any failure fails the writer."""
        written = 0
        try:
            if not self._started:
                self._start()
            with memoryview(data) as view:
                while written < len(view):
                    count = self._file.write(data if not written else view[written:])
                    if count is None and not self._raw:
                        count = len(view) - written     # a file object that does not count took it all
                    if count is None:
                        raise BlockingIOError(errno.EAGAIN, "the file took no bytes (a non-blocking file)", 0)
                    if not 0 < count <= len(view) - written:
                        raise OSError(errno.EIO, f"the file's write() took {count} of {len(view) - written} bytes")
                    written += count
            if not self._raw:
                written = 0         # a buffered file holds them: they reach it when its flush succeeds
            self._flush_file()
        except BaseException as exc:
            if isinstance(exc, BlockingIOError) and not self._raw:
                written += exc.characters_written      # bytes a buffered file took before it raised
            if self._object is not None:
                self._abandon(exc)
            else:
                self._fail(data, min(written, len(data)), exc)
            raise
        written = len(data)
        self._reached(data, written, records)

    def _flush_file(self) -> None:
        flush = getattr(self._file, "flush", None)
        if flush is not None:
            flush()

    def _reached(self, data: bytes | bytearray | memoryview, size: int, records: int) -> None:
        if self._index is not None:
            self._index.data(memoryview(data)[:size])
        self._head = max(0, self._head - size)
        self.bytes_written += size
        self.records += records

    def _fail(self, data: bytes | bytearray | memoryview, size: int, error: BaseException) -> None:
        """The file took the first ``size`` bytes of ``data`` and then failed: count the
        records it holds whole, and write nothing more (no index for a torn file)."""
        self._failure = error
        self._index = None
        head = min(self._head, size)
        records = 0
        if size > head:
            with memoryview(data) as view:
                records = skip_records(view[:size], head, size, size, self._schema.max_depth, True)[1]
        self._reached(data, size, records)

    def _commit(self) -> None:
        """A URL's object appears, whole; a failed upload leaves none (the writer fails)."""
        assert self._object is not None
        try:
            self._object.commit()
        except BaseException as exc:
            self._abandon(exc)
            raise

    def _abandon(self, error: BaseException | None) -> None:
        """Give up a URL's upload (nothing once committed): no object appears, so the
        writer holds no records; ``error`` (when there is one) fails it."""
        assert self._object is not None
        if self._object.closed:
            return
        self._object.discard()
        self.records = self.bytes_written = 0
        self._index = None
        self._failure = error if error is not None else ValueError("the upload was abandoned")

    def _refuse(self) -> None:
        raise ValueError(f"the writer failed ({type(self._failure).__name__}: {self._failure}); "
                         f"the file holds its first {self.records} records whole") from self._failure


def _open_untruncated(path: str | os.PathLike[str]) -> IO[bytes]:
    """The file at ``path`` for writing, created if need be but not truncated yet, unbuffered
    (the writer buffers; every write's count is the file's own)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o666)
    return open(descriptor, "wb", buffering=0)


def _refuse_if_being_read(file: File | None, name: str) -> None:
    if file is not None and being_read(file):
        raise ValueError(f"{name}: a reader of this process is reading this file: writing it would truncate it "
                         "first (write to another file, then rename it over this one)")


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
