"""Stepping over the records of a file read in chunks, without a schema: what
``build_index`` and ``recover`` do over a whole file, here for any binary file object
(a local file, or an object store's ``RemoteFile``) so that memory holds a chunk and
one record, never the file.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

from .._core import skip_records
from .._errors import DecodeError

#: Bytes read at a time (more for a record that outgrows it).
WALK_CHUNK = 8 << 20


class RecordWalker:
    """The records of ``handle`` from file offset ``position`` (where it is positioned)
    up to ``size``, stepped over in order with ``step``.

    ``on_read(chunk)`` sees every chunk read, in order (progress, samples of the bytes).
    A record that is not a msgpack map nested at most ``max_depth`` deep is a
    ``DecodeError`` at its file offset; one that the end of the file cuts short stops
    the walk before it (``position`` then says where the valid data ends).
    """

    def __init__(self, handle: Any, position: int, size: int, max_depth: int,
                 on_read: Callable[[bytes], None] | None = None, chunk_size: int = WALK_CHUNK) -> None:
        self._handle = handle
        self.position = position        # the file offset of _buffer[_at]
        self._left = size - position    # bytes not read yet
        self._max_depth = max_depth
        self._on_read = on_read
        self._chunk_size = chunk_size
        self._buffer = bytearray()
        self._at = 0                    # where the records not stepped over start in _buffer

    def step(self, max_records: int, max_end: int, crc: int | None = None) -> tuple[int, int]:
        """Step over up to ``max_records`` whole records, stopping after the first that
        ends at or past file offset ``max_end``: (records, ``crc`` carried on over their
        bytes, when given, else 0). No record: the end of the file (or a record it cuts
        short) is reached."""
        while True:
            try:
                end, count = skip_records(self._buffer, self._at, max_records,
                                          self._at + max(0, max_end - self.position), self._max_depth, True)
            except DecodeError as exc:
                offset = None if exc.offset is None else self.position + exc.offset - self._at
                raise DecodeError(exc.reason, exc.path, offset) from None
            if count:
                if crc is not None:
                    with memoryview(self._buffer) as view:
                        crc = zlib.crc32(view[self._at:end], crc)
                self.position += end - self._at
                self._at = end
                return count, crc or 0
            if not self._read():
                return 0, crc or 0

    def _read(self) -> bool:
        """Read the next chunk (at least as much as held: a record that outgrows the
        chunk is stepped over a bounded number of times); False at the end."""
        held = len(self._buffer) - self._at
        want = min(self._left, max(self._chunk_size, held))
        if want <= 0:
            return False
        chunk = self._handle.read(want)
        if not chunk:
            self._left = 0
            return False
        self._left -= len(chunk)
        if self._on_read is not None:
            self._on_read(chunk)
        del self._buffer[:self._at]
        self._at = 0
        self._buffer += chunk
        return True
