"""The reader's Python face: ``read`` (a ``RecordBatchStream``) and ``arrow_schema``.

The decoding itself is the core's (``zebrapack._core.ArrowRecordReader``): this
module resolves the struct and the columns, recognises a leading schema
document, and lays the sources out as the core reads them.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

from .._core import ArrowRecordReader, arrow_schema_capsule
from ..recordio.index_format import Split
from ..recordio.locations import RemoteFile, identity, local_path
from ..recordio.reading import descriptor, register
from ..streams.index import CheckedEntries
from ..streams.schema_prefix import may_start_with_schema, read_schema_prefix, schema_prefix_end
from ..streams.self_describing import MAX_SCHEMA_SIZE
from ._mapping import ArrowField, arrow_fields
from ._threads import ParallelBatches, Planner, Range, usable_index
from .pyarrow_import import require_pyarrow

#: Bytes looked at to recognise a leading schema document before reading more.
_HEAD = 1 << 16
#: Bytes read at a time from files and file objects (the tests make it small to put
#: chunk ends inside records).
_READ_CHUNK = 1 << 20
#: The most decoder threads ``read(..., threads=N)`` starts.
MAX_THREADS = 256


class ArrowSchemaExport:
    """An Arrow schema exported through ``__arrow_c_schema__`` (``pyarrow.schema(x)``,
    ``polars.Schema``...). ``field`` is zebrapack's description of it."""

    __slots__ = ("field",)

    def __init__(self, field: ArrowField) -> None:
        self.field = field

    def __arrow_c_schema__(self) -> object:
        return arrow_schema_capsule(self.field)

    def __repr__(self) -> str:
        columns = ", ".join(f"{child.name}: {child.format}" for child in self.field.children)
        return f"<zebrapack.arrow schema of {self.field.struct}: {columns}>"


def arrow_schema(schema: Any, type: Any = None, *, columns: Iterable[str] | None = None,
                 time_unit: str = "ns") -> ArrowSchemaExport:
    """The Arrow schema ``read(source, schema, type, columns=..., time_unit=...)``
    produces, without reading data (Dask's ``meta``, Spark's schema)."""
    return ArrowSchemaExport(arrow_fields(schema, type, columns=columns, time_unit=time_unit))


