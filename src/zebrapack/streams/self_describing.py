"""Streams that carry their schema as their first object (``open_stream``,
``schema_stream_decoder``).

``schema.writer(f, write_schema=True)`` writes the schema document (the
``.z`` map) first; ``open_stream`` reads it, loads it, and iterates the
records after it; ``schema_stream_decoder`` does the same with bytes pushed to
it as they arrive (a connection, a message bus).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, Generic, TypeVar, overload

import msgpack

from .._core import DEFAULT_MAX_RECORD_SIZE, StreamDecoder
from .._errors import DecodeError, SchemaError, TornTailError
from ..evolution.compat import check_compatible
from ..recordio.byte_sources import ByteSource, available_reader
from ..recordio.locations import StorageOptions, open_input
from ..recordio.records import iter_records, pulled_records
from ..schema.loader import Schema, load


#: The class of the records: the one given as ``open_stream(..., type=C)``, else ``Any``
#: (also for a bare ``SchemaStream`` annotation: a PEP 696 default, seen by type checkers).
if TYPE_CHECKING:
    from typing_extensions import TypeVar as DefaultedTypeVar
    R = DefaultedTypeVar("R", covariant=True, default=Any)
else:
    R = TypeVar("R", covariant=True)
T = TypeVar("T")


class SchemaStream(Generic[R]):
    """A stream whose first object is its schema: ``.schema``, then iterate the records."""

    def __init__(self, schema: Schema[Any], records: Iterator[R], closer: IO[bytes] | None) -> None:
        self.schema = schema
        self._records = records
        self._closer = closer

    def __iter__(self) -> Iterator[R]:
        return self._records

    def close(self) -> None:
        if self._closer is not None:
            self._closer.close()

    def __enter__(self) -> SchemaStream[R]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


#: Largest schema document ``open_stream`` reads before the records (real ones are kilobytes).
MAX_SCHEMA_SIZE = 16 << 20


StreamSource = str | os.PathLike[str] | bytes | bytearray | memoryview | ByteSource


@overload
def open_stream(source: StreamSource, *, type: type[T], strict: bool = False, chunk_size: int = 1 << 16,
                max_record_size: int = DEFAULT_MAX_RECORD_SIZE, storage_options: StorageOptions = None,
                **load_options: Any) -> SchemaStream[T]: ...
@overload
def open_stream(source: StreamSource, *, type: str | None = None, strict: bool = False,
                chunk_size: int = 1 << 16, max_record_size: int = DEFAULT_MAX_RECORD_SIZE,
                schema: Schema[Any] | None = None, storage_options: StorageOptions = None,
                **load_options: Any) -> SchemaStream[Any]: ...
@overload
def open_stream(source: StreamSource, *, type: str | type | None, strict: bool = False,
                chunk_size: int = 1 << 16, max_record_size: int = DEFAULT_MAX_RECORD_SIZE,
                schema: Schema[Any] | None = None, storage_options: StorageOptions = None,
                **load_options: Any) -> SchemaStream[Any]: ...


def open_stream(source: StreamSource, *, type: str | type | None = None, strict: bool = False,
                chunk_size: int = 1 << 16, max_record_size: int = DEFAULT_MAX_RECORD_SIZE,
                schema: Schema[Any] | None = None, storage_options: StorageOptions = None,
                **load_options: Any) -> SchemaStream[Any]:
    """Open a stream written with ``write_schema=True``: its first object is the schema.

    ``source``: a path, a URL (``s3://bucket/key``, through fsspec with
    ``storage_options``), a binary file, pipe or socket (read as its bytes arrive, as
    ``iter_decode`` reads them), or bytes. ``type``: the struct of every record (a
    name, or a class given in ``types=``), needed when records carry no struct name.
    ``load_options`` go to ``zebrapack.load`` (``types=``, ``preserve_unknown=``, ...).
    The schema document may take ``MAX_SCHEMA_SIZE`` bytes at most. This returns once
    the schema has arrived.

    ``schema``: read the records with this schema instead of the one the stream
    carries, which must be an earlier or later version of it (``check_compatible``
    passes one way or the other; otherwise ``SchemaError``). ``stream.schema`` is
    then ``schema``.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    if schema is not None and load_options:
        raise TypeError(f"load options ({', '.join(load_options)}) apply to the stream's schema, not to schema=")
    if isinstance(source, (bytes, bytearray, memoryview)):
        reader = SchemaDocumentReader()
        if reader.feed(memoryview(source).cast("B")) is None:
            reader.end()
        records_schema = _records_schema(reader.document, schema, load_options)
        return SchemaStream(records_schema, iter_records(records_schema, source, type, strict=strict,
                                                         base=reader.size), None)
    closer = None
    if isinstance(source, (str, os.PathLike)):
        # registered as read: a writer of this file refuses to truncate it while it is read
        closer = open_input(source, storage_options)
        source = closer
    try:
        read = available_reader(source, chunk_size)
        decoder = SchemaStreamDecoder(type=type, strict=strict, max_record_size=max_record_size, schema=schema,
                                      **load_options)
        while decoder.schema is None:
            chunk = read(chunk_size)
            if not chunk:
                decoder.close()     # the stream ended before its schema: an error
            decoder.feed(chunk)
    except BaseException:
        if closer is not None:
            closer.close()
        raise
    return SchemaStream(decoder.schema, pulled_records(decoder, read, chunk_size), closer)


