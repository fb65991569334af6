"""The reference vectors (tests/vectors/) and their schemas, for tests of every folder:
the manifest, each case's bytes and schema, and what its reading schema writes again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import zebrapack

#: The tests/ folder.
TESTS = Path(__file__).resolve().parent.parent
VECTORS = TESTS / "vectors"

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


# Written with one schema version and read with the other: the entries the
# reading schema does not know (zid 1, retired in evo2; zids 3-4, new in evo2)
# are dropped on re-encoding unless the schema is loaded with preserve_unknown.
CROSS_VERSION = {
    "evo2/v1_as_v2": ["0124"],
    "evo1/v2_as_v1": ["0392a46e617679a5636f626f6c", "04cfffffffffffffffff"],
}


def without_entries(data: bytes, entries: list[str]) -> bytes:
    """A fixmap record with the given key-value entries (hex) taken out."""
    assert 0x80 <= data[0] <= 0x8f
    body = data[1:]
    for entry in entries:
        assert body.count(bytes.fromhex(entry)) == 1, entry
        body = body.replace(bytes.fromhex(entry), b"")
    return bytes([data[0] - len(entries)]) + body


def reencoded_by_reader(case: dict[str, Any]) -> bytes:
    """The vector as its reading schema writes it again (Go or zebrapack): the
    cross-version cases lose the entries their reader does not know."""
    data = vector_bytes(case)
    dropped = CROSS_VERSION.get(case_id(case))
    return without_entries(data, dropped) if dropped else data
