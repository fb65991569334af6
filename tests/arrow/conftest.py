"""What the Arrow tests share: fixtures for the engines (see ``engines.engine``: skipped when
missing unless ZEBRAPACK_REQUIRE_ENGINES=1) and the record files they read. Nothing here
imports an engine at import time, so the rest of the suite runs without them.

This folder is a package (``tests/arrow/__init__.py``) so that this conftest and
``tests/conftest.py`` do not collide as one module named ``conftest``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from support.vectors import MANIFEST, vector_bytes, vector_schema

import zebrapack
import zebrapack.examples

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
    path = tmp_path_factory.mktemp("arrow") / "compound.zpk"
    path.write_bytes(data)
    return RecordFile(vector_schema("zp.z"), "Compound", path, data)
