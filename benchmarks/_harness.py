"""Timing, command line and reporting shared by the benchmark modules.

Method: the contenders of one row are timed interleaved, batch after batch in one
process (so a burst of load from other processes hits all of them alike). A
batch runs the operation enough times to last about ``batch_seconds``. A
*round* keeps each contender's best of ``best_of`` batches; the figure reported
is the best over all rounds, and the ratios are computed round by round (each
round's zebrapack best over the same round's competitor best), reported as the
median ratio with the min–max range over the rounds: that range is the spread.
The garbage collector stays on, as in a user's program, unless ``--no-gc``.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass
class Options:
    quick: bool = False
    rounds: int = 5
    best_of: int = 5
    batch_seconds: float = 0.02
    gc: bool = True
    out: Path | None = None
    sizes: dict[str, int] = field(default_factory=dict)
    extra: argparse.Namespace = field(default_factory=argparse.Namespace)   # a module's own arguments


def parse_options(argv: Sequence[str] | None, description: str,
                  add_arguments: Callable[[argparse.ArgumentParser], None] | None = None) -> Options:
    """The shared options; ``add_arguments`` adds a module's own (in ``Options.extra``)."""
    parser = argparse.ArgumentParser(description=description)
    if add_arguments is not None:
        add_arguments(parser)
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: one short round, small collections and streams")
    parser.add_argument("--rounds", type=int, default=None, help="rounds (repeats) per row (default 5)")
    parser.add_argument("--best-of", type=int, default=None, help="batches per round, best kept (default 5)")
    parser.add_argument("--no-gc", action="store_true", help="time with the garbage collector disabled")
    parser.add_argument("--out", type=Path, default=None,
                        help="directory for the markdown table and the chart (default: print only)")
    parser.add_argument("--size", action="append", default=[], metavar="NAME=N",
                        help="shrink or grow a size (n, depth, stream_kb, append_n, record_mb), or the random "
                             "family's seed, e.g. --size n=100 --size seed=7")
    args = parser.parse_args(argv)
    options = Options(quick=args.quick, gc=not args.no_gc, out=args.out, extra=args)
    if args.quick:
        options.rounds, options.best_of, options.batch_seconds = 1, 2, 0.002
        options.sizes = {"n": 50, "depth": 5, "stream_kb": 1000, "append_n": 2000, "record_mb": 1}
    if args.rounds is not None:
        options.rounds = args.rounds
    if args.best_of is not None:
        options.best_of = args.best_of
    for item in args.size:
        name, _, value = item.partition("=")
        options.sizes[name] = int(value)
    return options


@dataclass(frozen=True)
class SelfTimed:
    """A contender that times itself, e.g. in another process: ``run()`` does one call
    and returns the nanoseconds it took (the harness's clock would add the round trip)."""
    run: Callable[[], float]


def _loops_for(function: Callable[[], Any] | SelfTimed, batch_seconds: float) -> int:
    if isinstance(function, SelfTimed):
        return 1
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            function()
        if time.perf_counter() - start >= batch_seconds or loops >= 1 << 22:
            return loops
        loops *= 2


@dataclass
class Timing:
    """ns per call of one contender: the best of each round."""
    rounds: list[float]

    @property
    def best(self) -> float:
        return min(self.rounds)

    @property
    def spread(self) -> float:
        """(worst round - best round) / best round."""
        return max(self.rounds) / min(self.rounds) - 1.0


def interleaved(contenders: Mapping[str, Callable[[], Any] | SelfTimed], options: Options) -> dict[str, Timing]:
    """Time each contender interleaved with the others (see the module docstring); a
    ``SelfTimed`` one gives its own time, one call per batch."""
    loops = {name: _loops_for(function, options.batch_seconds) for name, function in contenders.items()}
    per_round: dict[str, list[float]] = {name: [] for name in contenders}
    gc_was_enabled = gc.isenabled()
    (gc.enable if options.gc else gc.disable)()
    try:
        for _ in range(options.rounds):
            best = {name: float("inf") for name in contenders}
            for _ in range(options.best_of):
                for name, function in contenders.items():
                    if isinstance(function, SelfTimed):
                        best[name] = min(best[name], function.run())
                        continue
                    n = loops[name]
                    start = time.perf_counter_ns()
                    for _ in range(n):
                        function()
                    best[name] = min(best[name], (time.perf_counter_ns() - start) / n)
            for name in contenders:
                per_round[name].append(best[name])
    finally:
        (gc.enable if gc_was_enabled else gc.disable)()
    return {name: Timing(values) for name, values in per_round.items()}


@dataclass
class Ratio:
    median: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.median:.2f} ({self.low:.2f}–{self.high:.2f})"


def ratio(ours: Timing, theirs: Timing) -> Ratio:
    """Round-by-round ratio: median and range."""
    values = [a / b for a, b in zip(ours.rounds, theirs.rounds)]
    return Ratio(statistics.median(values), min(values), max(values))


def machine() -> str:
    import msgpack
    import msgspec

    import zebrapack
    from zebrapack import _core

    cpu = platform.processor() or platform.machine()
    try:
        fields: dict[str, str] = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
        if "model name" in fields:
            # "AMD EPYC" names Zen 4 and Zen 5 alike; family and model tell them apart.
            cpu = f"{fields['model name']} (family {fields.get('cpu family', '?')} model {fields.get('model', '?')})"
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
            f"Python {sys.version.split()[0]}, zebrapack {zebrapack.__version__}, "
            f"msgspec {msgspec.__version__}, msgpack {'.'.join(map(str, msgpack.version))}; "
            f"long copies by {_core._long_copy_mode()}; "
            f"load average {load}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")


def ns(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:,.2f} ms"
    if value >= 1e4:
        return f"{value / 1e3:,.1f} µs"
    return f"{value:,.0f} ns"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def emit(title: str, text: str, options: Options, filename: str) -> None:
    """Print a section, and write it to ``options.out/filename`` when asked."""
    section = f"## {title}\n\n{text}\n"
    print(section)
    if options.out is not None:
        options.out.mkdir(parents=True, exist_ok=True)
        (options.out / filename).write_text(section, encoding="utf-8")
