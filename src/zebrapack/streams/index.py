"""Splittable record files: build a sidecar index, plan splits by it, read one split.

``build_index(path)`` (and ``zebrapack index FILE``) walks the records without a
schema and writes ``FILE.zpi``; ``RecordWriter(index=...)`` writes the same
index as it goes. ``file_splits(path)`` plans splits by the index, or, when
there is none or it is stale or corrupt (an ``IndexWarning``), one split for
the whole file. ``iter_split(schema, split)`` decodes one split, checking each
index entry's CRC32 and record count first, so that an index that does not
describe the file raises ``DecodeError`` instead of giving wrong rows.
"""

from __future__ import annotations

import mmap
import os
import warnings
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any, Protocol

from .._core import DEFAULT_MAX_DEPTH, skip_records
from .._errors import DecodeError
from ..recordio.index_format import (
    DEFAULT_EVERY,
    DEFAULT_EVERY_BYTES,
    SAMPLE_SIZE,
    CorruptIndex,
    IndexEntry,
    RecordIndex,
    Split,
    check_every,
    default_index_path,
    index_size,
    parse_index,
    write_index,
)
from ..recordio.locations import StorageOptions, exists, file_size, input_size, local_path, open_input
from ..recordio.records import Schema
from ..recordio.tears import ends_inside_record, torn_tail_error
from ..recordio.walking import RecordWalker
from .schema_prefix import read_schema_prefix


class IndexWarning(UserWarning):
    """A record file's index was ignored (stale or corrupt): the file is read as one split."""


class _Decoder(Schema, Protocol):
    @property
    def max_depth(self) -> int: ...

    def decode_all(self, data: bytes | bytearray | memoryview, type: Any = None, *,
                   strict: bool = False) -> list[Any]: ...


#: Records per batch of ``iter_split_batches`` (small lists decode faster: less for the GC to walk).
DEFAULT_BATCH = 1024
#: Bytes read at a time from a split without an index, or from an index entry too large to hold.
UNINDEXED_CHUNK = 1 << 20
#: The most bytes a record may take (and the largest index entry held whole), by default.
DEFAULT_MAX_RECORD_SIZE = 1 << 28


def build_index(data_path: str | os.PathLike[str], index_path: str | os.PathLike[str] | None = None, *,
                every: int = DEFAULT_EVERY, every_bytes: int = DEFAULT_EVERY_BYTES,
                max_depth: int = DEFAULT_MAX_DEPTH, schema_prefix: bool | None = None,
                storage_options: StorageOptions = None,
                progress: Callable[[int, int], None] | None = None) -> RecordIndex:
    """Index the record file at ``data_path`` and write the index (default ``FILE.zpi``).

    An entry starts every ``every`` records, or sooner once an entry's records
    reach ``every_bytes`` bytes. Records are found without a schema (each is a
    msgpack map nested at most ``max_depth`` deep; otherwise ``DecodeError``).
    ``schema_prefix``: whether the file starts with a schema document
    (``write_schema=True``); by default it is recognized; ``False`` indexes a leading
    schema document as a record, ``True`` for a file without one is a ``ValueError``. A file that ends inside a record (a writer killed
    mid-write) is a ``TornTailError`` at the torn record's offset (``recover``
    reads such a file); no index is written then. The index file is replaced
    atomically. Returns the index.

    ``data_path`` may be a URL (the object is read once, in order, with
    ``storage_options``; the index is written beside it as a whole object).
    ``progress(bytes scanned, file size)`` is called as the scan goes.
    """
    check_every(every, every_bytes)
    with open_input(data_path, storage_options) as handle:
        index = _scan(handle, file_size(handle), every, every_bytes, max_depth, schema_prefix, progress)
    write_index(index, index_path if index_path is not None else default_index_path(data_path), storage_options)
    return index


