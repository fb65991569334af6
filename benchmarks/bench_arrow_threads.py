"""``zebrapack.arrow.read(..., threads=N)`` against one thread, on a record file on disk.

    python -m benchmarks.bench_arrow_threads [--mb 1024] [--threads 2] [--rounds 3] [--dir DIR] [--out DIR]

Writes a file of about ``--mb`` MB of seeded README ``A`` records (in ``--dir``, default a
temporary directory; kept between runs there), then reads it into Arrow batches (each
batch dropped once counted, as a consumer that aggregates does) with one thread and with
each ``--threads`` count, interleaved round after round: without an index (ranges cut at
guessed boundaries), with its sidecar index (``FILE.zpi``, entries every 65,536
records), and from memory (the file's bytes in a ``bytes`` object, ranges cut at guessed
boundaries). Reports the best wall time of each, the process CPU time beside it, the
speedup over one thread, and, because other work on the machine takes cores away, the
load average and two controls: the speedup of two threads hashing (``hashlib.sha256``,
which releases the GIL) over one, the parallelism the machine gave at that moment; and
the speedup of two plain threads each reading half of the file on its own (one-thread
reads of two splits, no order kept, nothing shared) over one thread reading it whole:
what two cores make of reading this file, out of the page cache, at that moment.
Writes ``arrow_threads.md`` to ``--out`` when given.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import zebrapack
import zebrapack.arrow as zpa
import zebrapack.examples

from zebrapack.recordio.index_format import Split

from ._harness import machine, markdown_table
from ._shapes import SEED, a_values

#: Records encoded once and written again and again up to the size asked for.
_BLOCK = 100_000


def record_file(directory: Path, megabytes: int) -> Path:
    """A file of about ``megabytes`` MB of A records (made once per size in ``directory``)."""
    path = directory / f"a_{megabytes}mb.zpk"
    if path.exists():
        return path
    schema = zebrapack.load(zebrapack.examples.SCHEMA)
    rng = random.Random(SEED)
    block = b"".join(schema.encode(schema.types.A(**a_values(rng))) for _ in range(_BLOCK))
    target = megabytes * 1_000_000
    with open(path, "wb") as handle:
        written = 0
        while written < target:
            handle.write(block)
            written += len(block)
    return path


def read_once(source: Path | bytes, schema: zebrapack.Schema, threads: int) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, rows) of one read of the file (or bytes) into batches."""
    rows = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for batch in zpa.read(source, schema, type="A", threads=threads):
        rows += batch.num_rows
    return time.perf_counter() - wall, time.process_time() - cpu, rows


def two_threads_speedup(alone: Callable[[], None], halves: Sequence[Callable[[], None]]) -> float:
    """How much faster two threads do ``halves`` (one each) than one thread does ``alone``."""
    start = time.perf_counter()
    alone()
    one = time.perf_counter() - start
    workers = [threading.Thread(target=half) for half in halves]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return one / (time.perf_counter() - start)


def hashing_speedup() -> float:
    """How much faster two threads hash 2 x 64 MB than one thread: the cores free right now."""
    data = b"z" * (64 << 20)

    def work() -> None:
        hashlib.sha256(data).digest()

    def both() -> None:
        work()
        work()

    return two_threads_speedup(both, [work, work])


def halves_speedup(path: Path, schema: zebrapack.Schema) -> float:
    """How much faster two threads read a half each of the indexed file (split at its
    middle index entry, read as unindexed splits) than one thread reads it whole."""
    entries = zebrapack.load_index(path).entries
    middle = entries[len(entries) // 2].start
    size = path.stat().st_size
    halves = [Split(str(path), entries[0].start, middle, None), Split(str(path), middle, size, None)]

    def reader(source: Split | Path) -> Callable[[], None]:
        def read() -> None:
            for _ in zpa.read(source, schema, type="A"):
                pass
        return read

    return two_threads_speedup(reader(path), [reader(half) for half in halves])


def run(megabytes: int, thread_counts: Sequence[int], rounds: int, directory: Path) -> str:
    schema = zebrapack.load(zebrapack.examples.SCHEMA)
    plain = record_file(directory, megabytes)
    indexed = directory / f"a_{megabytes}mb_indexed.zpk"
    if not indexed.exists():
        os.link(plain, indexed)
        zebrapack.build_index(indexed)
    in_memory = plain.read_bytes()
    counts = [1, *thread_counts]
    best: dict[tuple[str, int], tuple[float, float, int]] = {}
    controls = []
    halves = []
    for _ in range(rounds):
        controls.append(hashing_speedup())
        halves.append(halves_speedup(indexed, schema))
        for label, source in (("no index (guessed boundaries)", plain), ("sidecar index", indexed),
                              ("bytes in memory (guessed boundaries)", in_memory)):
            for threads in counts:
                measured = read_once(source, schema, threads)
                if (label, threads) not in best or measured[0] < best[label, threads][0]:
                    best[label, threads] = measured
    rows = []
    for (label, threads), (wall, cpu, records) in best.items():
        one = best[label, 1][0]
        rows.append([label, str(threads), f"{wall:.3f}", f"{cpu:.3f}", f"{records / wall / 1e6:.1f}",
                     f"{one / wall:.2f}x"])
    size = plain.stat().st_size
    text = (f"# zebrapack.arrow.read with threads\n\n{machine()}\n\n"
            f"{size / 1e9:.2f} GB of README A records ({best['sidecar index', 1][2]:,} records), "
            f"best of {rounds} rounds; CPU = the process's CPU time of that read.\n\n"
            + markdown_table(["file", "threads", "wall s", "CPU s", "M records/s", "speedup"], rows)
            + f"\n\nControl, two threads hashing against one, per round: "
            + ", ".join(f"{c:.2f}x" for c in controls) + " (2.00x on two free cores)\n"
            + "\nControl, two plain threads reading a half of the file each against one thread "
            + "reading it whole, per round: " + ", ".join(f"{h:.2f}x" for h in halves) + "\n")
    return text


def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=1024, help="file size in MB (default 1024)")
    parser.add_argument("--threads", type=int, nargs="+", default=[2], help="thread counts to set beside one")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where the files go (kept there)")
    parser.add_argument("--out", type=Path, default=None, help="write arrow_threads.md there")
    options = parser.parse_args(argv)
    if options.dir is None:
        with tempfile.TemporaryDirectory() as directory:
            text = run(options.mb, options.threads, options.rounds, Path(directory))
    else:
        options.dir.mkdir(parents=True, exist_ok=True)
        text = run(options.mb, options.threads, options.rounds, options.dir)
    print(text)
    if options.out is not None:
        options.out.mkdir(parents=True, exist_ok=True)
        (options.out / "arrow_threads.md").write_text(text)
    return text


if __name__ == "__main__":
    main()