def read(source: Any, schema: Any, type: Any = None, *, columns: Iterable[str] | None = None,
         batch_rows: int = 65536, batch_bytes: int = 64 << 20, time_unit: str = "ns",
         strict: bool = False, max_record_size: int = 1 << 28,
         storage_options: Mapping[str, Any] | None = None, threads: int = 1) -> RecordBatchStream:
    """The records of ``source`` as a stream of Arrow record batches (see ``RecordBatchStream``).

    ``source``: a path, a URL (``s3://bucket/key``: fsspec opens it with
    ``storage_options``), a binary file object, a bytes-like object, a
    ``zebrapack.Split`` (from ``file_splits``; a split of an object at a URL
    carries its storage options and is read with ranged reads of its own bytes),
    or a list of them, read one after another; a leading schema document
    (``write_schema=True``) is skipped. Local files are read with C stdio; objects
    at URLs in ranged reads of 8 MiB. ``type``: the struct (a name or one of ``schema.types``), needed
    when the schema has several. ``columns``: field names or dotted paths into
    nested structs; the other fields are skipped on the wire. A batch holds at
    most ``batch_rows`` rows and closes once its buffers reach about
    ``batch_bytes``. ``time_unit``: "ns" or "us" for ``time.Time`` columns.
    ``strict``: accept exactly what the Go reader accepts, as ``decode(strict=True)``.
    ``max_record_size``: the most bytes one record of a file may take, and the largest
    index entry held whole (a larger one is checked, then read in chunks).
    ``threads``: decode with this many threads at once (``N > 1`` needs pyarrow): local
    files, splits and bytes-like objects are cut into ranges at their index's entries
    (``FILE.zpi``, when usable) or where a boundary scan finds records ending, decoded in
    parallel without the GIL; the batches come in file order and the table is the one a
    single thread reads (batches end at range ends too), errors the same.
    Nothing is read until a consumer pulls batches.
    """
    field = arrow_fields(schema, type, columns=columns, time_unit=time_unit)
    for name, value in (("batch_rows", batch_rows), ("batch_bytes", batch_bytes),
                        ("max_record_size", max_record_size), ("threads", threads)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, not {value!r}")
    if threads > MAX_THREADS:
        raise ValueError(f"threads must be at most {MAX_THREADS}, not {threads}")
    sources = list(source) if isinstance(source, (list, tuple)) else [source]
    for item in sources:
        _check_source(item)
    return RecordBatchStream(field, schema, sources, batch_rows=batch_rows, batch_bytes=batch_bytes,
                             time_us=time_unit == "us", strict=bool(strict), max_record_size=max_record_size,
                             storage_options=storage_options, threads=threads)


def _check_source(item: Any) -> None:
    if isinstance(item, (str, os.PathLike, Split, bytes, bytearray, memoryview)) or hasattr(item, "read"):
        return
    try:
        memoryview(item).release()
    except TypeError:
        raise TypeError(f"a source is a path, a binary file, a bytes-like object or a zebrapack.Split, "
                        f"not {item!r}") from None


class RecordBatchStream:
    """Arrow record batches of zebrapack records, decoded in the core.

    Any Arrow consumer takes it through ``__arrow_c_stream__`` (pyarrow's
    ``RecordBatchReader.from_stream``, ``polars.DataFrame``, DuckDB's
    ``FROM stream``); each call reads the sources from the start, on whatever
    thread the consumer pulls from (a file object can only be read once).
    ``read_next_batch()``, iteration, ``read_all()`` and ``schema`` give pyarrow
    objects; decoding errors there are ``DecodeError`` naming the record number
    (``.record``, counted from 0 over all the sources), the field path and the
    byte offset in its source. Through the C stream the consumer raises its own
    error with the same text.
    """

    def __init__(self, field: ArrowField, codec: Any, sources: list[Any], *, batch_rows: int, batch_bytes: int,
                 time_us: bool, strict: bool, max_record_size: int = 1 << 28,
                 storage_options: Mapping[str, Any] | None = None, threads: int = 1) -> None:
        self._field = field
        self._threads = threads
        self._storage_options = storage_options
        self._codec = codec
        self._sources = sources
        self._batch_rows = batch_rows
        self._batch_bytes = batch_bytes
        self._time_us = time_us
        self._strict = strict
        self._max_record_size = max_record_size
        self._file_objects_read = False
        self._reader: ArrowRecordReader | None = None
        self._parallel: ParallelBatches | None = None     # read_next_batch's, with threads
        # read_next_batch's kept reader is made and read under this lock (threads take
        # turns: each batch goes to one of them); _open's read-once check under it too
        self._lock = threading.Lock()
        self._next_lock = threading.Lock()     # read_next_batch with threads: one consumer at a time

    def _open(self) -> ArrowRecordReader:
        """A fresh reader over the sources, from their start."""
        with self._lock:
            return self._open_unlocked()

    def _open_unlocked(self) -> ArrowRecordReader:
        self._read_once()
        reader = self._new_reader()
        max_depth = self._codec.max_depth
        for item in self._sources:
            _add_source(reader, item, max_depth, self._max_record_size, self._storage_options)
            self._register(reader, item, _still_reading)
        return reader

    def _read_once(self) -> None:
        if any(_is_file_object(item) for item in self._sources):
            if self._file_objects_read:
                raise ValueError("this stream reads a file object, which can only be read once")
            self._file_objects_read = True

    def _new_reader(self) -> ArrowRecordReader:
        return ArrowRecordReader(self._field, self._codec, batch_rows=self._batch_rows,
                                 batch_bytes=self._batch_bytes, strict=self._strict, time_us=self._time_us,
                                 max_record_size=self._max_record_size, read_chunk=_READ_CHUNK)

    def _register(self, reader: Any, item: Any, reading: Any) -> None:
        """A writer of the item's file refuses to truncate it while ``reader`` reads it."""
        file = identity(item.path, item.storage_options) if isinstance(item, Split) else \
            identity(item, self._storage_options) if isinstance(item, (str, os.PathLike)) else \
            descriptor(item) if _is_file_object(item) else None
        if file is not None:
            register(file, reader, reading)

    def _open_parallel(self) -> ParallelBatches:
        """The sources cut into ranges, decoded by ``threads`` threads (``_threads``)."""
        pa = require_pyarrow(f"zebrapack.arrow.read(..., threads={self._threads})")
        with self._lock:
            self._read_once()
        planner = Planner(self._batch_rows, self._codec.max_depth, self._max_record_size, self._batch_bytes)
        # The threads and the ranges they queue see this stream through a weak proxy, so
        # that a stream dropped half read is collected (read_next_batch's finalizer, or
        # the iterator's own end, stops the threads).
        stream = cast(RecordBatchStream, weakref.proxy(self))

        def new_reader(item: Range) -> ArrowRecordReader:
            return stream._new_reader()

        def plan(offer: Any) -> None:
            for source in stream._sources:
                planner.next_source()
                RecordBatchStream._plan_source(stream, planner, offer, source)

        batches = ParallelBatches(plan, new_reader, self._threads, pa)
        for source in self._sources:
            self._register(batches, source, _still_planning)
        return batches

    def _plan_source(self, planner: Planner, offer: Any, item: Any) -> None:
        """The ranges of one source: by index entries, by a boundary scan, or whole."""
        max_depth = self._codec.max_depth

        def whole(reader: ArrowRecordReader) -> None:
            _add_source(reader, item, max_depth, self._max_record_size, self._storage_options)
            self._register(reader, item, _still_reading)

        def file_range(path: str, label: str | None = None) -> Any:
            def make(start: int, stop: int) -> Any:
                def add(reader: ArrowRecordReader) -> None:
                    reader.add_file(path, start, stop, label)
                    self._register(reader, item, _still_reading)
                return add
            return make

        if isinstance(item, Split) and local_path(item.path) is not None:
            label = f"{item.path}: split {item.start}..{item.stop}: "
            if item.indexed:
                def entries(group: list[Any]) -> Any:
                    def add(reader: ArrowRecordReader) -> None:
                        for entry in group:
                            reader.add_entry(item.path, entry.start, entry.stop, entry.records, entry.crc, label)
                        self._register(reader, item, _still_reading)
                    return add
                planner.index_entries(offer, item.entries, entries, True)
                return
            start = item.start or _file_prefix_end(item.path, item.stop, max_depth)
            planner.guess_file(offer, item.path, start, item.stop, file_range(item.path, label))
        elif isinstance(item, (str, os.PathLike)) and local_path(item) is not None:
            path = local_path(item) or ""
            size = os.path.getsize(path)
            start = _file_prefix_end(path, size, max_depth)
            index = usable_index(path, start)
            make = file_range(path)
            if index is None or not index.entries:
                planner.guess_file(offer, path, start, size, make)
                return

            def group_range(group: list[Any]) -> Any:
                return make(group[0].start, group[-1].stop)
            planner.index_entries(offer, index.entries, group_range, index.entries[-1].stop >= size)
            if index.entries[-1].stop < size:
                planner.whole(offer, make(index.entries[-1].stop, size))
        elif not isinstance(item, (str, os.PathLike)) and not hasattr(item, "read"):
            whole_view = memoryview(item)
            if whole_view.ndim != 1 or whole_view.format != "B":
                whole_view = whole_view.cast("B")
            start = schema_prefix_end(whole_view[:MAX_SCHEMA_SIZE], max_depth)

            def buffer_range(start: int, stop: int) -> Any:
                def add(reader: ArrowRecordReader) -> None:
                    reader.add_buffer(whole_view[:stop], start)
                return add
            planner.guess_memory(offer, whole_view, start, buffer_range)
        else:
            planner.whole(offer, whole)

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """A fresh reader as an Arrow C stream (``requested_schema`` is not applied:
        the schema is the one ``arrow_schema`` gives)."""
        if self._threads > 1:   # the decoder threads' batches through a pyarrow reader
            pa = require_pyarrow(f"zebrapack.arrow.read(..., threads={self._threads})")
            return pa.RecordBatchReader.from_batches(self.schema, iter(self)).__arrow_c_stream__()
        return self._open().export_stream()

    def __arrow_c_schema__(self) -> object:
        return arrow_schema_capsule(self._field)

    @property
    def schema(self) -> Any:
        """The ``pyarrow.Schema`` of the batches (needs pyarrow)."""
        return require_pyarrow("RecordBatchStream.schema").schema(self)

    def read_next_batch(self) -> Any:
        """The next ``pyarrow.RecordBatch`` of one reader kept by this stream;
        ``StopIteration`` at the end (needs pyarrow). Threads calling it at once take
        turns: each batch goes to one of them."""
        pa = require_pyarrow("RecordBatchStream.read_next_batch()")
        if self._threads > 1:
            with self._next_lock:
                if self._parallel is None:
                    self._parallel = self._open_parallel()
                    weakref.finalize(self, self._parallel.close, False)
                batch = self._parallel.next()
            if batch is None:
                raise StopIteration
            return batch
        with self._lock:
            if self._reader is None:
                self._reader = self._open_unlocked()
            batch = self._reader.next_batch()
        if batch is None:
            raise StopIteration
        return pa.RecordBatch._import_from_c_capsule(*batch)

    def __iter__(self) -> Iterator[Any]:
        """``pyarrow.RecordBatch`` objects from a fresh reader (needs pyarrow)."""
        pa = require_pyarrow("iterating a RecordBatchStream")
        if self._threads > 1:
            batches = self._open_parallel()
            try:
                while (batch := batches.next()) is not None:
                    yield batch
            finally:
                batches.close()
            return
        reader = self._open()
        while (batch := reader.next_batch()) is not None:
            yield pa.RecordBatch._import_from_c_capsule(*batch)

    def read_all(self) -> Any:
        """Every record as one ``pyarrow.Table`` (needs pyarrow)."""
        pa = require_pyarrow("RecordBatchStream.read_all()")
        return pa.Table.from_batches(list(self), schema=self.schema)

    def __repr__(self) -> str:
        return f"<zebrapack.arrow.RecordBatchStream of {self._field.struct}, {len(self._sources)} source(s)>"


def _still_reading(reader: ArrowRecordReader) -> bool:
    return reader.reading


def _still_planning(batches: ParallelBatches) -> bool:
    return not batches.closed


def _is_file_object(item: Any) -> bool:
    return hasattr(item, "read") and not isinstance(item, (str, os.PathLike, Split))


def _add_source(reader: ArrowRecordReader, item: Any, max_depth: int, max_record_size: int,
                storage_options: Mapping[str, Any] | None) -> None:
    if isinstance(item, Split):
        _add_split(reader, item, max_depth, max_record_size)
    elif isinstance(item, (str, os.PathLike)) and local_path(item) is not None:
        path = local_path(item) or ""
        size = os.path.getsize(path)
        reader.add_file(path, _file_prefix_end(path, size, max_depth), size)
    elif isinstance(item, (str, os.PathLike)):      # an object at a URL: read as a file object
        _add_file_object(reader, RemoteFile(os.fspath(item), storage_options), max_depth)
    elif hasattr(item, "read"):
        _add_file_object(reader, item, max_depth)
    else:
        with memoryview(item) as view:
            data = view.cast("B") if view.ndim != 1 or view.format != "B" else view
            start = schema_prefix_end(data[:MAX_SCHEMA_SIZE], max_depth)
        reader.add_buffer(item, start)


def _add_file_object(reader: ArrowRecordReader, fileobj: Any, max_depth: int) -> None:
    head = _read_head(fileobj)
    start = schema_prefix_end(head, max_depth)
    reader.add_file_object(fileobj, bytes(head[start:]), start)


def _read_head(fileobj: Any) -> bytes:
    head = fileobj.read(_HEAD) or b""
    if may_start_with_schema(head):
        while len(head) < MAX_SCHEMA_SIZE:
            more = fileobj.read(MAX_SCHEMA_SIZE - len(head))
            if not more:
                break
            head += more
    return bytes(head)


def _file_prefix_end(path: str, size: int, max_depth: int) -> int:
    with open(path, "rb") as handle:
        return read_schema_prefix(handle, size, max_depth)[0]


def _add_split(reader: ArrowRecordReader, split: Split, max_depth: int, max_record_size: int) -> None:
    label = f"{split.path}: split {split.start}..{split.stop}: "
    if local_path(split.path) is None:
        _add_remote_split(reader, split, max_depth, max_record_size, label)
        return
    if split.indexed:
        for entry in split.entries:
            reader.add_entry(split.path, entry.start, entry.stop, entry.records, entry.crc, label)
        return
    start = split.start
    if start == 0:
        start = _file_prefix_end(split.path, split.stop, max_depth)
    reader.add_file(split.path, start, split.stop, label)


def _add_remote_split(reader: ArrowRecordReader, split: Split, max_depth: int, max_record_size: int,
                      label: str) -> None:
    """A split of an object at a URL, read with ranged reads of its own bytes (``split.start..stop``):
    its index entries checked before their records are read, as the C reader checks local ones."""
    remote = RemoteFile(split.path, split.storage_options, start=split.start, stop=split.stop)
    if split.indexed:
        reader.add_file_object(CheckedEntries(remote, split, max_depth, max_record_size), b"", split.start, label)
        return
    start, prefix = split.start, b""
    if start == 0:
        start, head = read_schema_prefix(remote, split.stop, max_depth)
        prefix = head[start:]
    reader.add_file_object(remote, prefix, start, label)