def _scan(handle: Any, size: int, every: int, every_bytes: int, max_depth: int, schema_prefix: bool | None,
          progress: Callable[[int, int], None] | None) -> RecordIndex:
    """The index of the file ``handle`` reads (from its start), read once in chunks."""
    start, head = (0, b"") if schema_prefix is False else read_schema_prefix(handle, size, max_depth)
    if schema_prefix and not start:
        raise ValueError("schema_prefix=True, but the file does not start with a schema document")
    sample = _Samples(head[:start], size, progress)
    walker = RecordWalker(_Unread(handle, head[start:]), start, size, max_depth, sample.read)
    entries = []
    entry_start = start
    records = crc = 0
    while True:
        count, crc = walker.step(every - records, entry_start + every_bytes, crc)
        if not count:
            break
        records += count
        if records == every or walker.position >= entry_start + every_bytes:
            entries.append(IndexEntry(entry_start, walker.position, records, crc))
            entry_start, records, crc = walker.position, 0, 0
    if records:
        entries.append(IndexEntry(entry_start, walker.position, records, crc))
    if walker.position < size:
        raise torn_tail_error(walker.position, size - walker.position)
    return RecordIndex(size, start, sum(entry.records for entry in entries), tuple(entries),
                       every, every_bytes, zlib.crc32(sample.head), zlib.crc32(sample.tail))


class _Unread:
    """``read`` of a file with bytes already read from it given back first."""

    def __init__(self, handle: Any, first: bytes) -> None:
        self._handle = handle
        self._first = first

    def read(self, size: int) -> bytes:
        if self._first:
            chunk, self._first = self._first[:size], self._first[size:]
            return chunk
        data: bytes = self._handle.read(size)
        return data


class _Samples:
    """The first and last ``SAMPLE_SIZE`` bytes of a file read in order (the index's
    staleness check), and the progress of the read."""

    def __init__(self, head: bytes, size: int, progress: Callable[[int, int], None] | None) -> None:
        self.head = head[:SAMPLE_SIZE]
        self.tail = head[-SAMPLE_SIZE:]
        self._seen = len(head)
        self._size = size
        self._progress = progress

    def read(self, chunk: bytes) -> None:
        if self._seen < SAMPLE_SIZE:
            self.head += chunk[:SAMPLE_SIZE - len(self.head)]
        self.tail = (self.tail + chunk[-SAMPLE_SIZE:])[-SAMPLE_SIZE:]
        self._seen += len(chunk)
        if self._progress is not None:
            self._progress(self._seen, self._size)


class _Unusable(Exception):
    """Why an index cannot be used for its data file."""


def load_index(data_path: str | os.PathLike[str], index_path: str | os.PathLike[str] | None = None, *,
               full: bool = False, storage_options: StorageOptions = None) -> RecordIndex:
    """The index of ``data_path`` (default ``FILE.zpi``), checked against the file;
    ``ValueError`` when it is corrupt or stale (``read_index`` warns and goes on
    instead), ``OSError`` when a file cannot be read. ``full=True`` also checks
    every entry's CRC32, reading the whole file. Paths may be URLs (opened with
    ``storage_options``)."""
    index_path = index_path if index_path is not None else default_index_path(data_path)
    try:
        index = _load(data_path, index_path, storage_options)
        if full:
            _check_entries(data_path, index, storage_options)
    except _Unusable as exc:
        raise ValueError(f"{os.fspath(index_path)}: {exc}") from None
    return index


