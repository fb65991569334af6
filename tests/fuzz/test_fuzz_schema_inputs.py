"""Replays the schema fuzzers' committed inputs (tests/fuzz/load/ and tests/fuzz/stream/:
seeds and the findings fixed since) through the same checks as the fuzz targets."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.vectors import TESTS

sys.path.insert(0, str(TESTS / "fuzz"))
from schema_target import check_load, check_stream  # noqa: E402

TARGETS = {"load": check_load, "stream": check_stream}
INPUTS = sorted((target, path) for target in TARGETS for path in (TESTS / "fuzz" / target).iterdir()
                if path.is_file() and not path.name.startswith("."))


def test_each_schema_target_has_inputs_to_replay() -> None:
    assert {target for target, _ in INPUTS} == set(TARGETS)


@pytest.mark.parametrize(("target", "path"), INPUTS, ids=lambda item: item if isinstance(item, str) else item.name)
def test_committed_schema_fuzz_input_loads_or_is_our_error(target: str, path: Path) -> None:
    TARGETS[target](path.read_bytes())
