"""The sidecar index of a record file (``FILE.zpi``): its binary format, and splits.

A record file is records concatenated with no sync markers, so a reader cannot
start in the middle of one. The index lists where every N-th record starts,
which lets one file be read as several independent splits. The format is in
``docs/index-format.md``; in short (all integers little-endian)::

    header   72 bytes: magic "ZPKINDEX", version, flags, the data file's size,
             where its first record starts, its record count, the entry count,
             the build parameters, CRC32s of its first and last 64 KiB
    entries  16 bytes each: segment start (u64), records (u32), CRC32 of the segment
    trailer  8 bytes: CRC32 of everything before it, then "ZPKI"

This module only encodes, decodes and validates; ``index.py`` builds indexes
from files, checks them against their data and reads splits.
"""

from __future__ import annotations

import os
import secrets
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .locations import local_path, write_bytes

MAGIC = b"ZPKINDEX"
END_MAGIC = b"ZPKI"
VERSION = 1
#: Header flag: the data file starts with its schema document (``write_schema=True``).
FLAG_SCHEMA_PREFIX = 1
#: Bytes at each end of the data file whose CRC32 the header keeps (the open-time staleness check).
SAMPLE_SIZE = 64 << 10
#: An index entry every this many records by default,
DEFAULT_EVERY = 65536
#: or as soon as an entry's records reach this many bytes, whichever comes first.
DEFAULT_EVERY_BYTES = 16 << 20
#: The default index path is the data file's path plus this.
SUFFIX = ".zpi"

_HEADER = struct.Struct("<8sHHIQQQQQQII")
_ENTRY = struct.Struct("<QII")
_TRAILER = struct.Struct("<I4s")
_MAX_U32 = 0xFFFFFFFF


class CorruptIndex(ValueError):
    """An index file that is not a well-formed index (its reason says why)."""


class IndexEntry(NamedTuple):
    """One segment of the data file: records ``start``..``stop``, their count and CRC32."""

    start: int
    stop: int
    records: int
    crc: int


@dataclass(frozen=True)
class Split:
    """A byte range of a record file that decodes on its own (see ``iter_split``).

    ``records`` and ``entries`` (the index entries it covers, checked as they
    are read) are known when the split comes from an index; an unindexed split
    (the whole file) has ``records=None`` and no entries. Splits pickle, so
    they can be planned in one process and read in another. A split of a file at a
    URL carries the ``storage_options`` it is opened with (not shown by ``repr``:
    they may hold credentials).
    """

    path: str
    start: int
    stop: int
    records: int | None
    entries: tuple[IndexEntry, ...] = ()
    storage_options: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def indexed(self) -> bool:
        return bool(self.entries)


def default_index_path(data_path: str | os.PathLike[str]) -> str:
    """Where the index of ``data_path`` goes by default: beside it, ``FILE.zpi``."""
    return os.fspath(data_path) + SUFFIX


def check_every(every: int, every_bytes: int) -> None:
    """Refuse index parameters the format cannot hold."""
    if not 1 <= every <= _MAX_U32:
        raise ValueError(f"every must be between 1 and {_MAX_U32} records, not {every}")
    if every_bytes < 1:
        raise ValueError(f"every_bytes must be positive, not {every_bytes}")