def _check_entries(data_path: str | os.PathLike[str], index: RecordIndex, storage_options: StorageOptions) -> None:
    """Every entry's CRC32, and that stepping over the records from the first
    one meets every entry's start: each starts at a record."""
    if not index.entries:
        return
    path = local_path(data_path)
    if path is None:        # an object: each entry read once, in chunks
        with open_input(data_path, storage_options) as remote:
            for i, entry in enumerate(index.entries):
                where = Split(os.fspath(data_path), entry.start, entry.stop, entry.records, (entry,))
                try:
                    _check_streamed_entry(DEFAULT_MAX_DEPTH, remote, where, entry, DEFAULT_MAX_RECORD_SIZE)
                except DecodeError as exc:
                    raise _Unusable(f"entry {i}: {exc.reason}") from None
        return
    with open(path, "rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(data)
    try:
        for i, entry in enumerate(index.entries):
            if zlib.crc32(view[entry.start:entry.stop]) != entry.crc:
                raise _Unusable(f"stale index: the records {entry.start}..{entry.stop} "
                                "do not match the index's checksum")
            try:
                end, records = skip_records(data, entry.start, entry.records + 1, entry.stop)
            except DecodeError as exc:
                raise _Unusable(f"entry {i} does not start at a record: {exc}") from None
            if (end, records) != (entry.stop, entry.records):
                raise _Unusable(f"entry {i} or {i + 1} does not start at a record: {records} records at "
                                f"{entry.start}..{end}, the index says {entry.records} ending at {entry.stop}")
    finally:
        view.release()
        data.close()


def _load(data_path: str | os.PathLike[str], index_path: str | os.PathLike[str],
          storage_options: StorageOptions) -> RecordIndex:
    with open_input(index_path, storage_options, read_ahead=0) as handle:
        # Memory in proportion to the index: its own size is read, and an index larger
        # than any the data file could need (an entry per byte) is refused unread.
        stored = file_size(handle)
        largest = index_size(input_size(data_path, storage_options))
        if stored > largest:
            raise _Unusable(f"corrupt index: {stored} bytes, more than the index of the data file can take "
                            f"({largest})")
        index_bytes = handle.read(stored)
    try:
        index = parse_index(index_bytes)
    except CorruptIndex as exc:
        raise _Unusable(f"corrupt index: {exc}") from None
    with open_input(data_path, storage_options, read_ahead=0) as data:
        size = file_size(data)
        if size != index.data_size:
            raise _Unusable(f"stale index: the data file has {size} bytes, the index was made for {index.data_size}")
        records_start, head = read_schema_prefix(data, size, DEFAULT_MAX_DEPTH)
        data.seek(max(0, size - SAMPLE_SIZE))
        tail = data.read(SAMPLE_SIZE)
    if zlib.crc32(head[:SAMPLE_SIZE]) != index.head_crc or zlib.crc32(tail) != index.tail_crc:
        raise _Unusable("stale index: the data file's bytes changed since it was indexed")
    # The bytes before the first entry are read by no split: they must be the schema
    # document, and nothing else (an index that says otherwise would hide records).
    if index.data_start and records_start != index.data_start:
        found = f"a schema document ends at byte {records_start}" if records_start else \
            "the file does not start with a schema document"
        raise _Unusable(f"the index says the records start at byte {index.data_start}, but {found}")
    return index


def read_index(data_path: str | os.PathLike[str], index_path: str | os.PathLike[str] | None = None, *,
               storage_options: StorageOptions = None) -> RecordIndex | None:
    """The index of ``data_path`` (default ``FILE.zpi``) if it is usable, else None.

    No index file: None. An index that is corrupt or stale (made for a file of
    another size, or whose first or last 64 KiB changed): an ``IndexWarning``
    and None, so that the caller reads the file as one split.
    """
    return _read_index(data_path, index_path, storage_options, 3)


def _read_index(data_path: str | os.PathLike[str], index_path: str | os.PathLike[str] | None,
                storage_options: StorageOptions, stacklevel: int) -> RecordIndex | None:
    index_path = index_path if index_path is not None else default_index_path(data_path)
    if not exists(index_path, storage_options):
        return None
    try:
        return _load(data_path, index_path, storage_options)
    except _Unusable as exc:
        # stacklevel: the warning points at the caller of the public function.
        warnings.warn(f"{os.fspath(index_path)}: {exc}; reading {os.fspath(data_path)} as one split",
                      IndexWarning, stacklevel=stacklevel)
        return None


def file_splits(data_path: str | os.PathLike[str], index_path: str | os.PathLike[str] | None = None, *,
                target_records: int | None = None, target_bytes: int | None = None,
                storage_options: StorageOptions = None) -> list[Split]:
    """The splits of a record file: by its index (see ``RecordIndex.splits``), or one
    unindexed split for the whole file when it has no usable index. A file at a URL
    gives splits that carry ``storage_options``, read with ranged reads of their own
    bytes only."""
    path = local_path(data_path)
    options = None if path is not None else storage_options
    data_path = path if path is not None else os.fspath(data_path)
    index = _read_index(data_path, index_path, options, 3)
    if index is None:
        return [Split(data_path, 0, input_size(data_path, options), None, (), options)]
    return index.splits(data_path, target_records=target_records, target_bytes=target_bytes, storage_options=options)


def iter_split(schema: _Decoder, split: Split, type: Any = None, *, strict: bool = False,
               max_record_size: int = 1 << 28) -> Iterator[Any]:
    """The records of one split, in file order (see ``iter_split_batches``)."""
    for batch in iter_split_batches(schema, split, type, strict=strict, max_record_size=max_record_size):
        yield from batch


def iter_split_batches(schema: _Decoder, split: Split, type: Any = None, *, strict: bool = False,
                       batch_size: int = DEFAULT_BATCH, max_record_size: int = 1 << 28) -> Iterator[list[Any]]:
    """The records of one split, in lists of up to ``batch_size``.

    An indexed split is read an index entry at a time; before any of an entry's
    records is decoded its bytes are checked against the entry's CRC32 and must
    step over as exactly the entry's record count, ending at its stop. An entry
    is held in memory whole when it takes at most ``max_record_size`` bytes;
    a larger one (an index made with a large ``every_bytes``, or forged) is
    read twice in chunks instead, checked then decoded, holding a chunk and a
    record at a time. A split whose bytes are not what its index says raises
    ``DecodeError`` naming the file, the split and the offset. An unindexed
    split is the file from after a leading schema document up to ``split.stop``;
    a record there may take ``max_record_size`` bytes at most, and one that the
    split's end cuts short (a writer killed mid-write) is a ``TornTailError`` at
    its offset. On an error, the records before the failing one are yielded
    first (a last, shorter batch), then the error is raised.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, not {batch_size}")
    # registered as read: a writer of this file refuses to truncate it while it is read
    with open_input(split.path, split.storage_options, start=split.start, stop=split.stop) as handle:
        if not split.indexed:
            start = split.start
            if start == 0:
                start, _ = read_schema_prefix(handle, split.stop, schema.max_depth)
            yield from _range_batches(schema, handle, split, start, split.stop, None, type, strict, batch_size,
                                      max_record_size)
            return
        for entry in split.entries:
            if entry.stop - entry.start <= max_record_size:
                yield from _entry_batches(schema, handle, split, entry, type, strict, batch_size)
            else:
                _check_streamed_entry(schema.max_depth, handle, split, entry, max_record_size)
                yield from _range_batches(schema, handle, split, entry.start, entry.stop, entry, type, strict,
                                          batch_size, max_record_size)


def _split_error(split: Split, reason: str, path: str, offset: int | None) -> DecodeError:
    return DecodeError(f"{_where(split)}{reason}", path, offset)


def _where(split: Split) -> str:
    return f"{split.path}: split {split.start}..{split.stop}: "


def _checksum_error(split: Split, entry: IndexEntry) -> DecodeError:
    return _split_error(split, f"the records {entry.start}..{entry.stop} do not match the index's checksum "
                               "(the file changed since it was indexed)", "$", entry.start)


def _count_error(split: Split, entry: IndexEntry, records: int) -> DecodeError:
    return _split_error(split, f"{records if records <= entry.records else 'more'} records at "
                               f"{entry.start}..{entry.stop}, the index says {entry.records}", "$", entry.start)


def _entry_batches(schema: _Decoder, handle: IO[bytes], split: Split, entry: IndexEntry, type: Any,
                   strict: bool, batch_size: int) -> Iterator[list[Any]]:
    data, ends = _checked_entry(schema.max_depth, handle, split, entry, batch_size)
    start = 0
    for end in ends:
        yield from _decoded_batch(schema, split, data, start, end, entry.start, type, strict)
        start = end


def _checked_entry(max_depth: int, handle: IO[bytes], split: Split, entry: IndexEntry,
                   batch_size: int) -> tuple[bytes, list[int]]:
    """An index entry's bytes, checked (its CRC32, exactly its records), and where
    each batch of up to ``batch_size`` of its records ends."""
    size = entry.stop - entry.start
    handle.seek(entry.start)
    data = handle.read(size)
    if len(data) != size:
        raise _split_error(split, f"the file ends inside the indexed records {entry.start}..{entry.stop}",
                           "$", entry.start + len(data))
    if zlib.crc32(data) != entry.crc:
        raise _checksum_error(split, entry)
    # Where each batch ends, found by stepping over the records: the entry must
    # hold exactly its records before any is decoded.
    ends = []
    position = records = 0
    try:
        while position < size and records <= entry.records:
            position, count = skip_records(data, position, batch_size, size, max_depth)
            ends.append(position)
            records += count
    except DecodeError as exc:
        raise _split_error(split, exc.reason, exc.path, None if exc.offset is None else entry.start + exc.offset)
    if records != entry.records:
        raise _count_error(split, entry, records)
    return data, ends


class CheckedEntries:
    """``read`` of an indexed split's bytes from a file object (a split of an object at a
    URL, for the Arrow reader): each index entry is checked as ``iter_split`` checks it
    (its CRC32, exactly its records) before any byte of it is handed out. An entry
    larger than ``max_record_size`` is checked in chunks, then read again."""

    def __init__(self, handle: Any, split: Split, max_depth: int, max_record_size: int) -> None:
        self._handle = handle
        self._split = split
        self._entries = iter(split.entries)
        self._max_depth = max_depth
        self._max_record_size = max_record_size
        self._held = b""            # a checked entry, or the rest of it
        self._streamed = 0          # bytes of a large checked entry still to read from the handle

    def read(self, size: int = -1, /) -> bytes:
        while not self._held and not self._streamed:
            entry = next(self._entries, None)
            if entry is None:
                return b""
            if entry.stop - entry.start <= self._max_record_size:
                self._held = _checked_entry(self._max_depth, self._handle, self._split, entry, entry.records + 1)[0]
            else:
                _check_streamed_entry(self._max_depth, self._handle, self._split, entry, self._max_record_size)
                self._handle.seek(entry.start)
                self._streamed = entry.stop - entry.start
        if self._streamed:
            chunk: bytes = self._handle.read(min(self._streamed, size if size >= 0 else self._streamed))
            if not chunk:
                raise _split_error(self._split, "the file ended while its checked records were read again", "$",
                                   None)
            self._streamed -= len(chunk)
            return chunk
        size = len(self._held) if size < 0 else size
        chunk, self._held = self._held[:size], self._held[size:]
        return chunk


def _check_streamed_entry(max_depth: int, handle: IO[bytes], split: Split, entry: IndexEntry,
                          max_record_size: int) -> None:
    """An entry too large to hold, checked in chunks (CRC32, and exactly its records
    ending at its stop) before any of its records is decoded."""
    handle.seek(entry.start)
    remaining = entry.stop - entry.start
    crc = records = 0
    data = b""
    base = entry.start                 # the file offset of data[0]
    while remaining:
        chunk = handle.read(min(UNINDEXED_CHUNK, remaining))
        if not chunk:
            raise _split_error(split, f"the file ends inside the indexed records {entry.start}..{entry.stop}",
                               "$", entry.stop - remaining)
        remaining -= len(chunk)
        crc = zlib.crc32(chunk, crc)
        data += chunk
        try:
            end, count = skip_records(data, 0, entry.records + 1, len(data), max_depth, True)
        except DecodeError as exc:
            raise _split_error(split, exc.reason, exc.path, None if exc.offset is None else base + exc.offset)
        records += count
        if records > entry.records:
            raise _count_error(split, entry, records)
        data, base = data[end:], base + end
        if len(data) > max_record_size:
            raise _split_error(split, f"record larger than max_record_size={max_record_size}", "$", base)
    if crc != entry.crc:
        raise _checksum_error(split, entry)
    if data or records != entry.records:
        raise _count_error(split, entry, records)


def _decoded_batch(schema: _Decoder, split: Split, data: bytes, start: int, end: int, base: int, type: Any,
                   strict: bool) -> Iterator[list[Any]]:
    """The records of ``data[start:end]`` as one batch; ``base``: the file offset of
    ``data[0]``, for errors. A record that does not decode: the records before it
    (a batch of their own), then its error."""
    error: DecodeError | None = None
    with memoryview(data) as view:
        try:
            batch = schema.decode_all(view[start:end], type, strict=strict)
        except DecodeError as exc:
            error = _split_error(split, exc.reason, exc.path, None if exc.offset is None else base + start + exc.offset)
            batch = _records_before_error(schema, view, start, end, type, strict)
    if batch:
        yield batch
    if error is not None:
        raise error


def _records_before_error(schema: _Decoder, view: memoryview, start: int, end: int, type: Any,
                          strict: bool) -> list[Any]:
    records = []
    while start < end:
        try:
            record, start = schema._decode_at(view, start, type, strict, 0, end)
        except DecodeError:
            break
        records.append(record)
    return records


def _whole_records_end(data: bytes, position: int, max_depth: int) -> int:
    """Where the whole records from ``position`` end, before bytes that are not a record."""
    while True:
        try:
            end, count = skip_records(data, position, 1, len(data), max_depth, True)
        except DecodeError:
            return position
        if not count:
            return position
        position = end


def _range_batches(schema: _Decoder, handle: IO[bytes], split: Split, start: int, stop: int,
                   entry: IndexEntry | None, type: Any, strict: bool, batch_size: int,
                   max_record_size: int) -> Iterator[list[Any]]:
    """The records of the file's bytes ``start..stop``, read ``UNINDEXED_CHUNK`` bytes at
    a time (more for a record that needs it): whole records are found in them with the
    skipper and decoded in batches. ``entry``: the (checked) index entry these bytes are,
    or None for an unindexed split, whose end may cut a record short: a torn tail."""
    handle.seek(start)
    remaining = stop - start
    data = b""
    base = start              # the file offset of data[0]
    while True:
        chunk = handle.read(min(max(UNINDEXED_CHUNK, len(data)), remaining))
        remaining -= len(chunk)
        last = not chunk or not remaining
        data += chunk
        position = 0
        while position < len(data):
            try:
                end, count = skip_records(data, position, batch_size, len(data), schema.max_depth, True)
            except DecodeError as exc:      # bytes that are not records: the whole ones before them first
                end = _whole_records_end(data, position, schema.max_depth)
                if end > position:
                    yield from _decoded_batch(schema, split, data, position, end, base, type, strict)
                raise _split_error(split, exc.reason, exc.path,
                                   None if exc.offset is None else base + exc.offset) from exc
            if not count:
                break         # a record continues past the chunk
            yield from _decoded_batch(schema, split, data, position, end, base, type, strict)
            position = end
        if last:
            if position < len(data):
                if entry is None and ends_inside_record(data, position, schema.max_depth):
                    raise torn_tail_error(base + position, len(data) - position, _where(split))
                raise _split_error(split, "the input ends inside a record", "$", base + position)
            return
        data, base = data[position:], base + position
        if len(data) > max_record_size:
            raise _split_error(split, f"record larger than max_record_size={max_record_size}", "$", base)
