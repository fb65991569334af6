"""The engines (pyarrow, pandas, Polars, DuckDB, Dask, PySpark) are optional extras
(``pip install 'zebrapack[engines]'``). A test module asks for one with ``engine(name)``:
when it is not installed the test (or module) is skipped, unless
``ZEBRAPACK_REQUIRE_ENGINES=1`` (set by ``.ci/run``), which makes that a failure, so CI
cannot pass by skipping them."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRE_ENGINES = "ZEBRAPACK_REQUIRE_ENGINES"

#: The import name of each engine and the extra that installs it.
EXTRAS = {"pyarrow": "arrow", "pandas": "pandas", "polars": "polars", "duckdb": "duckdb",
          "dask": "dask", "distributed": "dask", "pyspark": "spark"}


def engine(name: str) -> ModuleType:
    """Import an engine (``"pyarrow"``, ``"polars"``, ``"pyarrow.json"``...): skip the calling
    test (or module, at module level) when it is missing, fail when ZEBRAPACK_REQUIRE_ENGINES=1."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        top = name.partition(".")[0]
        reason = f"{name} is not installed (pip install 'zebrapack[{EXTRAS.get(top, 'engines')}]'): {error}"
        if os.environ.get(REQUIRE_ENGINES) == "1":
            pytest.fail(f"{reason} ({REQUIRE_ENGINES}=1)", pytrace=False)
        pytest.skip(f"{reason}; set {REQUIRE_ENGINES}=1 to make this a failure", allow_module_level=True)
