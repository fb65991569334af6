"""Torn tails: an input that ends inside a record, as a writer killed mid-write or a
connection closed mid-record leaves it.

A tear is told from corruption by structure, never by message text: the skip scanner
(``cython/zp_skip.h``, through ``skip_records``) steps over the record and reaches the
end of the input inside it. A record that is malformed before the end is corruption
(its own ``DecodeError``); one that is whole but does not decode is too.
"""

from __future__ import annotations

import mmap

from .._core import DEFAULT_MAX_DEPTH, skip_records
from .._errors import DecodeError, TornTailError

Bytes = bytes | bytearray | memoryview | mmap.mmap


def ends_inside_record(data: Bytes, start: int, max_depth: int = DEFAULT_MAX_DEPTH) -> bool:
    """Whether ``data`` ends inside the record that starts at ``start`` (some bytes of it there)."""
    if not 0 <= start < len(data):
        return False
    try:
        _, count = skip_records(data, start, 1, len(data), max_depth, True)
    except DecodeError:
        return False
    return count == 0


def torn_tail_error(offset: int, held: int, where: str = "") -> TornTailError:
    """The error of a torn record at ``offset`` of which ``held`` bytes are there;
    ``where``: what is read (``"FILE: split A..B: "``), as the reader's other errors say it."""
    return TornTailError(f"{where}torn tail: the input ends inside the record that starts here ({held} "
                         f"byte{'' if held == 1 else 's'} of it there), where the valid data ends", "$", offset)
