"""Progress of long work: records and MB/s on stderr, only for a person watching.

The line appears when stderr is a terminal and stdout is not (so it never
mixes into piped output or into records printed on that terminal), first
after ``delay`` seconds, then at most every ``interval`` seconds; it is erased
when the work ends, before any error message.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO

from ..streams.sources import available_reader, no_data_now


class MeteredInput:
    """A binary input that counts the bytes read, for the progress line.

    ``before_wait`` runs before each read, which may block on a pipe: flush
    the output there, so that what is done reaches the reader before the wait.
    Reads up to ``chunk_size`` return what has arrived (records are handled as
    they come, see ``streams.sources``); larger ones, made for the rest of a value
    known to be needed, fill up.
    """

    def __init__(self, source: IO[bytes], before_wait: Callable[[], None], chunk_size: int) -> None:
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
    """The progress line: ``update`` after each record, ``close`` (or ``with``) at the end."""

    def __init__(self, verb: str, *, stream: IO[str] | None = None, enabled: bool | None = None,
                 clock: Callable[[], float] = time.monotonic, delay: float = 1.0,
                 interval: float = 0.25) -> None:
        self._verb = verb
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = enabled if enabled is not None else _watched()
        self._clock = clock
        self._start = clock()
        self._next = self._start + delay
        self._interval = interval
        self._shown = False

    def update(self, records: int, nbytes: int) -> None:
        if not self._enabled:
            return
        now = self._clock()
        if now < self._next:
            return
        self._next = now + self._interval
        megabytes = nbytes / 1e6
        rate = megabytes / max(now - self._start, 1e-9)
        self._stream.write(f"\r\x1b[K{self._verb} {records:,} records, {megabytes:,.1f} MB, {rate:,.1f} MB/s")
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


def _watched() -> bool:
    return _isatty(sys.stderr) and not _isatty(sys.stdout)


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())
