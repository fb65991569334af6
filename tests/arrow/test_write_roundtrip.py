"""Hypothesis round trips, records -> Arrow -> records: random records of every struct
(every kind, full ranges, nested and recursive) go into an Arrow table under the
mapping; zpa.write writes exactly what encode writes for the records read back,
and those records make the same Arrow table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import examples

from support.engines import engine

from .test_write_kinds import KINDS_GO
from .writing import encoded, table_of, written
from support.strategies import structs

pa = engine("pyarrow")

# When hypothesis rejects a float32 draw inside a record (its own width downcast), it
# notes the strategy's repr, which is large for a whole schema's records: its warning
# about that repr says nothing about the code under test.
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr:hypothesis.errors.HypothesisWarning")

ZP = zebrapack.load(examples.SCHEMA)

MODES = st.sampled_from([{}, {"structnames": False}, {"mode": "msgp"}])
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def kinds_schema(directory: Path) -> zebrapack.Schema:
    path = directory / "kinds.go"
    path.write_text(KINDS_GO)
    return zebrapack.schema_from_go(path)


def round_trip(schema: zebrapack.Schema, type: str, records: list[Any], options: dict[str, Any]) -> None:
    table = table_of(pa, schema, records, type, time_unit="us", **options)
    data = written(table, schema, type, **options)
    back = schema.decode_all(data, type)
    assert data == encoded(schema, back, **options)
    again = table_of(pa, schema, back, type, time_unit="us", **options)
    assert ipc_bytes(again) == ipc_bytes(table)          # NaN as NaN, times beyond datetime's years too


def ipc_bytes(table: Any) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("type", ["A", "Prims", "Compound", "Tree"])
@SETTINGS
@given(data=st.data(), options=MODES)
def test_random_records_of_the_example_structs_round_trip(type: str, data: st.DataObject,
                                                          options: dict[str, Any]) -> None:
    records = data.draw(st.lists(structs(ZP, type), max_size=4))
    round_trip(ZP, type, records, options)


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return kinds_schema(tmp_path_factory.mktemp("kinds"))


@SETTINGS
@given(data=st.data(), options=MODES)
def test_random_records_of_every_other_kind_round_trip(kinds: zebrapack.Schema, data: st.DataObject,
                                                       options: dict[str, Any]) -> None:
    records = data.draw(st.lists(structs(kinds, "Kinds"), max_size=2))
    round_trip(kinds, "Kinds", records, options)
