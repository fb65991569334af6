"""``zebrapack.arrow.read(..., threads=N)``: the sources cut into byte ranges that decode on
their own, decoded by N threads at once, the batches handed out in file order.

Where a range may start: at the entries of a file's sidecar index (``FILE.zpi``, when it is
usable) or of an indexed split; in a file or a bytes-like object without one, at a guessed
boundary (about every ``RANGE_BYTES``, where a run of records steps over whole: no serial
scan of every record), which the range before it checks (it must end exactly there). A
wrong guess is read on from the record crossing it: the rest of that source is cut again
where a boundary scan (``record_ends``, the skipper without the GIL) finds records ending,
and decoded by N threads of its own while the ranges laid out from the wrong guess on are
dropped. A planner thread lays the ranges out ahead of the decoders; each range is decoded by its own core reader
(``ArrowRecordReader``), which decodes without the GIL; N decoder threads take the ranges
in order and each hands its batches, one at a time, to the consumer, who takes them range
after range: at most N batches being built and ``SLOT`` x N waiting, whatever the file's size. The
consumer counts the rows it hands out, so an error of any range is numbered from the start
of the sources, as one thread numbers it.

What cannot be cut (a Python file object, an object at a URL, the bytes after the last
record a scan stepped over whole) is one range, read by one thread. A range that ends
inside a record where the boundary was not guessed (a forged index, a file changed while
it is read) is a ``DecodeError`` saying so; a range that holds another record count than
the index or the scan found, too.
"""

from __future__ import annotations

import queue
import re
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .._core import ArrowRecordReader, record_ends
from .._errors import DecodeError, TornTailError
from ..streams.index import read_index

#: A range closes once its records take this many bytes: small enough that N threads
#: share a file evenly, large enough that a range's reader costs nothing beside its
#: decoding. Ranges of a large source (guessed or of index entries) are longer, a 32nd of
#: it up to ``4 * RANGE_BYTES``: each range has its reader, its slot and its first batch's
#: buffers to find, and a guessed one ends in a batch cut short, so fewer ranges cost less
#: (a 1 GB file: 305 batches instead of 488, 4% less CPU, guessed; 64 ranges instead of 255
#: with an index, 7% less CPU for two threads).
RANGE_BYTES = 4 << 20
#: Bytes the boundary scan reads at a time (more for a record that needs it).
SCAN_CHUNK = 8 << 20
#: How often (seconds) a blocked thread looks whether the stream was closed.
_POLL = 0.05
#: Finished batches a decoder thread may hold waiting their turn, over all its ranges
#: (each thread's budget). A thread whose range comes after another's waits until the
#: consumer reaches it; holding two, it keeps decoding while the range before it ends
#: (1 GB, two threads: about 1.55-1.65x one thread with one held, 1.65-1.8x with two).
SLOT = 2
#: A range holds at most this many batches' worth of records (``batch_rows`` each, about
#: ``batch_bytes`` each): a thread whose range waits behind another's holds ``SLOT`` of
#: them finished, so a range of many more (small batches: ``batch_rows=16384`` made 16
#: a range of A records) had it wait for most of the range before its own, and two
#: threads read no faster than one. Letting it hold more was slower (its batches fall
#: out of the caches before the consumer takes them).
RANGE_BATCHES = 4
#: Records the guessed ranges' batch count is estimated from, at a source's start.
SAMPLE_RECORDS = 256


@dataclass
class Range:
    """Records of one source that decode on their own.

    ``add(reader)`` gives the reader its segments. ``records``: how many the range must
    hold (the index's or the scan's count), or None. ``last``: the range ends its
    source, so a record cut short at its end is a torn tail and not a bad boundary.
    ``rest(start)``: for a range whose end was guessed, the plan of its source from
    ``start`` on (ranges cut by a boundary scan), decoded when the guess was wrong;
    ``source`` numbers the sources, so that the ranges after a wrong guess are dropped.
    """

    add: Callable[[ArrowRecordReader], None]
    records: int | None
    last: bool
    stop: int = -1                  # where the range ends (for the message of a bad boundary)
    rest: Callable[[int], Plan] | None = None
    source: int = 0


