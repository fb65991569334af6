"""``zebrapack.arrow.read(..., threads=N)``: the sources cut into byte ranges that decode on
their own, decoded by N threads at once, the batches handed out in file order.

Where a range may start: at the entries of a file's sidecar index (``FILE.zpi``, when it is
usable) or of an indexed split, else where a boundary scan (``record_ends``, the skipper
without the GIL) finds a record ending. A planner thread lays the ranges out ahead of the
decoders, numbering each range's records from the start of the sources (the index's and the
scan's counts), so that an error in any range names the record as one thread would. Each
range is decoded by its own core reader (``ArrowRecordReader``), which decodes without the
GIL; N decoder threads take the ranges in order and each hands its batches, one at a time,
to the consumer, who takes them range after range: at most N batches being built and N
waiting, whatever the file's size.

What cannot be cut (a Python file object, an object at a URL, the bytes after the last
record the scan stepped over whole) is one range, read by one thread; the ranges after it
wait for its record count. A non-final range that ends inside a record (a forged index, a
file changed while it is read) is a ``DecodeError`` saying so; a range that holds another
record count than the index or the scan found, too.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._core import ArrowRecordReader, record_ends
from .._errors import DecodeError, TornTailError
from ..streams.index import read_index

#: A range closes once its records take this many bytes (or hold ``batch_rows`` records):
#: small enough that N threads share a file evenly, large enough that a range's reader
#: costs nothing beside its decoding.
RANGE_BYTES = 4 << 20
#: Bytes the boundary scan reads at a time (more for a record that needs it).
SCAN_CHUNK = 8 << 20
#: How often (seconds) a blocked thread looks whether the stream was closed.
_POLL = 0.05


@dataclass
class Range:
    """Records of one source that decode on their own, numbered from ``first_record``.

    ``add(reader)`` gives the reader its segments. ``records``: how many the range must
    hold (the index's or the scan's count), or None for a range that runs to its
    source's end, whose count the planner waits for. ``last``: the range ends its
    source, so a record cut short at its end is a torn tail and not a bad boundary.
    """

    add: Callable[[ArrowRecordReader], None]
    first_record: int
    records: int | None
    last: bool
    stop: int = -1                  # where the range ends (for the message of a bad boundary)
    counted: queue.Queue[int | None] | None = None     # the count of a range of unknown size


class Closed(Exception):
    """The stream was closed while a thread waited."""


class ParallelBatches:
    """The batches of the sources, decoded by ``threads`` threads, in file order.

    ``next()`` gives the next ``pyarrow.RecordBatch`` or None at the end,
    or raises the error a one-thread reader would raise there (after the same batches);
    ``close()`` stops every thread (called at the end, on an error and when dropped).
    """

    def __init__(self, plan: Callable[[Callable[[Range], None]], None], new_reader: Callable[[Range], ArrowRecordReader],
                 threads: int, pa: Any) -> None:
        self._pa = pa
        self._new_reader = new_reader
        self._closed = threading.Event()
        self._ranges: queue.Queue[Range | None] = queue.Queue(maxsize=threads)
        self._slots: deque[queue.Queue[Any]] = deque()
        self._slots_ready = threading.Condition()
        self._take = threading.Lock()           # a decoder takes its range and its slot at once
        self._plan = plan
        self._planner = threading.Thread(target=self._run_plan, name="zebrapack-arrow-plan", daemon=True)
        self._workers = [threading.Thread(target=self._work, name=f"zebrapack-arrow-{i}", daemon=True)
                         for i in range(threads)]
        self._current: queue.Queue[Any] | None = None
        self._failed: BaseException | None = None
        self._planner.start()
        for worker in self._workers:
            worker.start()

    # -- the planner ----------------------------------------------------------------------

    def _run_plan(self) -> None:
        try:
            self._plan(self._offer)
        except Closed:
            return
        except BaseException as exc:        # noqa: BLE001 - handed to the consumer in order
            self._offer_error(exc)
        self._put(self._ranges, None)

    def _offer(self, item: Range) -> None:
        self._put(self._ranges, item)

    def _offer_error(self, exc: BaseException) -> None:
        def fail(reader: ArrowRecordReader) -> None:
            raise exc
        self._put(self._ranges, Range(fail, 0, 0, True))

    def wait_count(self, item: Range) -> int:
        """The record count of a range of unknown size, once it is decoded (Closed if it failed)."""
        assert item.counted is not None
        while True:
            try:
                count = item.counted.get(timeout=_POLL)
            except queue.Empty:
                if self._closed.is_set():
                    raise Closed from None
                continue
            if count is None:
                raise Closed
            return count

    # -- the decoders ---------------------------------------------------------------------

    def _work(self) -> None:
        while not self._closed.is_set():
            with self._take:
                try:
                    item = self._get(self._ranges)
                except Closed:
                    return
                slot: queue.Queue[Any] = queue.Queue(maxsize=1)
                with self._slots_ready:
                    self._slots.append(slot)
                    self._slots_ready.notify_all()
                if item is None:
                    self._ranges.put(None)      # for the other decoders
                    slot.put(("end", None))
                    return
            try:
                self._decode(item, slot)
            except Closed:
                return

    def _decode(self, item: Range, slot: queue.Queue[Any]) -> None:
        rows = 0
        try:
            reader = self._new_reader(item)
            item.add(reader)
            while (capsules := reader.next_batch()) is not None:
                batch = self._pa.RecordBatch._import_from_c_capsule(*capsules)
                rows += batch.num_rows
                self._put(slot, ("batch", batch))
            if item.records is not None and rows != item.records:
                raise DecodeError(f"{item.records} records were found here before, {rows} now "
                                  f"(the file changed while it was read) (record {item.first_record + rows})",
                                  "$", item.stop)
        except (Closed, KeyboardInterrupt):
            if item.counted is not None:
                item.counted.put(None)
            raise
        except BaseException as exc:        # noqa: BLE001 - handed to the consumer in order
            if item.counted is not None:
                item.counted.put(None)
            self._put(slot, ("error", _bad_boundary(exc, item)))
            return
        if item.counted is not None:
            item.counted.put(rows)
        self._put(slot, ("done", None))

    # -- the consumer ---------------------------------------------------------------------

    def next(self) -> Any:
        """The next batch in file order, or None at the end."""
        if self._failed is not None:
            raise self._failed
        while True:
            if self._current is None:
                with self._slots_ready:
                    while not self._slots:
                        self._slots_ready.wait()
                    self._current = self._slots.popleft()
            kind, value = self._current.get()
            if kind == "batch":
                return value
            if kind == "done":
                self._current = None
                continue
            self.close()
            if kind == "end":
                return None
            self._failed = value
            raise value

    def close(self) -> None:
        self._closed.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def __del__(self) -> None:
        self._closed.set()

    def _put(self, target: queue.Queue[Any], item: Any) -> None:
        while True:
            if self._closed.is_set():
                raise Closed
            try:
                target.put(item, timeout=_POLL)
                return
            except queue.Full:
                continue

    def _get(self, source: queue.Queue[Any]) -> Any:
        while True:
            if self._closed.is_set():
                raise Closed
            try:
                return source.get(timeout=_POLL)
            except queue.Empty:
                continue


def _bad_boundary(exc: BaseException, item: Range) -> BaseException:
    """A torn tail at the end of a range that does not end its source is a range
    boundary inside a record: the index (or the file, changed since the scan) is wrong."""
    if isinstance(exc, TornTailError) and not item.last:
        error = DecodeError(f"the range ending at byte {item.stop} ends inside the record that starts here "
                            f"(an index entry boundary inside a record, or the file changed while it was read) "
                            f"(record {exc.record})", exc.path, exc.offset)    # type: ignore[attr-defined]
        error.record = exc.record   # type: ignore[attr-defined]
        return error
    return exc


# -- cutting the sources into ranges ---------------------------------------------------------


class Planner:
    """Lays out the ranges of the sources, in order, numbering their records."""

    def __init__(self, batch_rows: int, max_depth: int, max_record_size: int) -> None:
        self.batch_rows = batch_rows
        self.max_depth = max_depth
        self.max_record_size = max_record_size
        self.range_bytes = RANGE_BYTES
        self.scan_chunk = SCAN_CHUNK
        self.records = 0
        self.batches: ParallelBatches | None = None

    def whole(self, offer: Callable[[Range], None], add: Callable[[ArrowRecordReader], None]) -> None:
        """A source read by one reader to its end; the next ones wait for its count."""
        item = Range(add, self.records, None, True, counted=queue.Queue())
        offer(item)
        assert self.batches is not None
        self.records += self.batches.wait_count(item)

    def index_entries(self, offer: Callable[[Range], None], entries: Any, make: Callable[[Any], Callable[
            [ArrowRecordReader], None]], last: bool) -> None:
        """Ranges of whole index entries: ``make(group)`` adds a group of entries to a reader."""
        group: list[Any] = []
        records = size = 0
        for entry in entries:
            if group and (records + entry.records > self.batch_rows or size + entry.stop - entry.start > self.range_bytes):
                offer(Range(make(group), self.records, records, False, group[-1].stop))
                self.records += records
                group, records, size = [], 0, 0
            group.append(entry)
            records += entry.records
            size += entry.stop - entry.start
        if group:
            offer(Range(make(group), self.records, records, last, group[-1].stop))
            self.records += records

    def scan_file(self, offer: Callable[[Range], None], path: str, start: int, stop: int,
                  make: Callable[[int, int], Callable[[ArrowRecordReader], None]]) -> None:
        """Ranges of the file's bytes start..stop, cut where stepping over their records finds
        one ending (read in chunks into one buffer); what the scan cannot step over whole (a
        torn or malformed record, one larger than max_record_size) and all after it is one
        last range, whose reader says what is wrong."""
        position = start                    # where the next range starts
        buffer = bytearray(min(self.scan_chunk, max(stop - start, 1)))
        held = 0                            # bytes of buffer holding the file from offset position - used
        used = 0
        with open(path, "rb", buffering=0) as handle:
            handle.seek(start)
            while position < stop:
                with memoryview(buffer) as view:
                    end, count = record_ends(view[:held], used, self.batch_rows, self.range_bytes, self.max_depth)
                    if count:
                        offer(Range(make(position, position + end - used), self.records, count, False,
                                    position + end - used))
                        self.records += count
                        position += end - used
                        used = end
                        continue
                    left = held - used      # a record not held whole: read more
                    if left > self.max_record_size or position + left >= stop:
                        break
                    view[:left] = view[used:held]
                held, used = left, 0
                if held == len(buffer):
                    buffer.extend(bytes(len(buffer)))
                with memoryview(buffer) as view:
                    got = handle.readinto(view[held:held + min(len(buffer) - held, stop - position - held)]) or 0
                if not got:
                    break
                held += got
        if position < stop:
            self.whole(offer, make(position, stop))

    def scan_memory(self, offer: Callable[[Range], None], data: memoryview, start: int,
                    make: Callable[[int, int], Callable[[ArrowRecordReader], None]]) -> None:
        """Ranges of a bytes-like object from start, as ``scan_file`` cuts a file's."""
        position = start
        while position < len(data):
            end, count = record_ends(data, position, self.batch_rows, self.range_bytes, self.max_depth)
            if not count:
                break
            offer(Range(make(position, end), self.records, count, False, end))
            self.records += count
            position = end
        if position < len(data):
            self.whole(offer, make(position, len(data)))


def usable_index(path: str, start: int) -> Any:
    """The sidecar index of a local file when it is usable and starts its records at ``start``."""
    index = read_index(path)
    if index is None or index.data_start != start and index.entries:
        return None
    return index
