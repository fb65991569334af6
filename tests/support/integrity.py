"""Shared by tests/integrity: record files of known records, and where each record ends,
so that a test knows exactly which records a cut file holds whole."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

import zebrapack
import zebrapack.examples
from zebrapack.schema.document import schema_document

UTC = datetime.timezone.utc
SCHEMA = zebrapack.load(zebrapack.examples.SCHEMA)


def a_records(count: int, start: int = 0) -> list[Any]:
    """README-shaped A records of varied sizes, each different."""
    A = SCHEMA.types.A
    base = datetime.datetime(1990, 12, 20, tzinfo=UTC)
    return [A(Name=f"rec{i}" + "x" * (i * 7 % 90), Bday=base + datetime.timedelta(days=i, microseconds=i),
              Phone=f"650-555-{i % 10000:04d}", Sibs=i % 7 - 3, GPA=i / 8, Friend=i % 3 == 0)
            for i in range(start, start + count)]


def schema_bytes(schema: zebrapack.Schema = SCHEMA) -> bytes:
    """The schema document ``write_schema=True`` writes first."""
    return msgpack.packb(schema_document(schema.model), use_bin_type=True)


@dataclass(frozen=True)
class Layout:
    """The bytes a writer writes for ``records``, and where each record ends."""

    records: list[Any]
    data: bytes
    data_start: int
    ends: list[int]

    def whole_before(self, size: int) -> int:
        """How many records a file cut to ``size`` bytes holds whole."""
        return sum(1 for end in self.ends if end <= size)

    def valid_end(self, size: int) -> int:
        """Where the valid data of a file cut to ``size`` bytes ends."""
        whole = self.whole_before(size)
        return self.ends[whole - 1] if whole else (self.data_start if size >= self.data_start else 0)


def layout(records: list[Any], *, write_schema: bool = False, schema: zebrapack.Schema = SCHEMA) -> Layout:
    head = schema_bytes(schema) if write_schema else b""
    ends, data = [], bytearray(head)
    for record in records:
        data += schema.encode(record)
        ends.append(len(data))
    return Layout(records, bytes(data), len(head), ends)


def write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
