"""pandas gets zpa.read's records through pyarrow's to_pandas(): the same frame the oracle's
table gives, times as UTC nanosecond datetimes (Go's zero time NaT), Arrow-backed dtypes too."""

from __future__ import annotations

import zebrapack.arrow as zpa

from support.engines import engine

from .conftest import RecordFile
from .oracle import expected_read

pa = engine("pyarrow")
pd = engine("pandas")


def test_to_pandas_gives_the_records(a_file: RecordFile) -> None:
    frame = zpa.read(a_file.path, a_file.schema, "A").read_all().to_pandas()
    expected = expected_read(a_file.schema, a_file.data, "A").table
    pd.testing.assert_frame_equal(frame, expected.to_pandas())
    assert str(frame["Bday"].dtype) == "datetime64[ns, UTC]"
    assert frame["Bday"].isna().sum() == 300 and str(frame["Sibs"].dtype) == "int64"
    records = a_file.schema.decode_all(a_file.data)
    assert frame["Name"].tolist() == [r.Name for r in records]
    assert frame["Bday"].iloc[1].to_pydatetime() == records[1].Bday


def test_arrow_backed_dtypes_keep_widths_and_nested_values(compound_file: RecordFile) -> None:
    table = zpa.read(compound_file.data, compound_file.schema, "Compound", time_unit="us").read_all()
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    expected = expected_read(compound_file.schema, compound_file.data, "Compound", time_unit="us").table
    pd.testing.assert_frame_equal(frame, expected.to_pandas(types_mapper=pd.ArrowDtype))
    assert frame["Nested"].dtype == pd.ArrowDtype(expected.schema.field("Nested").type)
    records = compound_file.schema.decode_all(compound_file.data)
    assert [x["X"] for x in frame["Nested"]] == [r.Nested.X for r in records]