class SchemaStreamDecoder(Generic[R]):
    """A push decoder (see ``StreamDecoder``) for a stream that starts with its schema.

    Made by ``zebrapack.schema_stream_decoder(...)``. ``schema`` is ``None`` until the
    schema document has arrived whole, then the ``Schema`` that reads the records
    (the stream's own, or ``schema=`` if it is a version of it); iterating gives the
    records complete so far; ``close()`` raises ``TornTailError`` when the stream
    ended inside its schema or a record. Offsets count from the stream's first byte.
    """

    def __init__(self, *, type: str | type | None = None, strict: bool = False,
                 max_record_size: int = DEFAULT_MAX_RECORD_SIZE, schema: Schema[Any] | None = None,
                 **load_options: Any) -> None:
        if schema is not None and load_options:
            raise TypeError(f"load options ({', '.join(load_options)}) apply to the stream's schema, not to schema=")
        if max_record_size < 1:
            raise ValueError(f"max_record_size must be positive, not {max_record_size}")
        self.schema: Schema[Any] | None = None
        self._type = type
        self._strict = strict
        self._max_record_size = max_record_size
        self._given_schema = schema
        self._load_options = load_options
        self._document: SchemaDocumentReader | None = SchemaDocumentReader()
        self._records: StreamDecoder[Any] | None = None
        self._closed = False
        self._failure: ValueError | None = None

    @property
    def offset(self) -> int:
        """The stream offset the next record starts at (0 while the schema has not arrived)."""
        return 0 if self._records is None else self._records.offset

    @property
    def buffered(self) -> int:
        """The bytes fed and not given out yet (the schema's, while it arrives)."""
        if self._records is not None:
            return self._records.buffered
        return 0 if self._document is None else self._document.fed

    @property
    def records(self) -> int:
        return 0 if self._records is None else self._records.records

    @property
    def closed(self) -> bool:
        return self._closed if self._records is None else self._records.closed

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Append ``data`` to the stream (the schema's bytes first, then records')."""
        if self._records is not None:
            self._records.feed(data)
            return
        if self._failure is not None:
            raise copy.copy(self._failure)
        if self._closed:
            raise ValueError("feed after close: the stream has ended")
        assert self._document is not None
        try:
            rest = self._document.feed(memoryview(data).cast("B"))
            if rest is None:
                return
            self.schema = _records_schema(self._document.document, self._given_schema, self._load_options)
            if isinstance(self._type, str) and self._type not in self.schema.structs:
                raise ValueError(f"the schema has no struct {self._type!r} (it has {', '.join(self.schema.structs)})")
        except ValueError as exc:      # DecodeError, SchemaError, a type the schema does not have
            self._failure = copy.copy(exc)      # a copy without the traceback, which holds the decoder
            raise
        self._records = self.schema.stream_decoder(self._type, strict=self._strict,
                                                   max_record_size=self._max_record_size,
                                                   offset=self._document.size)
        self._document = None
        self._records.feed(rest)

    def __iter__(self) -> Iterator[R]:
        return self

    def __next__(self) -> R:
        if self._records is None:
            if self._failure is not None:
                raise copy.copy(self._failure)
            raise StopIteration
        record: R = next(self._records)
        return record

    def close(self) -> None:
        """The stream has ended: ``TornTailError`` if it ended inside its schema or a record."""
        if self._records is not None:
            self._records.close()
            return
        already = self._closed or self._failure is not None
        self._closed = True
        if not already and self._document is not None:
            try:
                self._document.end()
            except DecodeError as exc:
                self._failure = copy.copy(exc)      # iterating raises it again, as StreamDecoder does
                raise


class SchemaDocumentReader:
    """The schema document at the start of a stream, from bytes fed in pieces."""

    #: The most bytes given to the msgpack unpacker at once (a piece may hold many records too).
    STEP = 1 << 16

    def __init__(self) -> None:
        self._unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=MAX_SCHEMA_SIZE)
        self.fed = 0            # bytes given to the unpacker
        self.document: Mapping[str, Any] = {}
        self.size = 0           # the document's bytes, once it is whole

    def feed(self, data: memoryview) -> memoryview | None:
        """Take the bytes the document needs from ``data``: the bytes after the document
        once it is whole, else None (all of ``data`` was taken)."""
        position = 0
        while position < len(data) and self.fed < MAX_SCHEMA_SIZE:
            step = data[position:position + min(self.STEP, MAX_SCHEMA_SIZE - self.fed)]
            self._unpacker.feed(step)
            self.fed += len(step)
            position += len(step)
            try:
                document = self._unpacker.unpack()
            except msgpack.OutOfData:
                continue
            except (ValueError, TypeError) as exc:      # malformed msgpack; an unhashable map key
                raise DecodeError(f"the stream does not start with a schema: {exc}", "$", 0) from exc
            if not isinstance(document, Mapping):
                # never handed to load() as anything else: a str would be opened as a path
                raise DecodeError("the stream does not start with a schema (a map): found "
                                  f"{type(document).__name__}", "$", 0)
            self.document = document
            self.size = self._unpacker.tell()
            return data[position - (self.fed - self.size):]
        if self.fed >= MAX_SCHEMA_SIZE:     # said now: nothing more is read for it
            raise DecodeError(f"schema document larger than MAX_SCHEMA_SIZE={MAX_SCHEMA_SIZE} bytes", "$", 0)
        return None

    def end(self) -> None:
        """The stream ended before the document was whole: the error saying so."""
        if self.fed == 0:
            raise DecodeError("the stream ends before its schema: it is empty", "$", 0)
        raise TornTailError(f"torn tail: the stream ends before its schema document is whole ({self.fed} bytes "
                            "of it there)", "$", 0)


def _records_schema(document: Mapping[str, Any], schema: Schema[Any] | None,
                    load_options: dict[str, Any]) -> Schema[Any]:
    """The schema that reads the records: the stream's own, or ``schema`` if it is a version of it."""
    carried = load(document, **load_options)
    if schema is None:
        return carried
    forward = check_compatible(carried, schema)
    if not forward.compatible and not check_compatible(schema, carried).compatible:
        raise SchemaError(f"the stream's schema is not a version of the given one: {forward.conflicts[0]}")
    return schema


