"""Runs of the append benchmarks, in a fresh interpreter: ``python -m benchmarks._appends N...``
prints, as JSON, the seconds each way of appending N ``A`` records took, for each N.

Why a fresh interpreter: the cost of growing one bytearray record by record
depends on the allocator's state. After a process has freed large blocks,
glibc raises its mmap threshold and a growing buffer is extended in place, which
hides a per-append cost proportional to the buffer (the encoder's size hint
defect of issue 11); a program's first loop sees it. Each zebrapack run also
gets a fresh schema, since the size hint lives in the schema and only grows.
"""

from __future__ import annotations

import gc
import io
import json
import os
import random
import sys
import time
from typing import Any, Callable

import msgspec

from . import _structs
from ._shapes import SEED, A, a_values, shapes_schema


def _timed(run: Callable[[], Any]) -> float:
    gc.collect()
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def zebrapack_writer(records: list[A]) -> float:
    schema = shapes_schema()

    def run() -> None:
        with open(os.devnull, "wb") as f, schema.writer(f) as w:
            for r in records:
                w.write(r)
    return _timed(run)


def zebrapack_encode_into(records: list[A]) -> float:
    schema = shapes_schema()

    def run() -> None:
        buf = bytearray()
        encode_into = schema.encode_into
        for r in records:
            encode_into(r, buf, -1)
    return _timed(run)


def msgspec_file_writes(records: list[Any]) -> float:
    encode = msgspec.msgpack.Encoder().encode

    def run() -> None:
        with open(os.devnull, "wb") as raw, io.BufferedWriter(raw, 1 << 16) as f:
            for r in records:
                f.write(encode(r))
    return _timed(run)


def msgspec_encode_into(records: list[Any]) -> float:
    encode_into = msgspec.msgpack.Encoder().encode_into

    def run() -> None:
        buf = bytearray()
        for r in records:
            encode_into(r, buf, -1)
    return _timed(run)


def run_once(count: int) -> dict[str, float]:
    rng = random.Random(SEED)
    values = [a_values(rng) for _ in range(min(count, 10_000))]
    repeat = -(-count // len(values))
    plain = ([A(**v) for v in values] * repeat)[:count]
    structs = ([_structs.A(**v) for v in values] * repeat)[:count]
    return {
        "zebrapack writer.write": zebrapack_writer(plain),
        "msgspec encode + file.write": msgspec_file_writes(structs),
        "zebrapack encode_into(-1)": zebrapack_encode_into(plain),
        "msgspec encode_into(-1)": msgspec_encode_into(structs),
    }


def main() -> None:
    schema = shapes_schema()
    records = [A(**a_values(random.Random(i))) for i in range(100)]
    buf = bytearray()
    for r in records:
        schema.encode_into(r, buf, -1)
    assert bytes(buf) == b"".join(schema.encode(r) for r in records), "encode_into(-1) does not append"
    print(json.dumps({count: run_once(int(count)) for count in sys.argv[1:]}))


if __name__ == "__main__":
    main()
