"""``zebrapack.load`` and ``Schema``: a compiled schema with its generated types."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, Generic, TypeVar, overload

if TYPE_CHECKING:
    # PEP 696 defaults (typing from 3.13): a bare ``Schema`` is ``Schema[Any]``.
    from typing_extensions import TypeVar as DefaultedTypeVar

import msgpack

from .._core import DEFAULT_MAX_DEPTH, DEFAULT_MAX_RECORD_SIZE, DEFAULT_ZERO_ALLOWANCE, Codec, StreamDecoder
from .._errors import SchemaError
from ..recordio.async_records import AsyncReader, AsyncRecordWriter, AsyncWriter, aiter_records
from ..recordio.byte_sources import ByteSource
from ..recordio.locations import StorageOptions, local_path, open_input, read_bytes
from ..recordio.records import RecordWriter, iter_records
from .classes import build_dataclasses
from .document import schema_document
from .model import SchemaDef, StructDef, check_names, parse_schema, python_name
from .pickling import PickleIdentity, bind_records, identify, remember, restore
from .user_classes import check_user_classes


class Types(Mapping[str, type]):
    """The classes of a schema by struct name; also readable as attributes by their
    Python names (``types.A``; ``types.class_`` for a struct ``class``)."""

    __slots__ = ("_classes", "_by_attribute")

    def __init__(self, classes: Mapping[str, type]) -> None:
        self._classes = dict(classes)
        self._by_attribute = {python_name(name): cls for name, cls in self._classes.items()}

    def __getitem__(self, name: str) -> type:
        return self._classes[name]

    def __getattr__(self, name: str) -> type:
        try:
            return self._by_attribute[name]
        except KeyError:
            raise AttributeError(f"schema has no struct {name!r}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._classes)

    def __len__(self) -> int:
        return len(self._classes)

    def __dir__(self) -> list[str]:
        return [*self._by_attribute, *super().__dir__()]

    def __repr__(self) -> str:
        return f"Types({', '.join(self._classes)})"

    def __reduce__(self) -> tuple[Any, ...]:
        # The default would look up __setstate__ through __getattr__ before _classes is set.
        return Types, (self._classes,)


#: What ``decode`` returns without a class: ``Any`` for ``load``, the union of its
#: classes for the ``schema`` of a generated module (``Schema[A | B]``).
if TYPE_CHECKING:
    R = DefaultedTypeVar("R", covariant=True, default=Any)
else:
    R = TypeVar("R", covariant=True)
#: The class given as ``type=``.
T = TypeVar("T")

Buffer = bytes | bytearray | memoryview
PathLike = str | os.PathLike[str]


class Schema(Codec, Generic[R]):
    """A loaded ZebraPack schema: its model, its classes, and the codec compiled for them.

    ``decode``, ``decode_all``, ``encode`` and ``encode_into`` come from the
    compiled core; see their docstrings. To a type checker ``decode(data, type=C)``
    returns a ``C``, and ``decode(data)`` an ``R``: ``Any`` for ``zebrapack.load``,
    the union of the module's classes for the ``schema`` of a generated module.
    """

    if TYPE_CHECKING:       # the core's signatures, typed by the class asked for
        @overload
        def decode(self, data: Buffer, type: type[T], *, strict: bool = False) -> T: ...
        @overload
        def decode(self, data: Buffer, type: str | None = None, *, strict: bool = False) -> R: ...
        @overload
        def decode(self, data: Buffer, type: str | type | None = None, *, strict: bool = False) -> Any: ...
        def decode(self, data: Buffer, type: str | type | None = None, *, strict: bool = False) -> Any: ...

        @overload
        def decode_all(self, data: Buffer, type: type[T], *, strict: bool = False) -> list[T]: ...
        @overload
        def decode_all(self, data: Buffer, type: str | None = None, *, strict: bool = False) -> list[R]: ...
        @overload
        def decode_all(self, data: Buffer, type: str | type | None = None, *,
                       strict: bool = False) -> list[Any]: ...
        def decode_all(self, data: Buffer, type: str | type | None = None, *,
                       strict: bool = False) -> list[Any]: ...

    def __init__(
        self,
        model: SchemaDef,
        types: Mapping[str, type] | object | None = None,
        *,
        max_depth: int = DEFAULT_MAX_DEPTH,
        preserve_unknown: bool = False,
        zero_allowance: int = DEFAULT_ZERO_ALLOWANCE,
    ) -> None:
        check_names(model.structs)     # parse_schema checks documents; other models come here too
        given = check_user_classes(model, types, preserve_unknown) if types is not None else {}
        # The generated classes refer to the given ones (nested defaults, annotations).
        classes = build_dataclasses(model, preserve_unknown=preserve_unknown, given=given)
        super().__init__(model, classes, max_depth=max_depth, preserve_unknown=preserve_unknown,
                         zero_allowance=zero_allowance)
        self._model = model
        self._types = Types(classes)
        self._preserve_unknown = preserve_unknown
        self._given = given
        self._pickle_identity: PickleIdentity | None = None
        self._document: bytes | None = None
        bind_records(self, {name: cls for name, cls in classes.items() if name not in given})

    # -- pickling (see schema/pickling.py) ---------------------------------------

    def _identity(self) -> PickleIdentity:
        """The document, registry key and token this schema pickles as (made on first use)."""
        if self._pickle_identity is None:
            self._pickle_identity = identify(self.document, self.max_depth, self._preserve_unknown, self.zero_allowance,
                                             self._given)
        return self._pickle_identity

    def __reduce__(self) -> tuple[Any, ...]:
        # Overrides the compiled Codec's reduce: no plan is pickled, the worker compiles its own.
        identity = self._identity()
        remember(self, identity)
        return restore_schema, (identity.compressed, self.max_depth, self._preserve_unknown,
                                self.zero_allowance, self._given or None, identity.token)

    def __copy__(self) -> Schema:
        return self            # immutable once built, like a class

    def __deepcopy__(self, memo: dict[int, Any]) -> Schema:
        return self

    @property
    def document(self) -> bytes:
        """The schema as a ``.z`` document (msgpack2): what ``dump`` writes, what
        ``zebrapack.load`` reads, and what a self-describing stream starts with."""
        if self._document is None:
            self._document = msgpack.packb(schema_document(self._model), use_bin_type=True)
        return self._document

    def dump(self, path: str | os.PathLike[str]) -> None:
        """Write the schema as ``path`` (a ``.z``, msgpack2) and ``path`` + ``.json`` beside it."""
        with open(path, "wb") as handle:
            handle.write(self.document)
        with open(os.fspath(path) + ".json", "w", encoding="utf-8") as handle:
            json.dump(schema_document(self._model), handle, indent=4)
            handle.write("\n")

    @property
    def types(self) -> Types:
        """The class of each struct, by struct name (``types.A`` or ``types["A"]``)."""
        return self._types

    @property
    def structs(self) -> Mapping[str, StructDef]:
        """The parsed schema model: struct name -> StructDef (fields, zids, types, flags)."""
        return self._model.structs

    @property
    def model(self) -> SchemaDef:
        return self._model

    @property
    def schema_id(self) -> int | None:
        return self._model.schema_id

    @property
    def source_package(self) -> str:
        return self._model.source_package

    @property
    def source_path(self) -> str:
        return self._model.source_path

    @overload
    def iter_decode(self, source: Buffer | PathLike | ByteSource, type: type[T], *, strict: bool = False,
                    chunk_size: int = 1 << 16, max_record_size: int = DEFAULT_MAX_RECORD_SIZE,
                    storage_options: StorageOptions = None) -> Iterator[T]: ...
    @overload
    def iter_decode(self, source: Buffer | PathLike | ByteSource, type: str | None = None, *,
                    strict: bool = False, chunk_size: int = 1 << 16,
                    max_record_size: int = DEFAULT_MAX_RECORD_SIZE, storage_options: StorageOptions = None) -> Iterator[R]: ...
    @overload
    def iter_decode(self, source: Buffer | PathLike | ByteSource, type: str | type | None, *,
                    strict: bool = False, chunk_size: int = 1 << 16,
                    max_record_size: int = DEFAULT_MAX_RECORD_SIZE, storage_options: StorageOptions = None) -> Iterator[Any]: ...

    def iter_decode(
        self,
        source: Buffer | PathLike | ByteSource,
        type: str | type | None = None,
        *,
        strict: bool = False,
        chunk_size: int = 1 << 16,
        max_record_size: int = DEFAULT_MAX_RECORD_SIZE,
        storage_options: StorageOptions = None,
    ) -> Iterator[Any]:
        """Yield the records of a stream: a bytes-like object, or a binary file (an open
        one, a path, or a URL such as ``s3://bucket/key``, opened through fsspec with
        ``storage_options`` and fetched in ranged reads of 8 MiB), a pipe or a socket, read
        as its bytes arrive: each record comes as soon as its last byte has been read, and
        memory stays within one record plus ``chunk_size``. Input that ends inside a record
        is a ``TornTailError`` after the complete records. A file this opens is closed when
        the iteration ends."""
        if isinstance(source, (str, os.PathLike)):
            return _records_of_path(self, source, type, strict, chunk_size, max_record_size, storage_options)
        return iter_records(self, source, type, strict=strict, chunk_size=chunk_size,
                            max_record_size=max_record_size)

    @overload
    def stream_decoder(self, type: type[T], *, strict: bool = False, max_record_size: int = DEFAULT_MAX_RECORD_SIZE,
                       offset: int = 0) -> StreamDecoder[T]: ...
    @overload
    def stream_decoder(self, type: str | None = None, *, strict: bool = False,
                       max_record_size: int = DEFAULT_MAX_RECORD_SIZE, offset: int = 0) -> StreamDecoder[R]: ...
    @overload
    def stream_decoder(self, type: str | type | None, *, strict: bool = False,
                       max_record_size: int = DEFAULT_MAX_RECORD_SIZE, offset: int = 0) -> StreamDecoder[Any]: ...

    def stream_decoder(self, type: str | type | None = None, *, strict: bool = False,
                       max_record_size: int = DEFAULT_MAX_RECORD_SIZE, offset: int = 0) -> StreamDecoder[Any]:
        """A push decoder (``zebrapack.StreamDecoder``) for records that arrive in pieces:
        ``feed(data)`` each piece, iterate it for the records complete so far, ``close()``
        at the end of the stream (``TornTailError`` if it ended inside a record).
        ``max_record_size``: the largest record it holds (bigger is a ``DecodeError``);
        ``offset``: the stream offset of the first byte fed, for error offsets."""
        return StreamDecoder(self, type, strict=strict, max_record_size=max_record_size, offset=offset)

    @overload
    def aiter_decode(self, reader: AsyncReader, type: type[T], *, strict: bool = False, chunk_size: int = 1 << 16,
                     max_record_size: int = DEFAULT_MAX_RECORD_SIZE) -> AsyncIterator[T]: ...
    @overload
    def aiter_decode(self, reader: AsyncReader, type: str | None = None, *, strict: bool = False,
                     chunk_size: int = 1 << 16, max_record_size: int = DEFAULT_MAX_RECORD_SIZE) -> AsyncIterator[R]: ...
    @overload
    def aiter_decode(self, reader: AsyncReader, type: str | type | None, *, strict: bool = False,
                     chunk_size: int = 1 << 16,
                     max_record_size: int = DEFAULT_MAX_RECORD_SIZE) -> AsyncIterator[Any]: ...

    def aiter_decode(self, reader: AsyncReader, type: str | type | None = None, *, strict: bool = False,
                     chunk_size: int = 1 << 16, max_record_size: int = DEFAULT_MAX_RECORD_SIZE) -> AsyncIterator[Any]:
        """``async for record in schema.aiter_decode(reader)``: the records of an
        ``asyncio.StreamReader`` (or anything with an async ``read(n)``), each as soon as
        its last byte has arrived; ``TornTailError`` after the complete ones if the stream
        ends inside a record."""
        return aiter_records(self, reader, type, strict=strict, chunk_size=chunk_size,
                             max_record_size=max_record_size)

    def async_writer(self, stream: AsyncWriter, **options: Any) -> AsyncRecordWriter:
        """An ``AsyncRecordWriter`` writing records to an ``asyncio.StreamWriter`` with
        back-pressure (``await write(obj)``, ``await flush()``; see ``AsyncRecordWriter``)."""
        return AsyncRecordWriter(self, stream, **options)

    def writer(self, fileobj: IO[bytes] | PathLike, **options: Any) -> RecordWriter:
        """A ``RecordWriter`` appending encoded records to a binary file, a path or a URL
        (written whole when closed; ``storage_options=`` for fsspec; see ``RecordWriter``)."""
        return RecordWriter(self, fileobj, **options)

    def __repr__(self) -> str:
        package = self.source_package or "?"
        return f"<zebrapack.Schema {package}: {', '.join(self._types)}>"


def _records_of_path(schema: Schema[Any], path: PathLike, type: str | type | None, strict: bool, chunk_size: int,
                     max_record_size: int, storage_options: StorageOptions) -> Iterator[Any]:
    # Opened here, not at the first next(): a missing file is an error of the iter_decode call.
    # Registered as read: a writer of this file refuses to truncate it while it is read.
    handle = open_input(path, storage_options)

    def records() -> Iterator[Any]:
        with handle:
            yield from iter_records(schema, handle, type, strict=strict, chunk_size=chunk_size,
                                    max_record_size=max_record_size)
    return records()


SchemaSource = str | os.PathLike[str] | bytes | bytearray | memoryview | Mapping[str, Any]


#: The largest schema file ``load`` reads (real ones are kilobytes).
MAX_SCHEMA_FILE = 64 << 20


def read_schema_document(source: SchemaSource, storage_options: StorageOptions = None) -> Mapping[str, Any]:
    """The raw schema document of a path or URL (``.z`` or ``.z.json``), ``.z`` bytes, or a dict."""
    if isinstance(source, Mapping):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _unpack_schema(bytes(source), "schema bytes")
    if isinstance(source, (str, os.PathLike)):
        path = local_path(source) or os.fspath(source)
        # OSError (FileNotFoundError, ...) as for any file; a schema is kilobytes
        try:
            data = read_bytes(path, storage_options, limit=MAX_SCHEMA_FILE)
        except ValueError as exc:       # larger than any schema
            raise SchemaError(f"{exc}: not a schema") from None
        if path.endswith(".json"):
            try:
                document = json.loads(data)
            except (ValueError, RecursionError) as exc:     # UnicodeDecodeError is a ValueError
                raise SchemaError(f"{path}: not a JSON schema: {exc}") from exc
            if not isinstance(document, Mapping):
                raise SchemaError(f"{path}: a schema is a JSON object")
            return document
        return _unpack_schema(data, path)
    raise TypeError(f"a schema source is a path, bytes or a dict, not {type(source).__name__}")


def _unpack_schema(data: bytes, where: str) -> Mapping[str, Any]:
    try:
        document = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:    # TypeError: an unhashable map key
        raise SchemaError(f"{where}: not a msgpack2 schema: {exc}") from exc
    if not isinstance(document, Mapping):
        raise SchemaError(f"{where}: a schema is a map, not {type(document).__name__}")
    return document


def restore_schema(compressed: bytes, max_depth: int, preserve_unknown: bool, zero_allowance: int,
                   types: Mapping[str, type] | None, token: bytes) -> Schema:
    """Unpickle a ``Schema``: this process's schema of that document and options (loaded once)."""
    def build(document: bytes, identity: PickleIdentity) -> Schema:
        model = parse_schema(_unpack_schema(document, "pickled schema"))
        schema = Schema(model, types, max_depth=max_depth, preserve_unknown=preserve_unknown,
                        zero_allowance=zero_allowance)
        schema._pickle_identity = identity
        return schema
    return restore(compressed, max_depth, preserve_unknown, zero_allowance, types, token, build)


