"""Instructions per operation under callgrind: zebrapack and msgspec.Struct on the family's rows.

    python -m benchmarks.instructions                        # the eleven record shapes, both directions
    python -m benchmarks.instructions strings "A:decode" "1000 float32" --library zebrapack
    python -m benchmarks.instructions "str cjk 10KB:encode" --top 15   # and where they go, by function

A selector is a family of ``_family`` (``strings``, ``ints``, ...: its every row), a row
(both directions) or ``row:direction``; none: the ``records`` family (the eleven).
Timings on a shared machine move by tens of percent with the load; the number of
instructions an operation executes does not (valgrind's callgrind counts them, with
``PYTHONHASHSEED=0`` so that dict layouts repeat). It is not time (cache misses and
instruction-level parallelism differ between libraries), but it shows a change of
the core reliably, and the ratio to msgspec on the same records. Each library runs
in one process under valgrind; every loop of K operations sits between two calls of
``zlib.crc32``, which ``--dump-before=zlib_crc32`` turns into dump boundaries, so the
cost of building the shapes is left out. The loop's own cost (a Python ``for`` and a
lambda call, the same for both libraries) is included. ``--top N`` adds each row's N
functions of most instructions (self cost, read from the dump) with their share:
build the core with ``ZEBRAPACK_PROFILE=1`` first so that its functions have names.
Needs valgrind on PATH.
"""

from __future__ import annotations

import argparse
import ast
import gc
import glob
import os
import subprocess
import sys
import tempfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

LIBRARIES = ("zebrapack", "msgspec")
DIRECTIONS = ("decode", "encode")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class Count:
    """One operation's instructions, and (``top``) its costliest functions: (name, per op)."""
    per_op: int
    functions: list[tuple[str, int]] = field(default_factory=list)


def shape_operation(shape: Any, direction: str, library: str) -> Callable[[], Any]:
    """One decode or encode of a family row's record by zebrapack or msgspec.Struct."""
    import msgspec
    if library == "msgspec":
        encoder = msgspec.msgpack.Encoder()
        value = shape.struct_value
        if direction == "encode":
            return lambda: encoder.encode(value)
        data = encoder.encode(value)
        decode = msgspec.msgpack.Decoder(type(value)).decode
        return lambda: decode(data)
    value = shape.zebrapack_value
    if direction == "encode":
        encode = shape.schema.encode
        return lambda: encode(value)
    data = shape.schema.encode(value)
    decode_ = shape.schema.decode
    return lambda: decode_(data)


