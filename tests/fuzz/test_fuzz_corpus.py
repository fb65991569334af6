"""Replays the fuzzer's committed inputs: crashers it found (tests/fuzz/crashers/,
each fixed since) and interesting seeds (tests/fuzz/corpus/), through the same
checks as the fuzz target."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.vectors import TESTS

sys.path.insert(0, str(TESTS / "fuzz"))
from decode_target import check_input  # noqa: E402

INPUTS = sorted(path for folder in ("crashers", "corpus") for path in (TESTS / "fuzz" / folder).iterdir()
                if path.is_file() and not path.name.startswith(".") and path.name != "README.md")


def test_there_are_inputs_to_replay() -> None:
    assert any(path.parent.name == "corpus" for path in INPUTS)


@pytest.mark.parametrize("path", INPUTS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_committed_fuzz_input_decodes_cleanly_or_is_a_decode_error(path: Path) -> None:
    check_input(path.read_bytes())
