"""Splittable record files: building the sidecar index, its size, and reading by splits.

    python -m benchmarks.bench_index [--quick] [--rounds R] [--size index_mb=120]

- ``build_index`` of an ``index_mb`` MB file of README ``A`` records (found
  without a schema by the core's skipper, CRC32 of every segment), in MB/s;
- the index's size per record, at the default entry spacing;
- reading every record: ``iter_decode`` of the file against ``iter_split``
  over the splits of its index (each entry's CRC32 and record count checked
  before decoding) and over one unindexed split; and the checking alone.

Each figure is the best of ``--rounds`` runs (the file is in the page cache
after the first).
"""

from __future__ import annotations

import os
import random
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any, Callable, Sequence

import zebrapack
from zebrapack._core import skip_records

from ._harness import Options, emit, markdown_table, ns, parse_options
from ._shapes import SEED, A, a_values, shapes_schema

BLOCK = 10_000


def _write_file(path: Path, schema: zebrapack.Schema, megabytes: int) -> int:
    rng = random.Random(SEED)
    block = [A(**a_values(rng)) for _ in range(BLOCK)]
    count = 0
    with open(path, "wb") as out, schema.writer(out, buffer_size=1 << 20) as writer:
        while out.tell() < megabytes * 1_000_000:
            writer.write_all(block)
            count += len(block)
    return count


def _best(function: Callable[[], Any], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def run(options: Options) -> str:
    megabytes = options.sizes.get("index_mb", 120)
    rounds = max(1, options.rounds)
    schema = shapes_schema()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "records.zpk"
        count = _write_file(path, schema, megabytes)
        size = path.stat().st_size
        build = _best(lambda: zebrapack.build_index(path), rounds)
        index = zebrapack.read_index(path)
        assert index is not None and index.record_count == count
        index_bytes = os.path.getsize(f"{path}.zpi")
        splits = zebrapack.file_splits(path)
        whole = [zebrapack.Split(str(path), 0, size, None)]

        def read_file() -> int:
            with open(path, "rb") as handle:
                return sum(1 for _ in schema.iter_decode(handle))

        def read_splits(chosen: list[zebrapack.Split]) -> Callable[[], int]:
            return lambda: sum(len(batch) for split in chosen for batch in zebrapack.iter_split_batches(schema, split))

        def check_only() -> None:
            with open(path, "rb") as handle:
                for entry in index.entries:
                    handle.seek(entry.start)
                    data = handle.read(entry.stop - entry.start)
                    zlib.crc32(data)
                    skip_records(data, 0, entry.records + 1, len(data))

        reads = [("iter_decode(file)", read_file), (f"iter_split_batches, {len(splits)} indexed splits",
                                                    read_splits(splits)),
                 ("iter_split_batches, 1 unindexed split", read_splits(whole)),
                 ("the checks alone (read, CRC32, skip)", check_only)]
        rows = [[name, f"{seconds:.3f} s", ns(seconds * 1e9 / count), f"{size / seconds / 1e6:,.0f} MB/s"]
                for name, seconds in ((name, _best(function, rounds)) for name, function in reads)]
    summary = markdown_table(["", "value"], [
        ["file", f"{size / 1e6:,.1f} MB, {count:,} records ({size / count:.0f} bytes each)"],
        ["build_index", f"{build:.3f} s, {size / build / 1e6:,.0f} MB/s"],
        ["index", f"{index_bytes:,} bytes, {len(index.entries)} entries, "
                  f"{index_bytes / count:.5f} bytes per record"],
    ])
    return summary + "\n\n" + markdown_table(["read every record", "time", "per record", "rate"], rows)


def main(argv: Sequence[str] | None = None) -> str:
    options = parse_options(argv, __doc__.splitlines()[0])
    text = run(options)
    emit("Splittable record files", text, options, "index.md")
    return text


if __name__ == "__main__":
    main()
