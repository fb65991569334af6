"""Run one shape's zebrapack decode or encode in a loop, for a profiler to sample.

    perf record -F 2000 -g -o /tmp/zp.data -- python -m benchmarks.profile_shape A decode --seconds 5
    perf report -i /tmp/zp.data --no-children --sort symbol

SHAPE is a row of the benchmark family (``A``, ``tiny``, ``1000 int64``, ``str cjk 10KB``, ...:
``python -m benchmarks.bench_family --list``), or ``decode_all`` for the stream of A records
(generated classes) (``--gc off`` to compare).
``--library msgspec`` runs msgspec.Struct's decoder or encoder on the same record instead. Build the
core with ``ZEBRAPACK_PROFILE=1 pip install -e .`` first: the release code with its symbols kept, so
that perf names its C functions (``__pyx_f_9zebrapack_5_core_*``).
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from typing import Any, Callable, Sequence

from ._family import select
from ._shapes import SEED, a_values, generated_schema
from .instructions import shape_operation


def operation(shape_name: str, direction: str, library: str = "zebrapack") -> Callable[[], Any]:
    if shape_name == "decode_all" and library == "zebrapack":
        schema = generated_schema()
        rng = random.Random(SEED)
        stream = b"".join(schema.encode(schema.types.A(**a_values(rng))) for _ in range(10_000)) * 2
        return lambda: schema.decode_all(stream)
    shapes = select([shape_name])   # SystemExit naming the rows when it is none of them
    if len(shapes) != 1:
        raise SystemExit(f"{shape_name!r} is a family: name one of its rows ({', '.join(s.name for s in shapes)})")
    return shape_operation(shapes[0], direction, library)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape")
    parser.add_argument("direction", choices=("decode", "encode"), nargs="?", default="decode")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--gc", choices=("on", "off"), default="on")
    parser.add_argument("--library", choices=("zebrapack", "msgspec"), default="zebrapack")
    args = parser.parse_args(argv)
    function = operation(args.shape, args.direction, args.library)
    if args.gc == "off":
        gc.disable()
    calls, deadline = 0, time.perf_counter() + args.seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            function()
        calls += 100
    print(f"{args.library} {args.shape} {args.direction}: {calls} calls in {args.seconds} s")


if __name__ == "__main__":
    main()
