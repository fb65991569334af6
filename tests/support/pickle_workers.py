"""Functions that test_pickle.py runs in spawned worker processes (a light module:
a worker imports it to find them, and nothing of the test machinery)."""

from __future__ import annotations

import os
import pickle
from typing import Any

import zebrapack


def unpickle_all(schema_pickles: list[bytes], record_pickles: list[bytes]) -> tuple[int, bool, list[bytes]]:
    """How many schemas the pickles made here, whether every record is of the first
    one's classes, and the records encoded again."""
    schemas = [pickle.loads(data) for data in schema_pickles]
    records = [pickle.loads(data) for data in record_pickles]
    one_schema = schemas[0]
    own_classes = all(type(record) is one_schema.types[type(record).__name__] for record in records)
    return len({id(schema) for schema in schemas}), own_classes, [one_schema.encode(r) for r in records]


def first_sight(schema: zebrapack.Schema) -> tuple[int, bool]:
    """(this worker, whether this schema object is new to it)."""
    first = not hasattr(schema, "seen_by_test")
    schema.seen_by_test = True      # type: ignore[attr-defined]
    return os.getpid(), first


def encode(schema: zebrapack.Schema, record: Any) -> bytes:
    return schema.encode(record)


def shout(record: Any) -> Any:
    record.Name = record.Name.upper()
    return record