@overload
def schema_stream_decoder(*, type: type[T], strict: bool = False, max_record_size: int = DEFAULT_MAX_RECORD_SIZE,
                          **load_options: Any) -> SchemaStreamDecoder[T]: ...
@overload
def schema_stream_decoder(*, type: str | None = None, strict: bool = False,
                          max_record_size: int = DEFAULT_MAX_RECORD_SIZE, schema: Schema[Any] | None = None,
                          **load_options: Any) -> SchemaStreamDecoder[Any]: ...
@overload
def schema_stream_decoder(*, type: str | type | None, strict: bool = False,
                          max_record_size: int = DEFAULT_MAX_RECORD_SIZE, schema: Schema[Any] | None = None,
                          **load_options: Any) -> SchemaStreamDecoder[Any]: ...


def schema_stream_decoder(*, type: str | type | None = None, strict: bool = False,
                          max_record_size: int = DEFAULT_MAX_RECORD_SIZE, schema: Schema[Any] | None = None,
                          **load_options: Any) -> SchemaStreamDecoder[Any]:
    """A push decoder for a stream written with ``write_schema=True``: ``open_stream`` for
    bytes that arrive in pieces (``feed``, iterate, ``close``, as ``schema.stream_decoder``).
    Its ``.schema`` is ``None`` until the schema document has arrived. The options are
    ``open_stream``'s."""
    return SchemaStreamDecoder(type=type, strict=strict, max_record_size=max_record_size, schema=schema,
                               **load_options)
