"""Reading record files on a cluster: Dask and Spark against decode_all in one process.

    python -m benchmarks.bench_cluster [--records N] [--files 4] [--split-records R] [--out DIR]
                                       [--skip-dask] [--skip-spark]

Writes ``--files`` files of ``--records`` README ``A`` records each (default 4 x
1,000,000), each with its sidecar index (an entry every 65,536 records, or
``--split-records`` if fewer), then reads every record:

- ``decode_all`` of each file in this process (the records as Python objects),
  and ``zebrapack.arrow.read`` of each file into one Arrow table, in this process;
- ``zebrapack.dask.read_records`` on a ``distributed.LocalCluster`` of 2 worker
  processes (one thread each), one partition per index split (entries merged up
  to ``--split-records``), counting each partition's rows in its worker;
- the Spark data source in ``local[2]`` (its session started beforehand), an
  aggregate over every row (so every batch crosses into the JVM).

Rows per second are the records over the wall time of the read; "per worker"
divides by the 2 workers (the machine has 2 cores, shared). Peak memory is the
high-water resident set (``VmHWM``) of each worker process, sampled every 0.1 s
from ``/proc`` (Linux only; the JVM is reported apart from Spark's Python
workers). A Dask partition is built whole in its worker, so its worker holds
about a split of Arrow columns at a time; a Spark task streams a split in
batches of ``batch_rows`` rows (65,536).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import zebrapack

from zebrapack.recordio.index_format import DEFAULT_EVERY

from ._harness import markdown_table
from ._shapes import SEED, A, a_values, shapes_schema

WORKERS = 2
BLOCK = 10_000


def _write_files(folder: Path, schema: zebrapack.Schema, files: int, records: int,
                 index_every: int = DEFAULT_EVERY) -> list[Path]:
    rng = random.Random(SEED)
    block = [A(**a_values(rng)) for _ in range(min(BLOCK, records))]
    paths = []
    folder.mkdir(exist_ok=True)
    for number in range(files):
        path = folder / f"part-{number}.zpk"
        with schema.writer(path, buffer_size=1 << 20, index=True, index_every=index_every) as writer:
            for start in range(0, records, len(block)):
                writer.write_all(block[:records - start])
        paths.append(path)
    return paths


def _descendants() -> list[int]:
    """The process ids of this process's descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _peak_kb(pid: int) -> tuple[str, int] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read().replace(b"\0", b" ").decode(errors="replace")
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return command, int(line.split()[1])
    except OSError:
        pass
    return None


