"""The floor of a record decode, in instructions: the Python objects alone, against
zebrapack's and msgspec.Struct's whole decode of the same record.

    python -m benchmarks.decode_floor              # the README's A record
    python -m benchmarks.decode_floor A tiny wide "wide 2/40 set"

Any library that returns the record as Python objects builds and drops them: the
instance, its strs, datetime, int, float. ``_floor.pyx`` (compiled here on first use,
into ``build/floor``) builds exactly those objects from C values with the calls
zebrapack's decoder makes for them (its docstring lists them; the instance comes from
its class's ``tp_alloc``, where the decoder takes a freed block when it has one; values
the decoder shares, such as None, small ints and the zero values of absent fields, are
taken by reference) and reads no input. Each is counted as ``benchmarks.instructions`` counts a decode (callgrind,
the same loop of K operations between two ``zlib.crc32`` dumps, ``PYTHONHASHSEED=0``):

- ``zebrapack``, ``msgspec``: the row's decode, as ``benchmarks.instructions`` reports it;
- ``objects``: one ``Floor.build()`` a loop step, building and dropping the objects;
- ``loop``: one ``Floor.nothing()`` a loop step (the loop and a call, no objects), which is
  in every other column too.

So ``objects`` is what no decoder returning these objects goes below (but for cheaper
allocation, such as a freelist), and ``zebrapack - objects`` and ``msgspec - objects``
are each library's own work: reading the input, finding the fields, its entry. Only
records of atoms (str, int, float, bool, None, bytes, UTC datetimes) have this floor; a
row of other values is refused. Needs valgrind on PATH and a C compiler.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import sysconfig
from typing import Any, Callable, Sequence

from . import instructions

ROOT = instructions.ROOT
BUILD = os.path.join(ROOT, "build", "floor")
SOURCES = (os.path.join(ROOT, "benchmarks", "_floor.pyx"), os.path.join(ROOT, "cython", "zp_object.h"),
           os.path.join(ROOT, "cython", "zp_wire.h"))
MODES = ("objects", "loop")


def build_floor() -> None:
    """Compile ``_floor.pyx`` into BUILD unless it is there, for this Python (each has its own
    extension suffix: a checkout tested with two Pythons builds it twice), and newer than
    its sources."""
    built = os.path.join(BUILD, "_floor" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    if os.path.exists(built) and os.path.getmtime(built) >= max(map(os.path.getmtime, SOURCES)):
        return
    os.makedirs(BUILD, exist_ok=True)
    script = (
        "import sys\n"
        "from setuptools import Extension, setup\n"
        "from Cython.Build import cythonize\n"
        f"ext = Extension('_floor', [{SOURCES[0]!r}], include_dirs=[{os.path.dirname(SOURCES[1])!r}],\n"
        "                extra_compile_args=['-O3'])\n"
        f"setup(name='floor', ext_modules=cythonize([ext], build_dir={BUILD!r}, quiet=True),\n"
        f"      script_args=['build_ext', '--build-lib', {BUILD!r}, '--build-temp', {os.path.join(BUILD, 'tmp-' + sys.implementation.cache_tag)!r}])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=BUILD)
    if done.returncode != 0:
        raise RuntimeError(f"building benchmarks/_floor.pyx failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")


def floor_operation(shape: Any, mode: str) -> Callable[[], Any]:
    """One step of the floor's loop for a row: its objects built and dropped, or the bare call."""
    if BUILD not in sys.path:
        sys.path.insert(0, BUILD)
    from _floor import Floor  # type: ignore[import-not-found]  # built by build_floor
    data = shape.schema.encode(shape.zebrapack_value)
    record = shape.schema.decode(data)
    floor = Floor(record, shape.schema.decode(data))
    built = floor.build()
    if built != record:
        raise AssertionError(f"the floor of {shape.name} built {built!r}, not {record!r}")
    operation = floor.build if mode == "objects" else floor.nothing
    return lambda: operation()


def _child(selectors: list[str], sizes: dict[str, int]) -> None:
    """Under valgrind: each row's two loops between crc32 calls; print [(name, K), ...]."""
    from ._family import select
    order = []
    for shape in select(selectors, sizes):
        count = instructions.loop_count(len(shape.schema.encode(shape.zebrapack_value)))
        order += [instructions.counted_loop(f"{shape.name}:{mode}", floor_operation(shape, mode), count)
                  for mode in MODES]
    print(repr(order))


def floor_table(rows: Sequence[str], top: int = 0, sizes: dict[str, int] | None = None) -> str:
    """The markdown table of the rows (and the objects' ``top`` costliest functions)."""
    build_floor()
    floor = instructions.measure("floor", rows, top, sizes, module="benchmarks.decode_floor")
    decodes = [f"{row}:decode" for row in rows]
    zp = instructions.measure("zebrapack", decodes, sizes=sizes)
    ms = instructions.measure("msgspec", decodes, sizes=sizes)
    lines = ["| row | zebrapack | msgspec | objects | loop | zp / Struct | zp - objects | Struct - objects "
             "| zp's own / Struct's own |", "|---|" + "---:|" * 8]
    for row in rows:
        n, m = zp[f"{row}:decode"].per_op, ms[f"{row}:decode"].per_op
        f, loop = floor[f"{row}:objects"].per_op, floor[f"{row}:loop"].per_op
        lines.append(f"| {row} | {n:,} | {m:,} | {f:,} | {loop:,} | {n / m:.2f} | {n - f:,} | {m - f:,} "
                     f"| {(n - f) / (m - f):.2f} |")
    for name, count in floor.items():
        if count.functions and name.endswith(":objects"):
            lines.append(f"\nobjects of {name.rpartition(':')[0]}: {count.per_op:,} instructions per operation")
            lines += [f"  {per_op:>12,}  {per_op / count.per_op:6.1%}  {function}" for function, per_op in count.functions]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="*", default=["A"], help="rows of records of atoms (default: A)")
    parser.add_argument("--top", type=int, default=0, help="also list the objects' N costliest functions")
    parser.add_argument("--size", action="append", default=[], metavar="NAME=N",
                        help="the rows' sizes, as the benchmarks' --size")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sizes = {name: int(value) for name, _, value in (item.partition("=") for item in args.size)}
    if args.child:
        _child(args.rows, sizes)
        return ""
    text = floor_table(args.rows, args.top, sizes)
    print(text)
    return text


if __name__ == "__main__":
    main()
