"""Progress of long work on stderr, only for a person watching: the percentage done and
the time left when the size of the input is known (a file, an object), records and MB/s
otherwise (a pipe).

The line appears when stderr is a terminal and stdout is not (so it never mixes into
piped output or into records printed on that terminal; a command that prints no
records, such as ``index`` or ``convert``, shows it whenever stderr is a terminal),
first after ``delay`` seconds, then at most every ``interval`` seconds; it is erased
when the work ends, before any error message or summary.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from ..recordio.byte_sources import available_reader, no_data_now


class MeteredInput:
    """A binary input that counts the bytes read, for the progress line.

    ``before_wait`` runs before each read, which may block on a pipe: flush
    the output there, so that what is done reaches the reader before the wait.
    Reads up to ``chunk_size`` return what has arrived (records are handled as
    they come, see ``recordio.byte_sources``); larger ones, made for the rest of a value
    known to be needed, fill up.
    """

    def __init__(self, source: Any, before_wait: Callable[[], None], chunk_size: int) -> None:
        self._source = source
        self._read_available = available_reader(source, chunk_size)
        self._before_wait = before_wait
        self._chunk_size = chunk_size
        self.bytes_read = 0

    def read(self, size: int = -1, /) -> bytes:
        self._before_wait()
        if 0 <= size <= self._chunk_size:
            data = bytes(self._read_available(size))
        else:
            data = self._source.read(size)
            if data is None:
                raise no_data_now(self._source)
        self.bytes_read += len(data)
        return data


class Progress:
    """The progress line: ``update`` after each record (or chunk), ``close`` (or ``with``)
    at the end. ``total``: the bytes the work reads, when known. ``records_out``:
    whether the command prints records on stdout (then a terminal there hides the line)."""

    def __init__(self, verb: str, *, total: int | None = None, stream: IO[str] | None = None,
                 enabled: bool | None = None, clock: Callable[[], float] = time.monotonic, delay: float = 1.0,
                 interval: float = 0.25, records_out: bool = True) -> None:
        self._verb = verb
        self._total = total if total else None
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = enabled if enabled is not None else _watched(records_out)
        self._clock = clock
        self._start = clock()
        self._next = self._start + delay
        self._interval = interval
        self._shown = False

    def update(self, records: int | None, nbytes: int) -> None:
        """``records`` done (None: not counted) after reading ``nbytes`` of the input."""
        if not self._enabled:
            return
        now = self._clock()
        if now < self._next:
            return
        self._next = now + self._interval
        elapsed = max(now - self._start, 1e-9)
        megabytes = nbytes / 1e6
        rate = megabytes / elapsed
        counted = "" if records is None else f" {records:,} records,"
        if self._total is None:
            line = f"{self._verb}{counted} {megabytes:,.1f} MB, {rate:,.1f} MB/s"
        else:
            done = min(nbytes / self._total, 1.0)
            left = elapsed * (1 - done) / done if done > 0 else None
            line = (f"{self._verb} {100 * done:.0f}%,{counted} {megabytes:,.1f} of {self._total / 1e6:,.1f} MB, "
                    f"{rate:,.1f} MB/s, {_duration(left)} left")
        self._stream.write(f"\r\x1b[K{line}")
        self._stream.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _duration(seconds: float | None) -> str:
    """``1h 02m``, ``3m 36s``, ``12s``, or ``?`` (nothing done yet to tell)."""
    if seconds is None:
        return "?"
    whole = int(seconds + 0.5)
    if whole >= 3600:
        return f"{whole // 3600}h {whole % 3600 // 60:02d}m"
    if whole >= 60:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole}s"


def input_size(source: Any) -> int | None:
    """The size of what a binary input holds, when it is known: a regular file (standard
    input redirected from one too; from its current position) or an object at a URL."""
    size = getattr(source, "size", None)
    if isinstance(size, int):
        return size - int(source.tell())
    try:
        status = os.fstat(source.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    if not stat.S_ISREG(status.st_mode):
        return None
    try:
        return max(0, status.st_size - int(source.tell()))
    except (AttributeError, OSError, ValueError):
        return status.st_size


def _watched(records_out: bool = True) -> bool:
    return _isatty(sys.stderr) and not (records_out and _isatty(sys.stdout))


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())
