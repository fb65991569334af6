"""What the Arrow tests share: the engines they need, skipped when missing unless required.

The engines (pyarrow, pandas, Polars, DuckDB, Dask, PySpark) are optional extras
(``pip install 'zebrapack[engines]'``). A test asks for one with ``engine(name)``
(or a fixture below): when it is not installed the test is skipped, unless
``ZEBRAPACK_REQUIRE_ENGINES=1`` (set by ``.ci/run``), which makes that a failure,
so CI cannot pass by skipping them.

This folder is a package (``tests/arrow/__init__.py``) so that this conftest and
``tests/conftest.py`` do not collide as one module named ``conftest``.
"""

from __future__ import annotations

import importlib
import os
import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import MANIFEST, vector_bytes, vector_schema

import zebrapack
import zebrapack.examples

from .oracle import split_records

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


@pytest.fixture(scope="session")
def pa() -> ModuleType:
    return engine("pyarrow")


@pytest.fixture(scope="session")
def pl() -> ModuleType:
    return engine("polars")


@pytest.fixture(scope="session")
def duckdb() -> ModuleType:
    return engine("duckdb")


@pytest.fixture(scope="session")
def pd() -> ModuleType:
    return engine("pandas")


# -- record files the engine tests read ----------------------------------------------

NAMES = ["Atlanta", "Boston", "Chicago", "Denver", "El Paso"]


@dataclass(frozen=True)
class RecordFile:
    """A record file on disk, its schema and struct, and its bytes."""

    schema: zebrapack.Schema
    type: str
    path: Path
    data: bytes


def seeded_a_records(schema: zebrapack.Schema, count: int, seed: int = 20261123) -> list[Any]:
    """README ``A`` records: five names (for group by), every tenth Bday Go's zero time (null)."""
    rng = random.Random(seed)
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    return [schema.types.A(Name=rng.choice(NAMES),
                           Bday=None if i % 10 == 0 else epoch + timedelta(seconds=rng.randrange(2_000_000_000),
                                                                           microseconds=rng.randrange(10**6)),
                           Phone=f"{rng.randrange(200, 999)}-555-{rng.randrange(10000):04d}",
                           Sibs=rng.randrange(0, 9), GPA=round(rng.uniform(1.0, 4.0), 2), Friend=rng.random() < 0.5)
            for i in range(count)]


@pytest.fixture(scope="session")
def a_file(tmp_path_factory: pytest.TempPathFactory) -> RecordFile:
    """3,000 seeded README ``A`` records (src/zebrapack/examples/zp.z)."""
    schema = zebrapack.load(zebrapack.examples.SCHEMA)
    path = tmp_path_factory.mktemp("arrow") / "a.zpk"
    with schema.writer(path) as writer:
        writer.write_all(seeded_a_records(schema, 3000))
    return RecordFile(schema, "A", path, path.read_bytes())


@pytest.fixture(scope="session")
def compound_file(tmp_path_factory: pytest.TempPathFactory) -> RecordFile:
    """Every Compound vector of tests/vectors/zp, one after another, five times (1.1 MB: the last
    Compound_large, 70,000 Ints, crosses the first MiB, where readers of files tend to cut)."""
    cases = [case for case in MANIFEST if case["schema"] == "zp.z" and case["type"] == "Compound"]
    data = b"".join(vector_bytes(case) for case in cases) * 5
    assert any(start < 1 << 20 < end for start, end in split_records(data))
    path = tmp_path_factory.mktemp("arrow") / "compound.zpk"
    path.write_bytes(data)
    return RecordFile(vector_schema("zp.z"), "Compound", path, data)
