"""Instructions per operation under callgrind: zebrapack and msgspec.Struct on every shape.

    python -m benchmarks.instructions                       # every shape, both libraries
    python -m benchmarks.instructions "A:decode" "tiny:encode" --library zebrapack

Timings on a shared machine move by tens of percent with the load; the number of
instructions an operation executes does not (valgrind's callgrind counts them, with
``PYTHONHASHSEED=0`` so that dict layouts repeat). It is not time (cache misses and
instruction-level parallelism differ between libraries), but it shows a change of
the core reliably, and the ratio to msgspec on the same records. Each library runs
in one process under valgrind; every loop of K operations sits between two calls of
``zlib.crc32``, which ``--dump-before=zlib_crc32`` turns into dump boundaries, so the
cost of building the shapes is left out. The loop's own cost (a Python ``for`` and a
lambda call, the same for both libraries) is included. Needs valgrind on PATH.
"""

from __future__ import annotations

import argparse
import ast
import glob
import os
import subprocess
import sys
import tempfile
import zlib
from typing import Any, Callable, Sequence

LIBRARIES = ("zebrapack", "msgspec")


def _operation(shape: Any, direction: str, library: str) -> Callable[[], Any]:
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


def _child(library: str, wanted: list[str]) -> None:
    """Under valgrind: run each loop between two crc32 calls; print [(name, K), ...]."""
    from ._shapes import build_shapes
    order = []
    for shape in build_shapes():
        for direction in ("decode", "encode"):
            name = f"{shape.name}:{direction}"
            if wanted and name not in wanted:
                continue
            function = _operation(shape, direction, library)
            count = 20 if "1000" in shape.name else 200
            for _ in range(10):
                function()
            zlib.crc32(b"")
            for _ in range(count):
                function()
            zlib.crc32(b"")
            order.append((name, count))
    print(repr(order))


def measure(library: str, wanted: Sequence[str] = ()) -> dict[str, int]:
    """Instructions per operation of each shape:direction for one library."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        child = subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-before=zlib_crc32", f"--callgrind-out-file={out}",
             sys.executable, "-m", "benchmarks.instructions", "--child", library, *wanted],
            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"},
            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        order = ast.literal_eval(child.stdout.strip().splitlines()[-1])
        parts = sorted(glob.glob(out + ".*"), key=lambda path: int(path.rsplit(".", 1)[1]))
        totals = []
        for path in parts:
            with open(path, encoding="utf-8") as handle:
                totals.append(next(int(line.split()[1]) for line in handle if line.startswith("summary:")))
    # dump 1 is everything before the first loop; then loop, gap, loop, gap...
    return {name: totals[2 * i + 1] // count for i, (name, count) in enumerate(order)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shapes", nargs="*", help="shape:direction, e.g. A:decode (default: all)")
    parser.add_argument("--library", choices=LIBRARIES, action="append")
    parser.add_argument("--child", choices=LIBRARIES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.shapes)
        return
    results = {library: measure(library, args.shapes) for library in args.library or LIBRARIES}
    names = next(iter(results.values())).keys()
    print("| shape | " + " | ".join(results) + (" | zp/Struct |" if len(results) == 2 else " |"))
    print("|---|" + "---:|" * (len(results) + (len(results) == 2)))
    for name in names:
        cells = [f"{results[library][name]:,}" for library in results]
        if len(results) == 2:
            cells.append(f"{results['zebrapack'][name] / results['msgspec'][name]:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