#: Lays ranges out, in order, by handing each to its argument.
Plan = Callable[[Callable[[Range], None]], None]


class _WrongGuess(Exception):
    """A guessed range boundary inside a record: the record that crosses it starts at ``offset``."""

    def __init__(self, offset: int, item: Range) -> None:
        super().__init__(offset)
        self.offset = offset
        self.item = item


class Closed(Exception):
    """The stream was closed while a thread waited."""


class ParallelBatches:
    """The batches of the sources, decoded by ``threads`` threads, in file order.

    ``next()`` gives the next ``pyarrow.RecordBatch`` or None at the end,
    or raises the error a one-thread reader would raise there (after the same batches);
    ``close()`` stops every thread (called at the end, on an error and when dropped).
    """

    def __init__(self, plan: Plan, new_reader: Callable[[Range], ArrowRecordReader],
                 threads: int, pa: Any) -> None:
        self._pa = pa
        self._new_reader = new_reader
        self._threads = threads
        self._rest: ParallelBatches | None = None      # the rest of a source after a wrong guess
        self._last_reader = threading.local()           # each thread's last reader
        self._closed = threading.Event()
        self._ranges: queue.Queue[Range | None] = queue.Queue(maxsize=threads)
        # each range's slot, in order, with the budget of the thread that fills it
        self._slots: deque[tuple[Range | None, queue.Queue[Any], threading.Semaphore]] = deque()
        self._slots_ready = threading.Condition()
        self._take = threading.Lock()           # a decoder takes its range and its slot at once
        self._plan = plan
        self._planner = threading.Thread(target=self._run_plan, name="zebrapack-arrow-plan", daemon=True)
        self._workers = [threading.Thread(target=self._work, name=f"zebrapack-arrow-{i}", daemon=True)
                         for i in range(threads)]
        self._current: queue.Queue[Any] | None = None
        self._current_budget = threading.Semaphore(SLOT)
        self._failed: BaseException | None = None
        self._delivered = 0                 # rows handed out: the record number of an error
        self._inline: Iterator[tuple[str, Any]] | None = None
        self._dropping = -1                 # the source whose ranges after a wrong guess are dropped
        self._planner.start()
        for worker in self._workers:
            worker.start()

    # -- the planner ----------------------------------------------------------------------

    def _run_plan(self) -> None:
        try:
            try:
                self._plan(self._offer)
            except Closed:
                return
            except BaseException as exc:        # noqa: BLE001 - handed to the consumer in order
                self._offer_error(exc)
            self._put(self._ranges, None)
        except Closed:          # the consumer is gone
            return

    def _offer(self, item: Range) -> None:
        self._put(self._ranges, item)

    def _offer_error(self, exc: BaseException) -> None:
        def fail(reader: ArrowRecordReader) -> None:
            raise exc
        self._put(self._ranges, Range(fail, None, True))

    # -- the decoders ---------------------------------------------------------------------

    def _work(self) -> None:
        budget = threading.Semaphore(SLOT)      # this thread's batches waiting, in all its slots
        while not self._closed.is_set():
            with self._take:
                try:
                    item = self._get(self._ranges)
                except Closed:
                    return
                slot: queue.Queue[Any] = queue.Queue()
                with self._slots_ready:
                    self._slots.append((item, slot, budget))
                    self._slots_ready.notify_all()
                if item is None:
                    self._ranges.put(None)      # for the other decoders
                    slot.put(("end", None))
                    return
            try:
                self._decode(item, slot, budget)
            except Closed:
                return

    def _decode(self, item: Range, slot: queue.Queue[Any], budget: threading.Semaphore) -> None:
        try:
            rows = 0
            for batch in self._batches(item):
                rows += batch.num_rows
                self._acquire(budget)
                slot.put(("batch", batch))
            if item.records is not None and rows != item.records:
                error = DecodeError(f"{item.records} records were counted here before (by the index or a scan "
                                    f"of the file), {rows} now (a wrong index, or the file changed while it "
                                    f"was read) (record {rows})", "$", item.stop)
                error.record = rows     # type: ignore[attr-defined]
                raise error
        except (Closed, KeyboardInterrupt):
            raise
        except BaseException as exc:        # noqa: BLE001 - handed to the consumer in order
            self._put(slot, ("error", _bad_boundary(exc, item)))
            return
        self._put(slot, ("done", None))

    def _batches(self, item: Range) -> Iterator[Any]:
        reader = self._new_reader(item)
        previous = getattr(self._last_reader, "reader", None)
        if previous is not None:        # this thread's last range: its batches' sizes
            reader.follow(previous)
        self._last_reader.reader = reader
        item.add(reader)
        while (capsules := reader.next_batch()) is not None:
            yield self._pa.RecordBatch._import_from_c_capsule(*capsules)

    # -- the consumer ---------------------------------------------------------------------

    def next(self) -> Any:
        """The next batch in file order, or None at the end."""
        if self._failed is not None:
            raise self._failed
        kind: str
        value: Any
        while True:
            if self._inline is not None:        # after a wrong guess: the rest of its source, here
                kind, value = next(self._inline, ("done", None))
                if kind == "done":
                    self._inline = None
                    continue
            else:
                if self._current is None:
                    with self._slots_ready:
                        while not self._slots:
                            self._slots_ready.wait()
                        item, self._current, self._current_budget = self._slots.popleft()
                    if item is not None and item.source == self._dropping:
                        self._drain(self._current, self._current_budget)
                        self._current = None
                        continue
                kind, value = self._current.get()
                if kind == "batch":
                    self._current_budget.release()
                if kind == "done":
                    self._current = None
                    continue
                if kind == "error" and isinstance(value, _WrongGuess):
                    self._recover(value)
                    continue
            if kind == "batch":
                self._delivered += value.num_rows
                return value
            self.close()
            if kind == "end":
                return None
            self._failed = _renumbered(value, self._delivered)
            raise self._failed

    def _recover(self, guess: _WrongGuess) -> None:
        """A guessed boundary was inside a record: the records up to it are delivered; the
        rest of that source, from the record crossing it, is cut by a boundary scan (whose
        boundaries are found, not guessed) and decoded by threads of its own, its batches
        handed out here; the ranges laid out from the wrong guess on are dropped. Its
        threads take the cores while this stream's wait on their full slots."""
        assert guess.item.rest is not None
        self._current = None
        self._dropping = guess.item.source
        self._rest = rest = ParallelBatches(guess.item.rest(guess.offset), self._new_reader, self._threads, self._pa)

        def batches() -> Iterator[tuple[str, Any]]:
            try:
                while (batch := rest.next()) is not None:
                    yield "batch", batch
            except BaseException as exc:        # noqa: BLE001 - raised in order by next()
                yield "error", exc
                return
            finally:
                rest.close()
            yield "done", None
        self._inline = batches()

    def _drain(self, slot: queue.Queue[Any], budget: threading.Semaphore) -> None:
        while slot.get()[0] == "batch":
            budget.release()

    def close(self, wait: bool = True) -> None:
        """Stop every thread; with ``wait``, return once they have ended (a decoder ends
        after the batch it builds), so a stream read to its end or closed leaves none
        running. A finalizer does not wait: it may run on one of these threads."""
        self._closed.set()
        if self._rest is not None:
            self._rest.close(wait)
        if wait:
            me = threading.current_thread()
            for thread in (self._planner, *self._workers):
                if thread is not me:
                    thread.join()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def __del__(self) -> None:
        self.close(wait=False)

    def _acquire(self, budget: threading.Semaphore) -> None:
        while not budget.acquire(timeout=_POLL):
            if self._closed.is_set():
                raise Closed

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


