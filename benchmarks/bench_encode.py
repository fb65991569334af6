"""Encode speed per record shape: zebrapack vs msgspec.Struct vs msgspec's dataclass
mode vs msgpack.packb of an equivalent dict.

    python -m benchmarks.bench_encode [--quick] [--rounds R] [--best-of N] [--out DIR]

zebrapack encodes the schema's class (strict typing included), msgspec the
Struct twin (``omit_defaults``: the same keys as zebrapack) and the slots
dataclass, msgpack.packb the record as plain dicts. ``python -m benchmarks``
runs everything and draws the chart.
"""

from __future__ import annotations

from typing import Sequence

from . import _compare
from ._harness import parse_options


def main(argv: Sequence[str] | None = None) -> list[_compare.Row]:
    options = parse_options(argv, __doc__.splitlines()[0])
    rows = _compare.run("encode", options)
    _compare.report("encode", rows, options)
    return rows


if __name__ == "__main__":
    main()
