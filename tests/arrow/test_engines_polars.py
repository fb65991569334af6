"""Polars takes zpa.read streams for real: pl.DataFrame(stream) and pl.from_arrow, flat and
nested records, the same frame as the oracle's table gives, and queries over it."""

from __future__ import annotations

from typing import Any

import pytest

import zebrapack.arrow as zpa

from support.engines import engine

from .conftest import RecordFile
from .oracle import expected_read

pa = engine("pyarrow")
pl = engine("polars")


def expected_frame(records: RecordFile, **options: Any) -> Any:
    expected = expected_read(records.schema, records.data, records.type, **options)
    assert expected.table is not None, expected.error
    return pl.from_arrow(expected.table)


def test_a_dataframe_built_from_the_stream_is_the_records(a_file: RecordFile) -> None:
    frame = pl.DataFrame(zpa.read(a_file.path, a_file.schema, type="A"))
    assert frame.schema == pl.Schema({"Name": pl.String, "Bday": pl.Datetime("ns", "UTC"), "Phone": pl.String,
                                      "Sibs": pl.Int64, "GPA": pl.Float64, "Friend": pl.Boolean})
    assert frame.height == 3000
    assert frame.equals(expected_frame(a_file))
    # Go's zero time (every tenth record) is null
    assert frame["Bday"].null_count() == 300 and frame["Bday"][0] is None


def test_from_arrow_takes_the_table_and_the_stream(a_file: RecordFile) -> None:
    assert pl.from_arrow(zpa.read(a_file.data, a_file.schema, "A").read_all()).equals(expected_frame(a_file))
    # a C stream is a stream of struct arrays to from_arrow: a Series of records
    records = pl.from_arrow(zpa.read(a_file.data, a_file.schema, type=a_file.schema.types.A))
    assert records.struct.unnest().equals(expected_frame(a_file))


def test_nested_records_become_polars_lists_structs_and_arrays(compound_file: RecordFile) -> None:
    frame = pl.DataFrame(zpa.read(compound_file.data, compound_file.schema, type="Compound", time_unit="us"))
    assert frame.equals(expected_frame(compound_file, time_unit="us"))
    assert frame.schema["Arr"] == pl.Array(pl.Float64, 3)
    assert frame.schema["Nested"] == pl.Struct({"X": pl.Int32, "Y": pl.String})
    # Polars 2 has a Map type; before it an Arrow map is a list of key/value structs
    entries = pl.Struct({"key": pl.String, "value": pl.Int64})
    assert frame.schema["SMap"] == (pl.Map(pl.String, pl.Int64) if hasattr(pl, "Map") else pl.List(entries))
    # Polars 2 keeps the extension name of interface{} values; older Polars sees the binary storage
    anys = frame.schema["Anys"]
    assert anys == pl.List(pl.Binary) or "zebrapack.msgpack" in str(anys), anys


def test_a_projection_and_a_group_by_run_on_the_stream(a_file: RecordFile) -> None:
    counts = (pl.DataFrame(zpa.read(a_file.path, a_file.schema, "A", columns=["Name", "Sibs"]))
              .group_by("Name").agg(pl.len().alias("n"), pl.col("Sibs").sum().alias("sibs")).sort("Name"))
    records = a_file.schema.decode_all(a_file.data)
    names = sorted({r.Name for r in records})
    assert counts.to_dicts() == [{"Name": name, "n": sum(r.Name == name for r in records),
                                  "sibs": sum(r.Sibs for r in records if r.Name == name)} for name in names]


def test_lazy_frames_read_the_stream_each_time_it_is_collected(a_file: RecordFile) -> None:
    stream = zpa.read(a_file.path, a_file.schema, "A")
    first = pl.DataFrame(stream).lazy().filter(pl.col("Friend")).select(pl.len()).collect().item()
    again = pl.DataFrame(stream).lazy().filter(pl.col("Friend")).select(pl.len()).collect().item()
    assert first == again == sum(r.Friend for r in a_file.schema.decode_all(a_file.data))


def test_a_decode_error_surfaces_in_polars_with_its_record_and_path(a_file: RecordFile) -> None:
    schema = a_file.schema
    broken = a_file.data + schema.encode(schema.types.A(Name="x"))[:-1] + b"\xc1"
    with pytest.raises(Exception, match=r"A\.Name") as refused:     # Polars raises its own error type
        pl.DataFrame(zpa.read(broken, schema, "A"))
    assert "record 3000" in str(refused.value)
