"""Mutation fuzzing in the normal suite: vectors with bytes flipped, replaced,
inserted, deleted, duplicated or cut off. Only DecodeError may escape, and
whatever decodes re-encodes and decodes to the same value (the checks of
tests/fuzz/decode_target.py, which the atheris fuzzer runs too)."""

from __future__ import annotations

import sys

from support.vectors import MANIFEST, TESTS, vector_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(TESTS / "fuzz"))
from decode_target import check_input  # noqa: E402

SEEDS = sorted({vector_bytes(case) for case in MANIFEST if len(vector_bytes(case)) < 4096})
#: Lead bytes of every msgpack family, the never-used one, and the largest lengths.
INTERESTING = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc6, 0xc7, 0xc9,
               0xca, 0xcb, 0xcc, 0xcf, 0xd0, 0xd3, 0xd4, 0xd8, 0xd9, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff]

positions = st.integers(0, 1 << 16)
mutation = st.one_of(
    st.tuples(st.just("flip"), positions, st.integers(0, 7)),
    st.tuples(st.just("replace"), positions, st.sampled_from(INTERESTING) | st.integers(0, 255)),
    st.tuples(st.just("insert"), positions, st.binary(min_size=1, max_size=6)),
    st.tuples(st.just("delete"), positions, st.integers(1, 16)),
    st.tuples(st.just("duplicate"), positions, st.integers(1, 32)),
    st.tuples(st.just("truncate"), positions, st.just(0)),
)


def mutated(seed: bytes, mutations: list[tuple[str, int, object]]) -> bytes:
    data = bytearray(seed)
    for operation, position, argument in mutations:
        if not data:
            break
        at = position % len(data)
        if operation == "flip":
            data[at] ^= 1 << argument  # type: ignore[operator]
        elif operation == "replace":
            data[at] = argument  # type: ignore[call-overload]
        elif operation == "insert":
            data[at:at] = argument  # type: ignore[index]
        elif operation == "delete":
            del data[at:at + argument]  # type: ignore[operator]
        elif operation == "duplicate":
            data[at:at] = data[at:at + argument]  # type: ignore[operator]
        else:
            del data[at:]
    return bytes(data)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.sampled_from(SEEDS), mutations=st.lists(mutation, min_size=1, max_size=5))
def test_mutated_vectors_decode_cleanly_or_are_a_decode_error(seed: bytes, mutations: list[tuple[str, int, object]]) -> None:
    check_input(mutated(seed, mutations))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=64))
def test_random_bytes_decode_cleanly_or_are_a_decode_error(data: bytes) -> None:
    check_input(data)
