"""Streams that carry their schema as their first object (``open_stream``).

``schema.writer(f, write_schema=True)`` writes the schema document (the
``.z`` map) first; ``open_stream`` reads it, loads it, and iterates the
records after it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, Generic, TypeVar, overload

import msgpack

from .._errors import DecodeError, SchemaError, TornTailError
from ..evolution.compat import check_compatible
from ..schema.loader import Schema, load
from .reading import register_file_object
from .records import BinaryReader, iter_records


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


StreamSource = str | os.PathLike[str] | bytes | bytearray | memoryview | BinaryReader


@overload
def open_stream(source: StreamSource, *, type: type[T], strict: bool = False, chunk_size: int = 1 << 16,
                **load_options: Any) -> SchemaStream[T]: ...
@overload
def open_stream(source: StreamSource, *, type: str | None = None, strict: bool = False,
                chunk_size: int = 1 << 16, schema: Schema[Any] | None = None,
                **load_options: Any) -> SchemaStream[Any]: ...
@overload
def open_stream(source: StreamSource, *, type: str | type | None, strict: bool = False,
                chunk_size: int = 1 << 16, schema: Schema[Any] | None = None,
                **load_options: Any) -> SchemaStream[Any]: ...


def open_stream(source: StreamSource, *, type: str | type | None = None, strict: bool = False,
                chunk_size: int = 1 << 16, schema: Schema[Any] | None = None,
                **load_options: Any) -> SchemaStream[Any]:
    """Open a stream written with ``write_schema=True``: its first object is the schema.

    ``source``: a path, a binary file, or bytes. ``type``: the struct of every record
    (a name, or a class given in ``types=``), needed when records carry no struct
    name. ``load_options`` go to ``zebrapack.load`` (``types=``, ``preserve_unknown=``, ...).
    The schema document may take ``MAX_SCHEMA_SIZE`` bytes at most.

    ``schema``: read the records with this schema instead of the one the stream
    carries, which must be an earlier or later version of it (``check_compatible``
    passes one way or the other; otherwise ``SchemaError``). ``stream.schema`` is
    then ``schema``.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    if schema is not None and load_options:
        raise TypeError(f"load options ({', '.join(load_options)}) apply to the stream's schema, not to schema=")
    closer = None
    if isinstance(source, (str, os.PathLike)):
        source = closer = open(source, "rb")
        register_file_object(closer)    # a writer of this file refuses to truncate it while it is read
    if isinstance(source, (bytes, bytearray, memoryview)):
        view = memoryview(source).cast("B")
        document, schema_end, _ = _read_schema_document(_BufferReader(view).read, chunk_size)
        reader = _records_schema(document, schema, load_options)
        return SchemaStream(reader, iter_records(reader, source, type, strict=strict, base=schema_end), closer)
    try:
        document, schema_end, rest = _read_schema_document(source.read, chunk_size)
        reader = _records_schema(document, schema, load_options)
    except BaseException:
        if closer is not None:
            closer.close()      # a stream refused at its start leaves no file open
        raise
    records = iter_records(reader, source, type, strict=strict, chunk_size=chunk_size, prefix=rest,
                           base=schema_end)
    return SchemaStream(reader, records, closer)


def _records_schema(document: Any, schema: Schema[Any] | None, load_options: dict[str, Any]) -> Schema[Any]:
    """The schema that reads the records: the stream's own, or ``schema`` if it is a version of it."""
    carried = load(document, **load_options)
    if schema is None:
        return carried
    forward = check_compatible(carried, schema)
    if not forward.compatible and not check_compatible(schema, carried).compatible:
        raise SchemaError(f"the stream's schema is not a version of the given one: {forward.conflicts[0]}")
    return schema


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
                if fed:         # a writer killed inside the schema document
                    raise TornTailError("torn tail: the stream ends before its schema document is whole", "$",
                                        0) from None
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
