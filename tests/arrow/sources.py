"""The reference records the conformance tests read through Arrow: every vector of
tests/vectors and every golden record of tests/golden, with its schema and how it was written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.vectors import MANIFEST, case_id, vector_bytes, vector_schema
from support.golden import GOLDEN_RECORDS, golden_bytes, golden_schema

import zebrapack


@dataclass(frozen=True)
class Source:
    """One reference input: a record (or a stream of records) of ``type``."""

    id: str
    schema: zebrapack.Schema
    type: str
    data: bytes
    mode: str
    structnames: bool
    byte_exact: bool

    def __repr__(self) -> str:
        return self.id


def _vector(case: dict[str, Any]) -> Source:
    return Source(f"vectors/{case_id(case)}", vector_schema(case["schema"]), case["type"], vector_bytes(case),
                  case["mode"], case["structnames_on_wire"], case["byte_exact"])


def _golden(record: dict[str, Any]) -> Source:
    return Source(f"golden/{record['id']}", golden_schema(record), record["type"], golden_bytes(record),
                  record["mode"], record["structnames_on_wire"], record["byte_exact"])


SOURCES: list[Source] = [_vector(case) for case in MANIFEST] + [_golden(record) for record in GOLDEN_RECORDS]


def _schemas() -> dict[str, zebrapack.Schema]:
    named = {case["schema"].removesuffix(".z"): vector_schema(case["schema"]) for case in MANIFEST}
    named.update((Path(record["schema"]).stem, golden_schema(record)) for record in GOLDEN_RECORDS)
    return named


#: Every reference schema by its file's name (zp, zpn, mp, evo1, evo2, iface, my, my2, deep, headerplus).
SCHEMAS: dict[str, zebrapack.Schema] = _schemas()
#: (schema name, struct name) of every struct of every reference schema.
SCHEMA_STRUCTS: list[tuple[str, str]] = [(name, struct) for name, schema in SCHEMAS.items()
                                         for struct in schema.structs]


#: (schema, struct, columns): projections the tests ask for, nested paths included.
COLUMN_CHOICES = [
    ("zp", "A", ["Name", "GPA"]),
    ("zp", "A", ["GPA", "Name"]),                              # the schema's order is kept
    ("zp", "Compound", ["Nested.Y", "Shown", "Ptr.X"]),
    ("zp", "Compound", ["Nested", "Nested.X"]),                # the whole struct wins
    ("zp", "Compound", ["Nested.X", "Nested"]),
    ("zp", "Compound", ["Anys", "Times", "MInner"]),
    ("my", "Big", ["Myptr.MyTree.Str", "MySlice"]),            # through pointers, two levels
    ("deep", "Deep", ["Head.When", "Kids"]),
    ("zp", "A", []),
]