def load(
    source: SchemaSource,
    *,
    types: Mapping[str, type] | object | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    preserve_unknown: bool = False,
    zero_allowance: int = DEFAULT_ZERO_ALLOWANCE,
    storage_options: StorageOptions = None,
) -> Schema[Any]:
    """Load a compiled ZebraPack schema.

    ``source``: a path to a ``.z`` (msgpack2) or ``.z.json`` file (or its URL, read
    through fsspec with ``storage_options``), the bytes of a ``.z``, or a dict of the
    same shape. ``types``: your own classes for some or
    all structs (a module or a mapping of struct name -> class), checked against
    the schema. ``max_depth``: the nesting limit of decoding and encoding.
    ``preserve_unknown``: keep the raw entries of zids this schema does not know
    (data from a newer schema) on each instance, as ``zebrapack_unknown``, and
    write them back on encode, so a read-modify-write loses nothing.
    ``zero_allowance``: how many values the zero values of absent fields and
    nils may hold in one decode call beyond each record's own zero value and
    the input's bytes (docs/limits.md).
    Raises ``SchemaError`` for a malformed schema, and ``OSError``
    (``FileNotFoundError``, ...) for a file that cannot be read.
    """
    model = parse_schema(read_schema_document(source, storage_options))
    return Schema(model, types, max_depth=max_depth, preserve_unknown=preserve_unknown,
                  zero_allowance=zero_allowance)

