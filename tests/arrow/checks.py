"""Reading through zpa.read and checking the result against the oracle (shared by the
conformance tests)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import zebrapack.arrow as zpa
from zebrapack import DecodeError

from .engines import engine
from .oracle import Expected, assert_same_table, expected_read, validate_full
from .sources import Source

pa = engine("pyarrow")


def read_table(data: Any, source: Source, **options: Any) -> Any:
    """The table of zpa.read, through its own iteration (each batch fully validated)."""
    stream = zpa.read(data, source.schema, source.type, **options)
    batches = validate_full(stream)
    return pa.Table.from_batches(batches, schema=stream.schema)


def read_through_c_stream(data: Any, source: Source, **options: Any) -> Any:
    """The table pyarrow imports through __arrow_c_stream__ (each batch fully validated)."""
    reader = pa.RecordBatchReader.from_stream(zpa.read(data, source.schema, source.type, **options))
    return pa.Table.from_batches(validate_full(reader), schema=reader.schema)


def assert_refused_as_expected(error: DecodeError, expected: Expected) -> None:
    """The reader's error names the record (0-based), the path and, for what decode refuses,
    the same byte offset in the source."""
    assert expected.error is not None and expected.record is not None
    assert error.path == expected.error.path, (str(error), str(expected.error))
    assert re.search(rf"\brecord {expected.record}\b", str(error)), str(error)
    assert error.offset is not None
    if isinstance(expected.error, DecodeError):
        assert error.offset == expected.error.offset, (str(error), str(expected.error))


def check_read(data: bytes, source: Source, **options: Any) -> None:
    """zpa.read(data) makes the oracle's table, or refuses the record the oracle refuses."""
    expected = expected_read(source.schema, data, source.type, **options)
    if expected.table is None:
        with pytest.raises(DecodeError) as refused:
            read_table(data, source, **options)
        assert_refused_as_expected(refused.value, expected)
        return
    assert_same_table(read_table(data, source, **options), expected.table)
