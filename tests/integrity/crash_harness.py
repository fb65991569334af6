"""Writers killed at random points, and what every reader recovers of their files.

A child process writes seeded records with one of the writers (``KINDS``: a plain
``schema.writer``, ``index=True``, ``write_schema=True``, ``zebrapack.arrow.write``)
and is SIGKILLed, either by itself at a seeded byte of the file (its file object
writes up to that byte, then kills the process: a tear at an exact place) or by the
parent after a seeded delay (the file is whatever the OS holds then). The parent then
checks that the file is a prefix of what the writer writes whole, that
``zebrapack.recover`` finds exactly its complete records and where its valid data ends,
that every reader (iter_decode or open_stream, zpa.read, zpa.read of the planned
splits, iter_split) delivers every complete record and then a TornTailError at that
offset (or ends cleanly when the file is not torn), that nothing beside the file is
taken for data, and that after ``truncate()`` appending the rest makes the whole file.

tests/integrity/test_crash_recover.py runs 20 kills in CI. The longer run (hundreds of
kills) is this script, documented in docs/sanitizers-and-fuzzing.md::

    python tests/integrity/crash_harness.py --kills 400 --seed 1
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from support.integrity import SCHEMA, Layout, a_records, layout  # noqa: E402

import zebrapack  # noqa: E402
from zebrapack import DecodeError, IndexWarning, TornTailError  # noqa: E402
from zebrapack.streams.planning import expand_paths  # noqa: E402

KINDS = ("plain", "index", "schema", "zpa")
RECORDS = 3000
BUFFER = 4096           # the writers flush (and zpa.write writes a chunk) about every 4 KiB


@dataclass(frozen=True)
class Kill:
    """One run: the writer, and where it dies: at byte ``at`` of the file (by itself),
    or ``after`` seconds into writing (by the parent)."""

    kind: str
    at: int | None = None
    after: float | None = None

    def __str__(self) -> str:
        where = f"at byte {self.at}" if self.at is not None else f"after {self.after:.3f} s"
        return f"{self.kind} writer killed {where}"


def expected_layout(kind: str) -> Layout:
    return layout(a_records(RECORDS), write_schema=kind == "schema")


def seeded_kills(count: int, seed: int) -> list[Kill]:
    """``count`` kills, the writers in turn; three in four at a seeded byte, one in four
    after a seeded delay."""
    rng = random.Random(seed)
    kills = []
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        if (i // len(KINDS)) % 4 == 3:
            kills.append(Kill(kind, after=rng.uniform(0.0, 0.4)))
        else:
            kills.append(Kill(kind, at=rng.randrange(len(expected_layout(kind).data) + 200)))
    return kills


# -- the child: a writer that dies ------------------------------------------------------


class DyingFile:
    """A raw file that takes bytes up to ``at``, then kills the process mid-write."""

    def __init__(self, path: str, at: int) -> None:
        self._raw = open(path, "wb", buffering=0)
        self.name = path
        self._at = at
        self._written = 0

    def tell(self) -> int:
        return self._written

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        if self._written + len(view) >= self._at:
            self._raw.write(view[:self._at - self._written])
            os.kill(os.getpid(), signal.SIGKILL)
        count = self._raw.write(view)
        self._written += count
        return count

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self._raw.close()


def child(kind: str, path: str, at: int | None) -> None:
    """Write the seeded records; print "writing" first (the parent's clock starts then)."""
    records = a_records(RECORDS)
    slow = at is None                   # killed by the parent: write for about half a second
    dest: Any = path if at is None else DyingFile(path, at)
    if kind == "zpa":
        import pyarrow as pa

        import zebrapack.arrow as zpa
        table = zpa.read(b"".join(map(SCHEMA.encode, records)), SCHEMA, "A").read_all()

        def batches() -> Iterable[Any]:
            for batch in table.to_batches(max_chunksize=25):
                if slow:
                    time.sleep(0.004)
                yield batch
        print("writing", flush=True)
        zpa.write(pa.RecordBatchReader.from_batches(table.schema, batches()), dest, SCHEMA, "A", index=True,
                  chunk_bytes=BUFFER)
        return
    options = {"index": {"index": True, "index_every": 100}, "schema": {"write_schema": True}}.get(kind, {})
    print("writing", flush=True)
    with SCHEMA.writer(dest, buffer_size=BUFFER, **options) as writer:
        for i, record in enumerate(records):
            writer.write(record)
            if slow and i % 25 == 0:
                time.sleep(0.004)
    if at is not None:
        dest.close()


def run(kill: Kill, folder: Path) -> Path:
    """Run the writer in a child until it dies (or ends); its file."""
    path = folder / "records.zpk"
    command = [sys.executable, __file__, "--child", kill.kind, str(path), str(-1 if kill.at is None else kill.at)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None and process.stdout.readline() == "writing\n"
        if kill.after is not None:
            time.sleep(kill.after)
            process.kill()
        _, stderr = process.communicate(timeout=120)
        assert process.returncode in (0, -signal.SIGKILL), (str(kill), process.returncode, stderr[-2000:])
    return path


# -- the parent: what the readers recover -------------------------------------------------


def _delivered(records: Iterable[Any]) -> tuple[list[str], DecodeError | None]:
    names: list[str] = []
    try:
        for item in records:
            names += item.column("Name").to_pylist() if hasattr(item, "column") else \
                [record.Name for record in item] if isinstance(item, list) else [item.Name]
    except DecodeError as error:
        return names, error
    return names, None


def check(kill: Kill, path: Path) -> str:
    """Every check of a killed writer's file; a one-line summary of what it held."""
    import zebrapack.arrow as zpa

    expected = expected_layout(kill.kind)
    if not path.exists():               # killed before the writer made its file: nothing at all
        assert not os.listdir(path.parent), f"{kill}: {sorted(os.listdir(path.parent))}"
        return f"{kill}: no file yet"
    data = path.read_bytes()
    size = len(data)
    assert data == expected.data[:size], f"{kill}: the file is not a prefix of what the writer writes"
    whole, valid_end = expected.whole_before(size), expected.valid_end(size)
    torn = size != valid_end
    names = [record.Name for record in expected.records[:whole]]
    found = zebrapack.recover(path, SCHEMA)
    assert (found.records, found.valid_end, found.torn) == (whole, valid_end, torn), (str(kill), found)
    assert [record.Name for record in found] == names, str(kill)
    assert expand_paths(path.parent) == [str(path)], f"{kill}: {sorted(os.listdir(path.parent))}"

    with warnings.catch_warnings():
        warnings.simplefilter("error", IndexWarning)        # an index is never left stale by a crash
        splits = zebrapack.file_splits(path)
    readers: dict[str, Any] = {
        "zpa.read": lambda: zpa.read(path, SCHEMA, "A"),
        "zpa.read(splits)": lambda: zpa.read(splits, SCHEMA, "A"),
        "iter_split": lambda: (record for split in splits for record in zebrapack.iter_split(SCHEMA, split)),
        "recover": lambda: zebrapack.recover(path, SCHEMA),
    }
    if kill.kind == "schema":
        readers["open_stream"] = lambda: _open_stream_records(path)
    else:
        readers["iter_decode"] = lambda: SCHEMA.iter_decode(path)
    for name, records in readers.items():
        delivered, error = _delivered(records())
        assert delivered == names, f"{kill}: {name} delivered {len(delivered)} of {whole} complete records"
        if name == "recover" or not torn:
            assert error is None, f"{kill}: {name}: {error!r}"
        else:
            assert isinstance(error, TornTailError) and error.offset == valid_end, f"{kill}: {name}: {error!r}"

    # cut the torn tail off, append the rest: the whole file
    found.truncate()
    with open(path, "ab") as out, SCHEMA.writer(out, write_schema=kill.kind == "schema" and valid_end == 0) as writer:
        writer.write_all(expected.records[whole:])
    assert path.read_bytes() == expected.data, f"{kill}: appending after truncate() did not make the whole file"
    return f"{kill}: {size} bytes, {whole} complete records, " + (f"torn at {valid_end}" if torn else "not torn")


def _open_stream_records(path: Path) -> Iterable[Any]:
    with zebrapack.open_stream(path) as stream:
        yield from stream


def crash_and_recover(kills: list[Kill], verbose: bool = False) -> list[str]:
    outcomes = []
    for kill in kills:
        with tempfile.TemporaryDirectory() as folder:
            outcome = check(kill, run(kill, Path(folder)))
        outcomes.append(outcome)
        if verbose:
            print(outcome, flush=True)
    return outcomes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", nargs=3, metavar=("KIND", "PATH", "AT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, path, at = args.child
        child(kind, path, None if int(at) < 0 else int(at))
        return
    outcomes = crash_and_recover(seeded_kills(args.kills, args.seed), verbose=True)
    torn = sum("torn at" in outcome for outcome in outcomes)
    print(f"{len(outcomes)} kills, {torn} files torn inside a record: every complete record recovered by every reader")


if __name__ == "__main__":
    main()