class PeakMemory:
    """The high-water RSS of every descendant process, sampled in a thread."""

    def __init__(self) -> None:
        self.peaks: dict[int, tuple[str, int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        for pid in _descendants():
            seen = _peak_kb(pid)
            if seen is not None:
                self.peaks[pid] = (seen[0], max(seen[1], self.peaks.get(pid, ("", 0))[1]))

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self._sample()

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def largest(self, select: Callable[[str], bool]) -> list[float]:
        """The peaks in MB of the processes whose command line ``select`` accepts, largest first."""
        return sorted((kb / 1024 for command, kb in self.peaks.values() if select(command)), reverse=True)


def _own_peak_mb() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextmanager
def _timed(results: dict[str, float], name: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    results[name] = time.perf_counter() - start


def _in_process(schema: zebrapack.Schema, paths: list[Path]) -> dict[str, float]:
    import zebrapack.arrow as zpa

    times: dict[str, float] = {}
    with _timed(times, "decode_all"):
        for path in paths:
            records = schema.decode_all(path.read_bytes(), "A")
            del records
    with _timed(times, "arrow.read"):
        for path in paths:
            table = zpa.read(str(path), schema, "A").read_all()
            del table
    return times


def _dask(schema: zebrapack.Schema, paths: list[Path], warm_up: Path,
          split_records: int) -> tuple[float, int, int, list[float]]:
    import distributed

    import zebrapack.dask as zpd

    with distributed.LocalCluster(n_workers=WORKERS, processes=True, threads_per_worker=1, scheduler_port=0,
                                  # no dashboard, and its HTTP server on a free port, not 8787
                                  dashboard_address=":0", scheduler_kwargs={"dashboard": False},
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        # Every worker imports zebrapack and pyarrow and loads the schema before the clock starts.
        zpd.read_records([str(warm_up)] * WORKERS, schema, "A").map_partitions(len).compute()
        client.run(lambda: None)
        with PeakMemory() as memory:
            start = time.perf_counter()
            ddf = zpd.read_records([str(path) for path in paths], schema, "A", split_records=split_records)
            rows = int(ddf.map_partitions(len).compute().sum())
            seconds = time.perf_counter() - start
        workers = memory.largest(lambda command: "spawn_main" in command)    # the worker processes
        return seconds, rows, ddf.npartitions, workers


def _spark(schema_path: Path, paths: list[Path], warm_up: Path,
           split_records: int) -> tuple[float, int, int, list[float], float]:
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import zebrapack.spark

    session = (SparkSession.builder.master(f"local[{WORKERS}]").config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "2g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    session.dataSource.register(zebrapack.spark.DataSource)

    def total(files: list[Path]) -> tuple[Any, Any]:
        df = (session.read.format("zebrapack").option("schema", str(schema_path)).option("type", "A")
              .option("split_records", str(split_records)).load([str(path) for path in files]))
        return df, df.agg(F.count("*").alias("rows"), F.sum("Sibs").alias("sibs")).collect()[0]

    try:
        total([warm_up] * WORKERS)     # the JVM's first query, the Python workers started
        with PeakMemory() as memory:
            start = time.perf_counter()
            df, row = total(paths)
            seconds = time.perf_counter() - start
            partitions = df.rdd.getNumPartitions()
        workers = memory.largest(lambda command: "pyspark" in command and "java" not in command)
        jvm = memory.largest(lambda command: "java" in command)
        return seconds, int(row["rows"]), partitions, workers, jvm[0] if jvm else 0.0
    finally:
        session.stop()


def _rate(rows: int, seconds: float, workers: int = 1) -> str:
    return f"{rows / seconds / workers:,.0f}"


def run(records: int, files: int, split_records: int, dask: bool, spark: bool) -> str:
    schema = shapes_schema()
    lines = []
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        schema_path = folder / "bench.z"
        schema.dump(schema_path)
        paths = _write_files(folder, schema, files, records, min(DEFAULT_EVERY, split_records))
        warm_up = _write_files(folder / "warm-up", schema, 1, 1000)[0]
        total = files * records
        size = sum(path.stat().st_size for path in paths)
        load_before = os.getloadavg()
        times = _in_process(schema, paths)
        rows = [["decode_all, one process", f"{times['decode_all']:.2f} s", _rate(total, times["decode_all"]),
                 _rate(total, times["decode_all"]), "-", f"{_own_peak_mb():,.0f} (this process)"],
                ["zebrapack.arrow.read, one process", f"{times['arrow.read']:.2f} s",
                 _rate(total, times["arrow.read"]), _rate(total, times["arrow.read"]), "-", ""]]
        if dask:
            seconds, counted, partitions, workers = _dask(schema, paths, warm_up, split_records)
            assert counted == total, (counted, total)
            rows.append([f"Dask, LocalCluster {WORKERS} processes", f"{seconds:.2f} s", _rate(total, seconds),
                         _rate(total, seconds, WORKERS), str(partitions),
                         ", ".join(f"{mb:,.0f}" for mb in workers[:WORKERS])])
        if spark:
            seconds, counted, partitions, workers, jvm = _spark(schema_path, paths, warm_up, split_records)
            assert counted == total, (counted, total)
            rows.append([f"Spark local[{WORKERS}]", f"{seconds:.2f} s", _rate(total, seconds),
                         _rate(total, seconds, WORKERS), str(partitions),
                         ", ".join(f"{mb:,.0f}" for mb in workers[:WORKERS]) + f" (JVM {jvm:,.0f})"])
        load_after = os.getloadavg()
    lines.append(f"{files} files x {records:,} README `A` records ({size / 1e6:,.1f} MB, "
                 f"{size / total:.0f} bytes a record), each with its index; splits of up to "
                 f"{split_records:,} records. Load average {load_before[0]:.2f} before, {load_after[0]:.2f} after "
                 f"(2 cores, shared); {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")
    lines.append("")
    lines.append(markdown_table(["read every record", "wall time", "rows/s", "rows/s per worker", "partitions",
                                 "peak RSS per worker (MB)"], rows))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="records per file (default 1,000,000)")
    parser.add_argument("--files", type=int, default=4, help="files (default 4)")
    parser.add_argument("--split-records", type=int, default=262_144,
                        help="records per split at most (index entries merged; default 262,144)")
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--skip-spark", action="store_true")
    parser.add_argument("--out", type=Path, default=None, help="write cluster.md there too")
    args = parser.parse_args(argv)
    text = run(args.records, args.files, args.split_records, not args.skip_dask, not args.skip_spark)
    section = f"## Reading on a cluster\n\n{text}\n"
    print(section)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "cluster.md").write_text(section, encoding="utf-8")
    return text


if __name__ == "__main__":
    main()

