"""The benchmark family: every row of ``_family``, decode and encode, zebrapack against
msgspec.Struct, msgspec's dataclass mode and msgpack-python, times beside instructions.

    python -m benchmarks.bench_family                      # every row; writes benchmarks/results/family.md
    python -m benchmarks.bench_family strings ints         # some families (printed; --out DIR writes)
    python -m benchmarks.bench_family "str cjk 10KB" --direction encode
    python -m benchmarks.bench_family --quick --no-instructions   # a smoke run

Selectors are family names (records, strings, ints, floats, bytes, times, any, maps,
optional, bools, small, random) or row names (``--list`` prints them). Times: the four contenders of a row
interleaved in one process, as ``bench_decode``/``bench_encode`` (``_harness``); each
contender's round trip is checked first. Instructions: ``benchmarks.instructions``
under callgrind, zebrapack and msgspec.Struct, on by default when valgrind is on PATH
(``--no-instructions`` leaves them out). The table gives both ratios to
``msgspec.Struct`` and lists the rows above 1.0x in either; where msgspec has no exact
Go type the row says what it holds instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
from collections.abc import Sequence

from . import _compare, _family, instructions
from ._harness import RESULTS_DIR, Options, emit, machine, markdown_table, ns, parse_options

DIRECTIONS = ("decode", "encode")


@dataclasses.dataclass
class Result:
    """One row in one direction: the timings, and the instructions when counted."""
    direction: str
    timed: _compare.Row
    instructions: dict[str, int] | None = None   # library -> instructions per operation

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
        wanted = [f"{result.name}:{result.direction}" for result in results]
        counts = {library: instructions.measure(library, wanted, sizes=options.sizes)
                  for library in instructions.LIBRARIES}
        for result in results:
            key = f"{result.name}:{result.direction}"
            result.instructions = {library: counts[library][key].per_op for library in counts}
    return results


def table(results: Sequence[Result]) -> str:
    header = ["family", "row", "bytes", "zebrapack", "Struct", "zp/Struct time", "zp/Struct instructions",
              "instructions zp · Struct", "zp/dataclass", "zp/msgpack", "spread zp / Struct"]
    body = []
    for result in results:
        row, t = result.timed, result.timed.timings
        ratio = result.instruction_ratio()
        counts = result.instructions
        body.append([row.shape.families[0], row.shape.name + (" †" if row.shape.note else ""), f"{row.size:,}",
                     ns(t["zebrapack"].best), ns(t["Struct"].best), str(row.vs("Struct")),
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


def report(results: Sequence[Result], options: Options) -> str:
    sections = []
    for direction in DIRECTIONS:
        chosen = [result for result in results if result.direction == direction]
        if chosen:
            sections.append(f"### {direction.capitalize()}\n\n{table(chosen)}")
    high = above(results)
    sections.append("### Above 1.0x msgspec.Struct\n\n" + ("\n".join(high) if high else "None."))
    notes = {result.name: result.timed.shape.note for result in results if result.timed.shape.note}
    if notes:
        sections.append("### † Where msgspec has no exact Go type\n\n"
                        + "\n".join(f"- {name}: {note}" for name, note in notes.items()))
    counted = any(result.instructions for result in results)
    method = (f"Best ns per operation; time ratios: median over {options.rounds} interleaved rounds (min–max), "
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
    results = run(args.selectors, args.direction or DIRECTIONS, options, count)
    report(results, options)
    return results


if __name__ == "__main__":
    main()
