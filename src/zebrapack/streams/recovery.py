"""Reading what a crashed writer left: ``recover(path)``.

A writer killed mid-write (SIGKILL, power loss, a full disk) leaves a record file
whose last record may be cut short: a torn tail. ``recover`` scans the file
without a schema (records are self-delimiting msgpack maps: the skip scanner
finds where each ends), and says where its records start, how many are
complete and where the valid data ends; iterating the result decodes every
complete record, and ``truncate()`` cuts the torn bytes off so that writing
may resume by appending. A file damaged elsewhere than at its end is not a
crash's doing: ``recover`` raises its ``DecodeError`` instead of cutting it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack

from .._core import DEFAULT_MAX_DEPTH
from ..recordio.locations import ObjectOutput, StorageOptions, file_size, local_path, open_input
from ..recordio.records import iter_records
from ..recordio.walking import RecordWalker
from ..schema.loader import Schema, load
from .schema_prefix import read_schema_prefix

#: Records stepped over per call of the scanner.
_SCAN_BATCH = 1 << 16
#: Bytes copied at a time when an object is rewritten without its torn tail.
_COPY_CHUNK = 8 << 20


@dataclass(frozen=True)
class Recovery:
    """What ``recover`` found in a record file, and its records.

    ``size``: the file's size when it was scanned; ``data_start``: where its records
    start (after a leading schema document, else 0); ``valid_end``: where the valid
    data ends, after the last complete record; ``records``: the complete records;
    ``schema``: the schema the records are read with (the one given to ``recover``,
    else the one the file carries, else None). Iterating decodes the complete
    records, in order, reading the file again.
    """

    path: str
    size: int
    data_start: int
    valid_end: int
    records: int
    schema: Schema[Any] | None
    type: Any = field(default=None, repr=False)
    strict: bool = field(default=False, repr=False)
    storage_options: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def torn(self) -> bool:
        """Whether the file ends inside a record (bytes past ``valid_end``)."""
        return self.valid_end < self.size

    @property
    def torn_bytes(self) -> int:
        return self.size - self.valid_end

    def __iter__(self) -> Iterator[Any]:
        if self.schema is None:
            raise ValueError(f"{self.path}: no schema to read the records with: give recover() one "
                             "(the file does not start with its own)")
        return _complete_records(self)

    def truncate(self) -> None:
        """Cut the file at ``valid_end``, dropping the torn tail (appending may then
        resume). Refused (``ValueError``) when the file's size changed since the scan.
        An object at a URL cannot be cut in place: it is written again, whole, with
        its first ``valid_end`` bytes (an object replaced meanwhile is an error)."""
        path = local_path(self.path)
        if path is None:
            self._rewrite()
            return
        with open(path, "r+b") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size != self.size:
                raise ValueError(f"{self.path}: the file has {size} bytes, not the {self.size} it had when "
                                 "recover() read it: scan it again")
            handle.truncate(self.valid_end)

    def _rewrite(self) -> None:
        with open_input(self.path, self.storage_options, stop=self.valid_end) as source:
            if source.size != self.size:
                raise ValueError(f"{self.path}: the object has {source.size} bytes, not the {self.size} it had "
                                 "when recover() read it: scan it again")
            output = ObjectOutput(self.path, self.storage_options)
            try:
                while chunk := source.read(_COPY_CHUNK):
                    output.write(chunk)
            except BaseException:
                output.discard()
                raise
        output.commit()


def recover(path: str | os.PathLike[str], schema: Schema[Any] | None = None, type: Any = None, *,
            strict: bool = False, storage_options: StorageOptions = None) -> Recovery:
    """Scan the record file at ``path`` as a crashed writer may have left it: every
    complete record, and the offset where the valid data ends (see ``Recovery``).

    ``schema``: the schema to read the records with (by default, the one the file
    starts with, if it was written with ``write_schema=True``); ``type`` and
    ``strict`` as ``iter_decode``'s. Records are found without the schema, each a
    msgpack map nested at most ``schema.max_depth`` (or ``DEFAULT_MAX_DEPTH``) deep;
    bytes that are not records before the end of the file are a ``DecodeError``,
    not a torn tail. ``path`` may be a URL (read with ``storage_options``, once, in
    order: memory holds a chunk and a record).
    """
    local = local_path(path)
    options = None if local is not None else storage_options
    path = local if local is not None else os.fspath(path)
    max_depth = schema.max_depth if schema is not None else DEFAULT_MAX_DEPTH
    with open_input(path, options) as handle:
        size = file_size(handle)
        data_start, head = read_schema_prefix(handle, size, max_depth)
        handle.seek(data_start)
        walker = RecordWalker(handle, data_start, size, max_depth)
        records = 0
        while count := walker.step(_SCAN_BATCH, size)[0]:
            records += count
    if schema is None and data_start:
        schema = load(msgpack.unpackb(head[:data_start], raw=False, strict_map_key=False))
    return Recovery(path, size, data_start, walker.position, records, schema, type, strict, options)


def _complete_records(recovery: Recovery) -> Iterator[Any]:
    assert recovery.schema is not None
    # registered as read: a writer of this file refuses to truncate it while it is read
    with open_input(recovery.path, recovery.storage_options, start=recovery.data_start,
                    stop=recovery.valid_end) as handle:
        source = _Bounded(handle, recovery.valid_end - recovery.data_start)
        yield from iter_records(recovery.schema, source, recovery.type, strict=recovery.strict,
                                base=recovery.data_start)


class _Bounded:
    """``read(n)`` of a file's next ``left`` bytes, then the end."""

    def __init__(self, handle: Any, left: int) -> None:
        self._handle = handle
        self._left = left

    def read(self, size: int = -1, /) -> bytes:
        size = self._left if size < 0 else min(size, self._left)
        chunk: bytes = self._handle.read(size)
        self._left -= len(chunk)
        return chunk
