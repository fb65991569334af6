"""Leaks: failing and successful calls leave nothing behind. A leak of even one
object per call would add a memory block (16 bytes at least) per call, or one
reference to an object the calls touch."""

from __future__ import annotations

import gc
import sys
import tracemalloc
import warnings
from collections.abc import Callable

import pytest
from support.memory import needs_resident_size, resident_bytes
from support.vectors import VECTORS
from support.decode_failures import FAILURES, ZP

import zebrapack
from zebrapack import DecodeError, EncodeError

BLOCK = 16
#: Failing at depth 32 rather than 1000 makes the too-deep failures 30 times cheaper
#: (each level adds a traceback entry), the same failure all the same.
SHALLOW = zebrapack.load(VECTORS / "schemas" / "zp.z", max_depth=32)
SMALL_VECTORS = [(VECTORS / "zp" / f"{name}.zpk").read_bytes() for name in
                 ("A_seed", "Prims_max", "Prims_min", "Prims_any_map", "Prims_any_time", "Compound_full", "Tree_small")]
#: Objects every call touches: a reference kept by mistake shows in their counts.
WATCHED = (None, True, False, ZP.types.Prims, ZP.types.Compound, ZP.types.Inner, DecodeError, EncodeError)


def assert_no_growth(action: Callable[[], object], calls: int) -> None:
    """Run action (which makes `calls` calls) under the tracer: its traced memory must
    grow by less than a block per call, the watched reference counts not at all."""
    action()                                # warm caches (traceback entries, interned text)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        references = [sys.getrefcount(obj) for obj in WATCHED]
        action()
        after = [sys.getrefcount(obj) for obj in WATCHED]
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert growth < calls * BLOCK, f"{growth} bytes for {calls} calls"
    assert after == references


def repeat(action: Callable[[], object], times: int) -> None:
    for _ in range(times):
        action()


@pytest.mark.parametrize("failure", FAILURES)
def test_a_thousand_failing_decodes_leak_nothing(failure: str) -> None:
    data = FAILURES[failure]

    def fail() -> None:
        try:
            SHALLOW.decode(data)
        except DecodeError:
            return
        raise AssertionError("decoded")

    assert_no_growth(lambda: repeat(fail, 1000), 1000)


def test_a_thousand_failing_encodes_leak_nothing() -> None:
    values = [ZP.types.Inner(X="x"), ZP.types.Prims(Any=object()), ZP.types.Compound(Ints=[1, None]),
              ZP.types.Compound(SMap={"k": 2**70}), ZP.types.A(Bday=ZP.types.A)]
    target = bytearray(b"kept")

    def fail() -> None:
        for value in values:
            for encode in (ZP.encode, lambda v: ZP.encode_into(v, target, -1)):
                try:
                    encode(value)
                except EncodeError:
                    continue
                raise AssertionError("encoded")

    assert_no_growth(lambda: repeat(fail, 100), 1000)
    assert target == b"kept"


@needs_resident_size
def test_200000_decode_encode_cycles_leak_nothing() -> None:
    data = SMALL_VECTORS * (200_000 // len(SMALL_VECTORS))
    decode, encode = ZP.decode, ZP.encode

    def cycles(inputs: list[bytes]) -> None:
        for item in inputs:
            encode(decode(item))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cycles(data[:5000])
        resident = resident_bytes()
        cycles(data)
        assert resident_bytes() - resident < len(data) * BLOCK
        # The tracer slows every allocation: a tenth of the cycles, measured exactly.
        assert_no_growth(lambda: cycles(data[:20_000]), 20_000)


def test_a_thousand_stream_decoders_fed_in_pieces_or_failing_leak_nothing() -> None:
    stream = b"".join(SMALL_VECTORS)
    failures = list(FAILURES.values())

    def run() -> None:
        decoder = SHALLOW.stream_decoder()
        for start in range(0, len(stream), 7):
            decoder.feed(stream[start:start + 7])
            for _ in decoder:
                pass
        decoder.close()
        for failure in failures:
            failing = SHALLOW.stream_decoder()
            try:
                failing.feed(failure + stream)
                for _ in failing:
                    pass
                failing.close()
            except DecodeError:
                continue

    assert_no_growth(lambda: repeat(run, 1000 // (1 + len(failures)) + 1), 1000)
