"""Reading through zpa.read and checking the result against the oracle (shared by the
conformance tests)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import zebrapack.arrow as zpa
from zebrapack import DecodeError, TornTailError

from support.engines import engine
from .oracle import Expected, assert_same_table, expected_read, validate_full, walk
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


def _column(path: str) -> str:
    """The record's top-level column a path goes through ("Compound.Inners[2].X" -> "Compound.Inners").
    Where a key could not be read, decode names the zid read before it ("A.<zid 4>") and the
    reader a placeholder ("A.<zid -3>"): the number is left out."""
    head, _, rest = path.partition(".")
    column = head + "." + re.split(r"[.\[]", rest)[0] if rest else head
    return re.sub(r"<zid -?\d+>", "<zid>", column)


def assert_refused_as_expected(error: DecodeError, expected: Expected, data: bytes) -> None:
    """The reader's error names the record (0-based, in the whole source) and a path and an
    offset: exactly the oracle's where decode reads the record but a value does not fit the
    mapping. Where decode itself refuses the bytes, the reader may stop at another fault of
    the same record (it checks array lengths, map keys and times as it goes), so its path must
    go through the same column and its offset lie in that record."""
    assert expected.error is not None and expected.record is not None
    assert re.search(rf"\brecord {expected.record}\b", str(error)), str(error)
    assert error.offset is not None
    # a torn tail is one by the record's structure, for every reader alike: its offset is the record's start
    assert isinstance(error, TornTailError) == isinstance(expected.error, TornTailError), (str(error),
                                                                                          str(expected.error))
    if isinstance(error, TornTailError):
        assert error.offset == expected.error.offset, (str(error), str(expected.error))
        return
    if not isinstance(expected.error, DecodeError):
        assert (error.path, error.offset is not None) == (expected.error.path, True), (str(error), str(expected.error))
        return
    starts = [start for start, _ in _record_starts(data, expected.record)]
    assert starts[-1] <= error.offset <= len(data), (str(error), str(expected.error))
    decode_column = _column(expected.error.path)
    if decode_column.startswith("$") or "." not in decode_column:           # the record as a whole
        assert "." not in _column(error.path) or error.offset <= expected.error.offset, (str(error),
                                                                                          str(expected.error))
    elif not re.search(r"cannot hold|outside", str(error)):      # a time the unit cannot hold may come first
        assert _column(error.path) == decode_column, (str(error), str(expected.error))


def _record_starts(data: bytes, count: int) -> list[tuple[int, int]]:
    """The spans of the first ``count + 1`` records as far as they are msgpack (the last may be cut)."""
    spans, position = [], 0
    for _ in range(count + 1):
        spans.append((position, position))
        try:
            position = walk(data, position).end
        except ValueError:
            break
    return spans


def check_read(data: bytes, source: Source, **options: Any) -> None:
    """zpa.read(data) makes the oracle's table, or refuses the record the oracle refuses."""
    expected = expected_read(source.schema, data, source.type, **options)
    if expected.table is None:
        with pytest.raises(DecodeError) as refused:
            read_table(data, source, **options)
        assert_refused_as_expected(refused.value, expected, data)
        return
    assert_same_table(read_table(data, source, **options), expected.table)
