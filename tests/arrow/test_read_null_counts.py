"""A column's null count is the unset bits of its validity bitmap, counted eight bytes a
step and then byte by byte (zp_count_set_bits): right for every length around a word and
a byte, wherever the nulls are."""

from __future__ import annotations

import random

import msgpack
import pytest

import zebrapack
import zebrapack.arrow as zpa

from support.engines import engine
from support.go_schemas import schema_from_go_text

pa = engine("pyarrow")

GO_SCHEMA = """package nulls

type Row struct {
	P *int64 `zid:"0"`
}
"""


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, GO_SCHEMA, "nulls")


@pytest.mark.parametrize("length", [1, 7, 8, 9, 63, 64, 65, 71, 72, 73, 127, 128, 129, 1000, 4099])
def test_null_counts_match_the_values_at_every_length(schema: zebrapack.Schema, length: int) -> None:
    rng = random.Random(length)
    values = [None if rng.random() < 0.3 else i for i in range(length)]
    values[-1] = None                       # the last bit, in the last (partial) byte
    data = b"".join(msgpack.packb({-1: "Row", 0: value}) for value in values)
    table = zpa.read(data, schema, type="Row").read_all()
    column = table.column("P")
    assert column.null_count == values.count(None)
    assert column.to_pylist() == values
