"""Property: for generated values of every struct of zp.z, in both modes, with and
without struct names, decode(encode(x)) == x and encode(decode(encode(x))) == encode(x)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from support.vectors import vector_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.strategies import structs
from support.expected_values import same

SCHEMA = vector_schema("zp.z")
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
WRITING = [("zebrapack", True), ("zebrapack", False), ("msgp", False)]


def encode(value: Any, mode: str, structnames: bool) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # Compound.Old is deprecated
        return SCHEMA.encode(value, mode=mode, structnames=structnames)


@pytest.mark.parametrize("struct_name", list(SCHEMA.structs))
@pytest.mark.parametrize(("mode", "structnames"), WRITING, ids=["zebrapack", "zebrapack-unnamed", "msgp"])
@PROPERTY_SETTINGS
@given(data=st.data())
def test_generated_values_round_trip(struct_name: str, mode: str, structnames: bool, data: st.DataObject) -> None:
    # msgp mode writes no struct names, so a struct inside interface{} comes back as a dict there.
    value = data.draw(structs(SCHEMA, struct_name, interface_structs=mode == "zebrapack"))
    encoded = encode(value, mode, structnames)
    decoded = SCHEMA.decode(encoded, type=struct_name)
    same(decoded, value)
    assert encode(decoded, mode, structnames) == encoded


@PROPERTY_SETTINGS
@given(data=st.data())
def test_strict_decoding_accepts_everything_zebrapack_writes(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(list(SCHEMA.structs)))
    value = data.draw(structs(SCHEMA, name))
    encoded = encode(value, "zebrapack", True)
    same(SCHEMA.decode(encoded, strict=True), value)
