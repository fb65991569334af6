"""Shared by tests/arrow/test_read_*.py: the engines, skipped cleanly when missing
unless ZEBRAPACK_REQUIRE_ENGINES=1 (CI), where a missing engine is a failure."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRE_ENGINES = "ZEBRAPACK_REQUIRE_ENGINES"


def engine(name: str) -> ModuleType:
    """Import pyarrow / polars / duckdb, or skip (fail under ZEBRAPACK_REQUIRE_ENGINES=1)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        if os.environ.get(REQUIRE_ENGINES) == "1":
            pytest.fail(f"{name} is not installed ({REQUIRE_ENGINES}=1)", pytrace=False)
        pytest.skip(f"{name} is not installed; set {REQUIRE_ENGINES}=1 to make this a failure")
