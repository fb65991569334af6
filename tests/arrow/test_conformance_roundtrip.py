"""Hypothesis round trips through Arrow: generated records of every struct of zp.z, encoded
in each mode, read by zpa.read into the oracle's table, written back by zpa.write to the
same bytes, which decode to the same records. Times outside both time units are refused by
the reader, naming their path, as the oracle says."""

from __future__ import annotations

import io
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from support.strategies import structs
from support.expected_values import same

import zebrapack.arrow as zpa

from support.engines import engine

from .checks import check_read, read_table
from .oracle import assert_same_table, expected_read
from .sources import SCHEMAS, Source

pa = engine("pyarrow")

SCHEMA = SCHEMAS["zp"]
WRITING = [("zebrapack", True), ("zebrapack", False), ("msgp", False)]
ROUND_TRIP_SETTINGS = settings(max_examples=60, deadline=None,
                               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def quietly(function: Any, *args: Any, **options: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)      # Compound.Old is deprecated
        return function(*args, **options)


@pytest.mark.parametrize("struct_name", list(SCHEMA.structs))
@pytest.mark.parametrize(("mode", "structnames"), WRITING, ids=["zebrapack", "zebrapack-unnamed", "msgp"])
@ROUND_TRIP_SETTINGS
@given(data=st.data())
def test_generated_records_round_trip_through_arrow(struct_name: str, mode: str, structnames: bool,
                                                    data: st.DataObject) -> None:
    # msgp mode writes no struct names, so a struct inside interface{} comes back as a dict there.
    values = data.draw(st.lists(structs(SCHEMA, struct_name, interface_structs=mode == "zebrapack"),
                                min_size=1, max_size=4))
    encoded = b"".join(quietly(SCHEMA.encode, value, mode=mode, structnames=structnames) for value in values)
    source = Source("generated", SCHEMA, struct_name, encoded, mode, structnames, True)
    unit = next((u for u in ("ns", "us") if expected_read(SCHEMA, encoded, struct_name, time_unit=u).table), None)
    event(f"time unit {unit}")
    if unit is None:                                # a time neither unit holds: refused, naming its path
        check_read(encoded, source, time_unit="ns")
        return
    table = read_table(encoded, source, time_unit=unit)
    assert_same_table(table, expected_read(SCHEMA, encoded, struct_name, time_unit=unit).table)
    out = io.BytesIO()
    written = quietly(zpa.write, table, out, SCHEMA, struct_name, mode=mode, structnames=structnames)
    assert written == len(values)
    same(SCHEMA.decode_all(out.getvalue(), type=struct_name), SCHEMA.decode_all(encoded, type=struct_name))
    assert out.getvalue() == encoded
