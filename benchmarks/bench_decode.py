"""Decode speed per record shape: zebrapack vs msgspec.Struct vs msgspec's dataclass
mode vs msgpack-python (unpackb + building the dataclasses).

    python -m benchmarks.bench_decode [--quick] [--rounds R] [--best-of N] [--out DIR]

Each library decodes its own bytes of the same logical record: zebrapack its
zid-keyed bytes into the schema's class, msgspec its msgpack into the Struct twin
or into the slots dataclass, msgpack.unpackb the same msgpack followed by
building the dataclasses by hand. ``python -m benchmarks`` runs everything and
draws the chart.
"""

from __future__ import annotations

from typing import Sequence

from . import _compare
from ._harness import parse_options


def main(argv: Sequence[str] | None = None) -> list[_compare.Row]:
    options = parse_options(argv, __doc__.splitlines()[0])
    rows = _compare.run("decode", options)
    _compare.report("decode", rows, options)
    return rows


if __name__ == "__main__":
    main()
