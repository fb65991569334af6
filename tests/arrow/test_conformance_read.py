"""Every reference vector and golden record, read through zpa.read, is the table the oracle
builds from schema.decode of the same bytes (bit for bit, schema and extension metadata
included), in both time units, and every batch passes pyarrow's full validation. A value
the mapping cannot hold (a time outside the unit) is a DecodeError naming its path."""

from __future__ import annotations

import re

import pytest

from support.engines import engine

from .checks import check_read, read_through_c_stream
from .oracle import assert_same_table, expected_read
from .sources import SOURCES, Source

pa = engine("pyarrow")

UNITS = ["ns", "us"]



@pytest.mark.parametrize("time_unit", UNITS)
@pytest.mark.parametrize("source", SOURCES, ids=repr)
def test_reference_record_reads_as_decode_maps_it(source: Source, time_unit: str) -> None:
    check_read(source.data, source, time_unit=time_unit)


@pytest.mark.parametrize("source", SOURCES, ids=repr)
def test_reference_record_reads_strictly_as_decode_strict_accepts_it(source: Source) -> None:
    check_read(source.data, source, time_unit="us", strict=True)


@pytest.mark.parametrize("source", SOURCES, ids=repr)
def test_reference_record_reads_the_same_through_the_c_stream_interface(source: Source) -> None:
    expected = expected_read(source.schema, source.data, source.type, time_unit="us")
    if expected.table is None:
        assert expected.error is not None
        with pytest.raises(Exception, match=re.escape(expected.error.path)):   # the consumer's own error type
            read_through_c_stream(source.data, source, time_unit="us")
        return
    assert_same_table(read_through_c_stream(source.data, source, time_unit="us"), expected.table)


def _stream_of(schema_name: str, type_name: str) -> tuple[Source, bytes]:
    chosen = [s for s in SOURCES if s.id.startswith(f"golden/{schema_name}/") and s.type == type_name]
    return chosen[0], b"".join(s.data for s in chosen)


@pytest.mark.parametrize("time_unit", UNITS)
@pytest.mark.parametrize(("schema_name", "type_name"), [("deep", "Deep"), ("my", "Big"), ("headerplus", "Plus"),
                                                        ("my2", "u"), ("my", "Sys")])
def test_a_stream_of_golden_records_reads_as_one_table(schema_name: str, type_name: str, time_unit: str) -> None:
    source, data = _stream_of(schema_name, type_name)
    check_read(data, source, time_unit=time_unit)
