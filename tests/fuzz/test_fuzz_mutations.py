"""Mutation fuzzing in the normal suite: vectors with bytes flipped, replaced,
inserted, deleted, duplicated or cut off. Only DecodeError may escape, and
whatever decodes re-encodes and decodes to the same value (the checks of
tests/fuzz/decode_target.py, which the atheris fuzzer runs too)."""

from __future__ import annotations

import sys

from support.mutations import INTERESTING, mutated
from support.vectors import MANIFEST, TESTS, vector_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(TESTS / "fuzz"))
from decode_target import check_input  # noqa: E402

SEEDS = sorted({vector_bytes(case) for case in MANIFEST if len(vector_bytes(case)) < 4096})

positions = st.integers(0, 1 << 16)
mutation = st.one_of(
    st.tuples(st.just("flip"), positions, st.integers(0, 7)),
    st.tuples(st.just("replace"), positions, st.sampled_from(INTERESTING) | st.integers(0, 255)),
    st.tuples(st.just("insert"), positions, st.binary(min_size=1, max_size=6)),
    st.tuples(st.just("delete"), positions, st.integers(1, 16)),
    st.tuples(st.just("duplicate"), positions, st.integers(1, 32)),
    st.tuples(st.just("truncate"), positions, st.just(0)),
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.sampled_from(SEEDS), mutations=st.lists(mutation, min_size=1, max_size=5))
def test_mutated_vectors_decode_cleanly_or_are_a_decode_error(seed: bytes, mutations: list[tuple[str, int, object]]) -> None:
    check_input(mutated(seed, mutations))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=64))
def test_random_bytes_decode_cleanly_or_are_a_decode_error(data: bytes) -> None:
    check_input(data)
