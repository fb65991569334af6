"""Shared fixtures: the reference vectors and their schemas."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import zebrapack

TESTS = Path(__file__).parent
VECTORS = TESTS / "vectors"
sys.path.insert(0, str(TESTS))

MANIFEST: list[dict[str, Any]] = json.loads((VECTORS / "manifest.json").read_text())


def case_id(case: dict[str, Any]) -> str:
    return f"{case['schema'].removesuffix('.z')}/{case['name']}"


_SCHEMAS: dict[str, zebrapack.Schema] = {}


def vector_schema(name: str) -> zebrapack.Schema:
    """The schema of tests/vectors/schemas/NAME (loaded once per session)."""
    if name not in _SCHEMAS:
        _SCHEMAS[name] = zebrapack.load(VECTORS / "schemas" / name)
    return _SCHEMAS[name]


def vector_bytes(case: dict[str, Any]) -> bytes:
    return (VECTORS / case["file"]).read_bytes()


@pytest.fixture(scope="session")
def zp() -> zebrapack.Schema:
    return vector_schema("zp.z")