def _renumbered(exc: BaseException, records: int) -> BaseException:
    """A range reader's error with its record numbered from the start of the sources
    (every record before it was delivered: ``records``)."""
    local = getattr(exc, "record", None)
    if not isinstance(exc, DecodeError) or local is None or local == records:
        return exc
    reason = exc.reason
    suffix = f" (record {local})"
    if reason.endswith(suffix):
        reason = reason[:-len(suffix)] + f" (record {records})"
    renumbered = type(exc)(reason, exc.path, exc.offset)
    renumbered.record = records     # type: ignore[attr-defined]
    return renumbered


def _bad_boundary(exc: BaseException, item: Range) -> BaseException:
    """A torn tail at the end of a range that does not end its source is a range
    boundary inside a record: a guessed one is retried from that record, else the index
    (or the file, changed since the scan) is wrong."""
    if isinstance(exc, TornTailError) and not item.last and item.rest is not None and exc.offset is not None:
        return _WrongGuess(exc.offset, item)
    if isinstance(exc, TornTailError) and not item.last:
        error = DecodeError(f"the range ending at byte {item.stop} ends inside the record that starts here "
                            f"(an index entry boundary inside a record, or the file changed while it was read) "
                            f"(record {exc.record})", exc.path, exc.offset)    # type: ignore[attr-defined]
        error.record = exc.record   # type: ignore[attr-defined]
        return error
    return exc


