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

import mmap
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgpack

from .._core import DEFAULT_MAX_DEPTH, skip_records
from ..schema.loader import Schema, load
from .reading import register_file_object
from .records import iter_records
from .schema_prefix import schema_prefix_end

#: Records stepped over per call of the scanner.
_SCAN_BATCH = 1 << 16


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
        resume). Refused (``ValueError``) when the file's size changed since the scan."""
        with open(self.path, "r+b") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size != self.size:
                raise ValueError(f"{self.path}: the file has {size} bytes, not the {self.size} it had when "
                                 "recover() read it: scan it again")
            handle.truncate(self.valid_end)


def recover(path: str | os.PathLike[str], schema: Schema[Any] | None = None, type: Any = None, *,
            strict: bool = False) -> Recovery:
    """Scan the record file at ``path`` as a crashed writer may have left it: every
    complete record, and the offset where the valid data ends (see ``Recovery``).

    ``schema``: the schema to read the records with (by default, the one the file
    starts with, if it was written with ``write_schema=True``); ``type`` and
    ``strict`` as ``iter_decode``'s. Records are found without the schema, each a
    msgpack map nested at most ``schema.max_depth`` (or ``DEFAULT_MAX_DEPTH``) deep;
    bytes that are not records before the end of the file are a ``DecodeError``,
    not a torn tail.
    """
    path = os.fspath(path)
    max_depth = schema.max_depth if schema is not None else DEFAULT_MAX_DEPTH
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        data: mmap.mmap | bytes = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    try:
        data_start = schema_prefix_end(data, max_depth)
        position, records = data_start, 0
        while position < size:
            position, count = skip_records(data, position, _SCAN_BATCH, size, max_depth, True)
            if not count:
                break
            records += count
        if schema is None and data_start:
            schema = load(msgpack.unpackb(data[:data_start], raw=False, strict_map_key=False))
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
    return Recovery(path, size, data_start, position, records, schema, type, strict)


def _complete_records(recovery: Recovery) -> Iterator[Any]:
    assert recovery.schema is not None
    with open(recovery.path, "rb") as handle:
        register_file_object(handle)    # a writer of this file refuses to truncate it while it is read
        handle.seek(recovery.data_start)
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