@dataclass(frozen=True)
class RecordIndex:
    """The index of one record file: its entries and what it knows of the file."""

    data_size: int
    data_start: int              # where the first record starts (after a schema document)
    record_count: int
    entries: tuple[IndexEntry, ...]
    every: int
    every_bytes: int
    head_crc: int                # CRC32 of the data file's first min(size, SAMPLE_SIZE) bytes
    tail_crc: int                # and of its last ones

    @property
    def schema_prefix(self) -> bool:
        return self.data_start > 0

    def splits(self, path: str | os.PathLike[str], *, target_records: int | None = None,
               target_bytes: int | None = None, storage_options: Mapping[str, Any] | None = None) -> list[Split]:
        """Splits of the data file at ``path`` covering every record once, in order.

        Consecutive entries merge until a split holds ``target_records`` records
        or ``target_bytes`` bytes (whichever comes first); with neither, one
        split per entry. A file without records has no splits.
        """
        for name, target in (("target_records", target_records), ("target_bytes", target_bytes)):
            if target is not None and target < 1:
                raise ValueError(f"{name} must be positive, not {target}")
        path = os.fspath(path)
        splits: list[Split] = []
        group: list[IndexEntry] = []
        records = 0
        for entry in self.entries:
            group.append(entry)
            records += entry.records
            if (target_records is None and target_bytes is None
                    or target_records is not None and records >= target_records
                    or target_bytes is not None and entry.stop - group[0].start >= target_bytes):
                splits.append(Split(path, group[0].start, entry.stop, records, tuple(group), storage_options))
                group, records = [], 0
        if group:
            splits.append(Split(path, group[0].start, group[-1].stop, records, tuple(group), storage_options))
        return splits

    def to_bytes(self) -> bytes:
        flags = FLAG_SCHEMA_PREFIX if self.schema_prefix else 0
        parts = [_HEADER.pack(MAGIC, VERSION, flags, 0, self.data_size, self.data_start, self.record_count,
                              len(self.entries), self.every, self.every_bytes, self.head_crc, self.tail_crc)]
        parts += [_ENTRY.pack(entry.start, entry.records, entry.crc) for entry in self.entries]
        body = b"".join(parts)
        return body + _TRAILER.pack(zlib.crc32(body), END_MAGIC)


def write_index(index: RecordIndex, path: str | os.PathLike[str],
                storage_options: Mapping[str, Any] | None = None) -> None:
    """Write ``index`` to ``path``, replacing it atomically (a reader never sees half an index).

    The bytes go first to a temporary file beside it whose name is hidden
    (``.NAME.PID.RANDOM.tmp``): folder listings and globs leave hidden files out, so
    the one a writer killed here leaves behind is never taken for a record file.
    A URL's index is written as a whole object (``sources.write_bytes``).
    """
    local = local_path(path)
    if local is None:
        write_bytes(os.fspath(path), index.to_bytes(), storage_options)
        return
    path = local
    folder, name = os.path.split(os.fspath(path))
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(index.to_bytes())
        os.replace(temporary, path)
    except BaseException as exc:
        if os.path.exists(temporary):
            os.unlink(temporary)
        if isinstance(exc, OSError) and exc.filename == temporary:
            exc.filename = os.fspath(path)      # the error is the index's (its folder, its disk)
        raise


def index_size(entry_count: int) -> int:
    """The size in bytes of an index of ``entry_count`` entries."""
    return _HEADER.size + entry_count * _ENTRY.size + _TRAILER.size


def parse_index(data: bytes) -> RecordIndex:
    """Decode and validate an index file's bytes; ``CorruptIndex`` says what is wrong.

    Nothing is allocated before the entry count is checked against ``len(data)``.
    """
    if len(data) < index_size(0):
        raise CorruptIndex(f"{len(data)} bytes is too short for an index")
    (magic, version, flags, reserved, data_size, data_start, record_count, entry_count,
     every, every_bytes, head_crc, tail_crc) = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise CorruptIndex("not a zebrapack index (bad magic)")
    if version != VERSION:
        raise CorruptIndex(f"index format version {version}; this zebrapack reads version {VERSION}")
    if entry_count > len(data) or index_size(entry_count) != len(data):
        raise CorruptIndex(f"{len(data)} bytes do not hold the {entry_count} entries the header announces")
    crc, end_magic = _TRAILER.unpack_from(data, len(data) - _TRAILER.size)
    if end_magic != END_MAGIC or crc != zlib.crc32(memoryview(data)[:len(data) - _TRAILER.size]):
        raise CorruptIndex("the index's own checksum does not match (damaged or truncated)")
    if flags & ~FLAG_SCHEMA_PREFIX or reserved:
        raise CorruptIndex(f"unknown flags {flags:#x} / reserved field {reserved}")
    if bool(flags & FLAG_SCHEMA_PREFIX) != (data_start > 0) or data_start > data_size:
        raise CorruptIndex(f"first record at {data_start} does not fit the flags or a {data_size}-byte file")
    try:
        check_every(every, every_bytes)
    except ValueError as exc:
        raise CorruptIndex(str(exc)) from None
    fields = [_ENTRY.unpack_from(data, _HEADER.size + i * _ENTRY.size) for i in range(entry_count)]
    entries = []
    expected_start = data_start
    for i, (start, records, entry_crc) in enumerate(fields):
        stop = fields[i + 1][0] if i + 1 < entry_count else data_size
        # Every record takes a byte at least, and the entries tile the records exactly.
        if start != expected_start or not 1 <= records <= min(every, stop - start):
            raise CorruptIndex(f"entry {i} ({records} records at {start}..{stop}) is inconsistent "
                               f"with the entries before it or the file size")
        entries.append(IndexEntry(start, stop, records, entry_crc))
        expected_start = stop
    if expected_start != data_size or sum(entry.records for entry in entries) != record_count:
        raise CorruptIndex(f"the entries do not cover the file's {data_size - data_start} bytes "
                           f"of {record_count} records")
    return RecordIndex(data_size, data_start, record_count, tuple(entries), every, every_bytes, head_crc, tail_crc)


