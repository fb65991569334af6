"""The benchmark family: every row of ``_family``, decode and encode, zebrapack against
msgspec.Struct, msgspec's dataclass mode and msgpack-python, times beside instructions.

    python -m benchmarks.bench_family                      # every row; writes benchmarks/results/family.md
    python -m benchmarks.bench_family strings ints         # some families (printed; --out DIR writes)
    python -m benchmarks.bench_family "str cjk 10KB" --direction encode
    python -m benchmarks.bench_family --quick --no-instructions   # a smoke run
    python -m benchmarks.bench_family --processes 5 --no-instructions --rounds 3 --best-of 3

Selectors are family names (records, strings, ints, floats, bytes, times, any, maps,
optional, bools, small, random) or row names (``--list`` prints them). Times: the four contenders of a row
interleaved in one process, as ``bench_decode``/``bench_encode`` (``_harness``); each
contender's round trip is checked first. Instructions: ``benchmarks.instructions``
under callgrind, zebrapack and msgspec.Struct, on by default when valgrind is on PATH
(``--no-instructions`` leaves them out). The table gives both ratios to
``msgspec.Struct`` and lists the rows above 1.0x in either; where msgspec has no exact
Go type the row says what it holds instead.

One process is one layout of Python's heap: where a small record's objects land, and so
which cache lines and sets a decode touches, moves a row of 30-byte records by several
percent from one process to the next (docs/performance-log.md, the sixteenth round).
``--processes N`` times the rows in N fresh processes one after the other, each with its
own ``PYTHONHASHSEED`` (1..N: other dict layouts, other allocations, as pyperf runs its
worker processes), and pools their rounds: the best time is the best of every round,
the ratio the median over every round of every process (each round still interleaved in
its process), and the table gives the range of the N processes' own medians beside it.
A row above 1.0x in any one process's median is listed too.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from . import _compare, _family, _harness, instructions
from ._harness import RESULTS_DIR, Options, Timing, emit, machine, markdown_table, ns, parse_options

DIRECTIONS = ("decode", "encode")


@dataclasses.dataclass
class Result:
    """One row in one direction: the timings, and the instructions when counted."""
    direction: str
    timed: _compare.Row
    instructions: dict[str, int] | None = None   # library -> instructions per operation
    process_ratios: list[float] | None = None    # --processes: each process's median zp/Struct

    @property
    def name(self) -> str:
        return self.timed.shape.name

    def time_ratio(self) -> float:
        return self.timed.vs("Struct").median

    def instruction_ratio(self) -> float | None:
        if not self.instructions:
            return None
        return self.instructions["zebrapack"] / self.instructions["msgspec"]


def run(selectors: Sequence[str], directions: Sequence[str], options: Options,
        count_instructions: bool) -> list[Result]:
    shapes = _family.select(selectors, options.sizes)
    results = []
    for direction in directions:
        for row in _compare.run(direction, options, shapes):
            results.append(Result(direction, row))
    if count_instructions:
        _count_instructions(results, options)
    return results


def _count_instructions(results: Sequence[Result], options: Options) -> None:
    wanted = [f"{result.name}:{result.direction}" for result in results]
    counts = {library: instructions.measure(library, wanted, sizes=options.sizes)
              for library in instructions.LIBRARIES}
    for result in results:
        key = f"{result.name}:{result.direction}"
        result.instructions = {library: counts[library][key].per_op for library in counts}


def _child_command(selectors: Sequence[str], directions: Sequence[str], options: Options, path: Path) -> list[str]:
    """The command line of one ``--processes`` worker: the same rows and options, times only."""
    command = [sys.executable, "-m", "benchmarks.bench_family", *selectors, "--no-instructions",
               "--rounds", str(options.rounds), "--best-of", str(options.best_of), "--timings-json", str(path)]
    for direction in directions:
        command += ["--direction", direction]
    if options.quick:
        command.append("--quick")
    if not options.gc:
        command.append("--no-gc")
    for name, value in options.sizes.items():
        command += ["--size", f"{name}={value}"]
    return command


def _dump_timings(results: Sequence[Result], path: Path) -> None:
    rows = [{"direction": result.direction, "name": result.name, "size": result.timed.size,
             "rounds": {name: timing.rounds for name, timing in result.timed.timings.items()}}
            for result in results]
    path.write_text(json.dumps({"hash_seed": os.environ.get("PYTHONHASHSEED"), "rows": rows}), encoding="utf-8")


def run_in_processes(selectors: Sequence[str], directions: Sequence[str], options: Options,
                     processes: int) -> list[Result]:
    """Time the rows in ``processes`` fresh processes, one after the other, hash seeds 1..N,
    and pool their rounds (the module docstring)."""
    shapes = {shape.name: shape for shape in _family.select(selectors, options.sizes)}
    pooled: dict[tuple[str, str], dict[str, list[float]]] = {}
    medians: dict[tuple[str, str], list[float]] = {}
    sizes: dict[tuple[str, str], int] = {}
    order: list[tuple[str, str]] = []
    root = Path(__file__).resolve().parent.parent
    for index in range(processes):
        seed = str(index + 1)
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "timings.json"
            start = time.perf_counter()
            subprocess.run(_child_command(selectors, directions, options, path), cwd=root, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}, stdout=subprocess.DEVNULL)
            worker = json.loads(path.read_text(encoding="utf-8"))
        if worker["hash_seed"] != seed:
            raise RuntimeError(f"a worker ran with PYTHONHASHSEED={worker['hash_seed']}, not {seed}")
        rows = worker["rows"]
        print(f"process {index + 1} of {processes} (PYTHONHASHSEED={seed}): {len(rows)} rows in "
              f"{time.perf_counter() - start:.0f} s", file=sys.stderr)
        for row in rows:
            key = (row["direction"], row["name"])
            if key not in pooled:
                order.append(key)
                pooled[key] = {name: [] for name in row["rounds"]}
                medians[key] = []
            for name, rounds in row["rounds"].items():
                pooled[key][name] += rounds
            # (a process's own median, as _harness.ratio takes it round by round)
            medians[key].append(_harness.ratio(Timing(row["rounds"]["zebrapack"]),
                                               Timing(row["rounds"]["Struct"])).median)
            sizes[key] = row["size"]
    return [Result(direction, _compare.Row(shapes[name], {contender: Timing(rounds) for contender, rounds
                                                           in pooled[direction, name].items()},
                                           sizes[direction, name]),
                   process_ratios=medians[direction, name])
            for direction, name in order]


def table(results: Sequence[Result]) -> str:
    per_process = any(result.process_ratios for result in results)
    header = ["family", "row", "bytes", "zebrapack", "Struct", "zp/Struct time",
              *(["process medians"] if per_process else []), "zp/Struct instructions",
              "instructions zp · Struct", "zp/dataclass", "zp/msgpack", "spread zp / Struct"]
    body = []
    for result in results:
        row, t = result.timed, result.timed.timings
        ratio = result.instruction_ratio()
        counts = result.instructions
        medians = result.process_ratios or []
        body.append([row.shape.families[0], row.shape.name + (" †" if row.shape.note else ""), f"{row.size:,}",
                     ns(t["zebrapack"].best), ns(t["Struct"].best), str(row.vs("Struct")),
                     *([f"{min(medians):.2f}–{max(medians):.2f}"] if per_process else []),
                     "" if ratio is None else f"{ratio:.2f}",
                     "" if counts is None else f"{counts['zebrapack']:,} · {counts['msgspec']:,}",
                     str(row.vs("dataclass")), str(row.vs("msgpack")),
                     f"{t['zebrapack'].spread:.0%} / {t['Struct'].spread:.0%}"])
    return markdown_table(header, body)


def above(results: Sequence[Result]) -> list[str]:
    """The rows above 1.0x msgspec.Struct in time (median) or instructions, as printed (two
    decimals: 1.004 is 1.00)."""
    lines = []
    for result in results:
        ratio = result.instruction_ratio()
        if round(result.time_ratio(), 2) > 1.0 or (ratio is not None and round(ratio, 2) > 1.0):
            instr = "" if ratio is None else f", instructions {ratio:.2f}x"
            lines.append(f"- {result.name} ({result.direction}): time {result.timed.vs('Struct')}x{instr}")
    return lines


def above_in_a_process(results: Sequence[Result]) -> list[str]:
    """The rows whose median in at least one process of ``--processes`` is above 1.0x (two decimals)."""
    return [f"- {result.name} ({result.direction}): process medians "
            + ", ".join(f"{value:.2f}" for value in result.process_ratios)
            for result in results
            if result.process_ratios and round(max(result.process_ratios), 2) > 1.0]


def report(results: Sequence[Result], options: Options) -> str:
    sections = []
    for direction in DIRECTIONS:
        chosen = [result for result in results if result.direction == direction]
        if chosen:
            sections.append(f"### {direction.capitalize()}\n\n{table(chosen)}")
    high = above(results)
    sections.append("### Above 1.0x msgspec.Struct\n\n" + ("\n".join(high) if high else "None."))
    processes = max((len(result.process_ratios or ()) for result in results), default=0)
    if processes:
        high = above_in_a_process(results)
        sections.append(f"### Above 1.0x in one process's median (of {processes})\n\n"
                        + ("\n".join(high) if high else "None."))
    notes = {result.name: result.timed.shape.note for result in results if result.timed.shape.note}
    if notes:
        sections.append("### † Where msgspec has no exact Go type\n\n"
                        + "\n".join(f"- {name}: {note}" for name, note in notes.items()))
    counted = any(result.instructions for result in results)
    rounds = (f"{options.rounds} interleaved rounds in each of {processes} processes "
              f"(PYTHONHASHSEED 1..{processes}, one after the other), pooled"
              if processes else f"{options.rounds} interleaved rounds")
    method = (f"Best ns per operation; time ratios: median over {rounds} (min–max), "
              f"each round the best of {options.best_of} batches; GC {'on' if options.gc else 'off'}. "
              + ("Instructions per operation: callgrind (`benchmarks.instructions`), PYTHONHASHSEED=0; "
                 "glibc's large copies (msgspec's, and zebrapack's below 16 KiB and past 4 MiB) count "
                 "about one instruction per byte there (`rep movsb`), zebrapack's own copy loop of "
                 "16 KiB-4 MiB payloads (where the CPU has AVX2) one per 12 bytes: for rows of large "
                 "strings and blobs time is the measure, not instructions."
                 if counted else "Instructions not counted (`--no-instructions` or no valgrind)."))
    text = f"{method}\n\n" + "\n\n".join(sections) + f"\n\n{machine()}"
    emit("The benchmark family: zebrapack / msgspec.Struct per row", text, options, "family.md")
    return text


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("selectors", nargs="*", help="families or rows (default: every row)")
    parser.add_argument("--direction", choices=DIRECTIONS, action="append", help="decode or encode (default: both)")
    parser.add_argument("--no-instructions", action="store_true", help="times only (no valgrind run)")
    parser.add_argument("--list", action="store_true", help="print the rows chosen and stop")
    parser.add_argument("--processes", type=int, default=1, metavar="N",
                        help="time in N fresh processes (hash seeds 1..N) and pool their rounds (default 1)")
    parser.add_argument("--timings-json", type=Path, default=None, help=argparse.SUPPRESS)  # a --processes worker


def main(argv: Sequence[str] | None = None) -> list[Result]:
    options = parse_options(argv, __doc__.splitlines()[0], _arguments)
    args = options.extra
    if args.list:
        for shape in _family.select(args.selectors, options.sizes):
            print(f"{shape.families[0]:<9} {shape.name:<28} {shape.description}")
        return []
    if options.out is None and not args.selectors:
        options.out = RESULTS_DIR
    count = not args.no_instructions and shutil.which("valgrind") is not None
    if not args.no_instructions and not count:
        print("valgrind is not on PATH: times only", file=sys.stderr)
    directions = args.direction or DIRECTIONS
    if args.timings_json is not None:
        results = run(args.selectors, directions, options, count_instructions=False)
        _dump_timings(results, args.timings_json)
        return results
    if args.processes < 1:
        raise SystemExit("--processes must be at least 1")
    if args.processes == 1:
        results = run(args.selectors, directions, options, count)
    else:
        results = run_in_processes(args.selectors, directions, options, args.processes)
        if count:
            _count_instructions(results, options)
    report(results, options)
    return results


if __name__ == "__main__":
    main()