def loop_count(size: int) -> int:
    """Operations per measured loop: about a megabyte of records, 3 to 200 operations."""
    return max(3, min(200, 1_000_000 // max(size, 1)))


def _split(selectors: Sequence[str]) -> tuple[list[str], set[str]]:
    """The names to build (families or rows), and the ``row:direction`` pairs asked for."""
    names: list[str] = []
    pairs: set[str] = set()
    for selector in selectors or ["records"]:
        name, _, direction = selector.rpartition(":")
        if direction in DIRECTIONS and name:
            names.append(name)
            pairs.add(selector)
        else:
            names.append(selector)
            pairs.update(f"{selector}:{d}" for d in DIRECTIONS)
    return names, pairs


def _child(library: str, selectors: list[str], sizes: dict[str, int]) -> None:
    """Under valgrind: run each loop between two crc32 calls; print [(name, K), ...]."""
    from ._family import select
    names, pairs = _split(selectors)
    order = []
    shapes = select(names, sizes)
    # The shapes built (every row's values, up to megabytes each) are moved out of the
    # collector's generations: a full collection that lands in a counted loop then walks
    # what that loop made, not every row's values. Which loop one lands in follows what
    # the process built before it, so without this a row's count moved by 20% with the
    # rows measured beside it (interface{} JSON-like 64KB decode: 0.77x to 1.22x).
    gc.collect()
    gc.freeze()
    for shape in shapes:
        for direction in DIRECTIONS:
            name = f"{shape.name}:{direction}"
            if name not in pairs and not any(f in names for f in shape.families):
                continue
            count = loop_count(len(shape.schema.encode(shape.zebrapack_value)))
            order.append(counted_loop(name, shape_operation(shape, direction, library), count))
    print(repr(order))


def counted_loop(name: str, function: Callable[[], Any], count: int) -> tuple[str, int]:
    """Under valgrind: ``count`` calls of function between two crc32 calls (dump boundaries),
    after three calls to warm up; (name, count) for the parent's order."""
    for _ in range(3):
        function()
    zlib.crc32(b"")
    for _ in range(count):
        function()
    zlib.crc32(b"")
    return name, count


def _functions(path: str, count: int, top: int) -> list[tuple[str, int]]:
    """The ``top`` functions of most self instructions in one callgrind dump, per operation.

    Read from the dump itself (written with ``--compress-strings=no``): a cost line counts
    for the function of the last ``fn=``, except the line after ``calls=``, which is the
    inclusive cost of a call. (``callgrind_annotate`` misreads the parts of a dump split by
    ``--dump-before``: it gives every function active at the split the whole part.)"""
    costs: Counter[str] = Counter()
    function, obj, after_call = "?", "", False
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith("ob="):
                obj = os.path.basename(line[3:].strip())
            elif line.startswith("fn="):
                # recursion levels ("f'2") are the same function
                function = f"{line[3:].strip().split(chr(39))[0]} ({obj})"
            elif line.startswith("calls="):
                after_call = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                fields = line.split()
                if after_call:
                    after_call = False
                elif len(fields) > 1:
                    costs[function] += int(fields[1])
    return [(name, cost // count) for name, cost in costs.most_common(top)]


def measure(library: str, selectors: Sequence[str] = (), top: int = 0,
            sizes: dict[str, int] | None = None, module: str = "benchmarks.instructions") -> dict[str, Count]:
    """Instructions per operation of each row:direction for one library (see the module doc);
    ``sizes`` as the benchmarks' ``--size`` (the rows' list lengths). ``module``: the one whose
    ``--child`` runs the loops (``benchmarks.decode_floor`` has its own operations)."""
    size_args = [f"--size={name}={value}" for name, value in (sizes or {}).items()]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        child = subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-before=zlib_crc32", "--compress-strings=no",
             f"--callgrind-out-file={out}",
             sys.executable, "-m", module, "--child", library, *size_args, "--", *selectors],
            capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, cwd=ROOT)
        if child.returncode != 0:
            raise RuntimeError(f"the {library} run under valgrind failed:\n{child.stderr[-3000:]}")
        order = ast.literal_eval(child.stdout.strip().splitlines()[-1])
        parts = sorted(glob.glob(out + ".*"), key=lambda path: int(path.rsplit(".", 1)[1]))
        totals = []
        for path in parts:
            with open(path, encoding="utf-8") as handle:
                totals.append(next(int(line.split()[1]) for line in handle if line.startswith("summary:")))
        # dump 1 is everything before the first loop; then loop, gap, loop, gap...
        return {name: Count(totals[2 * i + 1] // count, _functions(parts[2 * i + 1], count, top) if top else [])
                for i, (name, count) in enumerate(order)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("selectors", nargs="*",
                        help="family, row or row:direction, e.g. strings, A, A:decode (default: records)")
    parser.add_argument("--library", choices=LIBRARIES, action="append")
    parser.add_argument("--top", type=int, default=0, help="also list each row's N costliest functions")
    parser.add_argument("--size", action="append", default=[], metavar="NAME=N",
                        help="the rows' sizes, as the benchmarks' --size (e.g. n=100)")
    parser.add_argument("--child", choices=LIBRARIES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = {name: int(value) for name, _, value in (item.partition("=") for item in args.size)}
    if args.child:
        _child(args.child, args.selectors, sizes)
        return
    results = {library: measure(library, args.selectors, args.top, sizes) for library in args.library or LIBRARIES}
    names = next(iter(results.values())).keys()
    both = len(results) == 2
    print("| row | " + " | ".join(results) + (" | zp/Struct |" if both else " |"))
    print("|---|" + "---:|" * (len(results) + both))
    for name in names:
        cells = [f"{results[library][name].per_op:,}" for library in results]
        if both:
            cells.append(f"{results['zebrapack'][name].per_op / results['msgspec'][name].per_op:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    for library, counts in results.items():
        for name, count in counts.items():
            if count.functions:
                print(f"\n{library} {name}: {count.per_op:,} instructions per operation")
                for function, per_op in count.functions:
                    print(f"  {per_op:>12,}  {per_op / count.per_op:6.1%}  {function}")


if __name__ == "__main__":
    main()