# -- cutting the sources into ranges ---------------------------------------------------------


class Planner:
    """Lays out the ranges of the sources, in order (``source`` counts them)."""

    def __init__(self, batch_rows: int, max_depth: int, max_record_size: int, batch_bytes: int = 64 << 20) -> None:
        self.batch_rows = batch_rows
        self.batch_bytes = batch_bytes
        self.max_depth = max_depth
        self.max_record_size = max_record_size
        self.range_bytes = RANGE_BYTES
        self.scan_chunk = SCAN_CHUNK
        self.source = -1

    def next_source(self) -> None:
        self.source += 1

    def whole(self, offer: Callable[[Range], None], add: Callable[[ArrowRecordReader], None]) -> None:
        """A source read by one reader to its end."""
        offer(Range(add, None, True, source=self.source))

    def range_step(self, span: int, record_bytes: float = 0.0) -> int:
        """How many bytes a range of a source of ``span`` bytes holds (``RANGE_BYTES``), at
        most ``RANGE_BATCHES`` batches of records of about ``record_bytes`` (a quarter of
        ``RANGE_BYTES`` at least)."""
        step = min(max(self.range_bytes, span // 32), 4 * self.range_bytes)
        batches = RANGE_BATCHES * min(self.batch_bytes, self.batch_rows * record_bytes or self.batch_bytes)
        return int(max(min(step, batches), self.range_bytes // 4))

    def index_entries(self, offer: Callable[[Range], None], entries: Any, make: Callable[[Any], Callable[
            [ArrowRecordReader], None]], last: bool) -> None:
        """Ranges of whole index entries: ``make(group)`` adds a group of entries to a reader."""
        group: list[Any] = []
        records = size = 0
        entries = list(entries)
        step = self.range_step(entries[-1].stop - entries[0].start if entries else 0)
        most = max(RANGE_BATCHES * self.batch_rows, 1)
        for entry in entries:
            if group and (size + entry.stop - entry.start > step or records + entry.records > most):
                offer(Range(make(group), records, False, group[-1].stop, source=self.source))
                group, records, size = [], 0, 0
            group.append(entry)
            records += entry.records
            size += entry.stop - entry.start
        if group:
            offer(Range(make(group), records, last, group[-1].stop, source=self.source))

    def guess_file(self, offer: Callable[[Range], None], path: str, start: int, stop: int,
                   make: Callable[[int, int], Callable[[ArrowRecordReader], None]]) -> None:
        """Ranges of the file's bytes start..stop at guessed boundaries (``_guess``)."""
        def scan(offer: Callable[[Range], None], position: int) -> None:
            self.scan_file(offer, path, position, stop, make)

        with open(path, "rb", buffering=0) as handle:
            def window(position: int, size: int) -> bytes:
                handle.seek(position)
                return handle.read(size) or b""
            self._guess(offer, window, start, stop, make, scan)

    def guess_memory(self, offer: Callable[[Range], None], data: memoryview, start: int,
                     make: Callable[[int, int], Callable[[ArrowRecordReader], None]]) -> None:
        """Ranges of a bytes-like object from start, at guessed boundaries (``_guess``)."""
        def scan(offer: Callable[[Range], None], position: int) -> None:
            self.scan_memory(offer, data, position, make)

        def window(position: int, size: int) -> memoryview:
            return data[position:position + size]
        self._guess(offer, window, start, len(data), make, scan)

    def _guess(self, offer: Callable[[Range], None], window: Callable[[int, int], Any], start: int, stop: int,
               make: Callable[[int, int], Callable[[ArrowRecordReader], None]],
               scan: Callable[[Callable[[Range], None], int], None]) -> None:
        """Ranges of a source's bytes start..stop without stepping over every record first:
        each boundary is guessed about ``range_bytes`` on, at the first place from which
        ``GUESS_RECORDS`` records in a row step over whole, and checked when the range
        before it is decoded (it must end exactly there; after a wrong guess the rest is
        ``scan``ned from the record crossing it). Where no guess is found (records larger
        than the window), the rest is ``scan``ned."""
        position = start
        source = self.source
        sample = window(start, min(GUESS_WINDOW, stop - start))
        end, count = record_ends(sample, 0, SAMPLE_RECORDS, max(len(sample), 1), self.max_depth)
        step = self.range_step(stop - start, end / count if count else float(len(sample) or 1))

        def rest(crossing: int) -> Plan:
            return lambda offer: scan(offer, crossing)
        while stop - position > 2 * step:
            target = position + step
            guess = _first_run_of_records(window(target, min(GUESS_WINDOW, stop - target)), self.max_depth)
            if guess is None:
                scan(offer, position)
                return
            offer(Range(make(position, target + guess), None, False, target + guess, rest=rest, source=source))
            position = target + guess
        offer(Range(make(position, stop), None, True, stop, source=source))

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
                        offer(Range(make(position, position + end - used), count, False, position + end - used,
                                    source=self.source))
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
            offer(Range(make(position, end), count, False, end, source=self.source))
            position = end
        if position < len(data):
            self.whole(offer, make(position, len(data)))


#: A guessed boundary: where this many records in a row step over whole,
GUESS_RECORDS = 16
#: found in this many bytes from about ``RANGE_BYTES`` on.
GUESS_WINDOW = 256 << 10
_RECORD_LEAD = re.compile(rb"[\x80-\x8f\xde\xdf]")


def _first_run_of_records(window: bytes, max_depth: int) -> int | None:
    """Where GUESS_RECORDS records in a row end, stepped over whole from the first offset of
    ``window`` that allows it. That offset may be inside a record (a byte of a value that
    looks like a map header), but stepping over msgpack values falls into step with the
    real records within a few values, so the end of the run is a record boundary but for
    rare (or hostile) data; the range before it checks it anyway."""
    for lead in _RECORD_LEAD.finditer(window):
        end, count = record_ends(window, lead.start(), GUESS_RECORDS, len(window), max_depth)
        if count == GUESS_RECORDS:
            return int(end)
    return None


def usable_index(path: str, start: int) -> Any:
    """The sidecar index of a local file when it is usable and starts its records at ``start``."""
    index = read_index(path)
    if index is None or index.data_start != start and index.entries:
        return None
    return index