class IndexRecorder:
    """Builds the index of a file as it is written: told where each record ends
    and given the file's bytes in order (``RecordWriter(index=...)``).

    The bytes of a record may come later than its end (writers buffer), so
    closed segments wait in ``_closed`` until their bytes are all seen.
    """

    def __init__(self, data_start: int, every: int = DEFAULT_EVERY, every_bytes: int = DEFAULT_EVERY_BYTES) -> None:
        check_every(every, every_bytes)
        self._every = every
        self._every_bytes = every_bytes
        self._data_start = data_start
        self._start = data_start        # the open segment
        self._records = 0
        self._closed: list[tuple[int, int, int]] = []     # (start, stop, records), CRC not yet known
        self._entries: list[IndexEntry] = []
        self._crc = 0                   # of the bytes seen of the first segment not in _entries
        self._seen = 0                  # bytes of the file seen
        self._head = bytearray()
        self._tail = bytearray()

    def record_end(self, end: int) -> None:
        self._records += 1
        if self._records >= self._every or end - self._start >= self._every_bytes:
            self._closed.append((self._start, end, self._records))
            self._start = end
            self._records = 0

    def data(self, chunk: bytes | bytearray | memoryview) -> None:
        view = memoryview(chunk).cast("B")
        if len(self._head) < SAMPLE_SIZE:
            self._head += view[:SAMPLE_SIZE - len(self._head)]
        self._tail += view[-SAMPLE_SIZE:]
        del self._tail[:-SAMPLE_SIZE]
        at = self._seen
        self._seen += len(view)
        if at < self._data_start:       # the schema document belongs to no segment
            skip = min(len(view), self._data_start - at)
            view, at = view[skip:], at + skip
        taken = 0
        for start, stop, records in self._closed:
            if stop > self._seen:
                break
            self._entries.append(IndexEntry(start, stop, records, zlib.crc32(view[:stop - at], self._crc)))
            view, at, self._crc = view[stop - at:], stop, 0
            taken += 1
        del self._closed[:taken]
        self._crc = zlib.crc32(view, self._crc)

    def finish(self) -> RecordIndex:
        """The index of the file written so far (every record's bytes seen)."""
        if self._records:
            self._closed.append((self._start, self._seen, self._records))
            self._start, self._records = self._seen, 0
        self.data(b"")                  # settles the CRC of a segment whose bytes are all seen
        if self._closed or self._start != self._seen:
            raise ValueError("the index recorder was not given every record's bytes")
        entries = tuple(self._entries)
        return RecordIndex(self._seen, self._data_start, sum(entry.records for entry in entries), entries,
                           self._every, self._every_bytes, zlib.crc32(self._head), zlib.crc32(self._tail))
