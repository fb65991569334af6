"""Every golden record of the reference (tests/golden): it decodes strictly to its typed
``expect`` tree (values and Go types), re-encodes byte for byte where Go's encoding is
unique (decode -> encode -> decode gives the same typed value elsewhere), and the value
built by hand from ``expect`` encodes to the same bytes (golden_support.assert_golden_record)."""

from __future__ import annotations

from typing import Any

import pytest
from support.golden import (
    GOLDEN_RECORDS,
    Mismatch,
    assert_golden_record,
    assert_matches,
    build,
    golden_bytes,
    golden_schema,
    root_type,
)

from zebrapack import GoFloat32, GoUint64


@pytest.mark.parametrize("record", GOLDEN_RECORDS, ids=[r["id"] for r in GOLDEN_RECORDS])
def test_golden_record(record: dict[str, Any]) -> None:
    assert_golden_record(record)


def test_every_schema_and_flavor_is_covered() -> None:
    assert {r["pkg"] for r in GOLDEN_RECORDS} == {"my", "my2", "deep", "headerplus"}
    assert {r["flavor"] for r in GOLDEN_RECORDS} == {"zero", "max", "min", "random"}
    assert len(GOLDEN_RECORDS) == 180


# The comparator must itself catch a wrong Go type: these are the mistakes it exists for.

def _sys_record(bits_kind: str) -> dict[str, Any]:
    return next(r for r in GOLDEN_RECORDS
                if r["type"] == "Sys" and r["expect"]["f"]["F"]["t"] == bits_kind)


def test_comparator_rejects_a_float64_where_go_has_a_float32() -> None:
    record = _sys_record("f32")
    schema = golden_schema(record)
    value = schema.decode(golden_bytes(record), "Sys")
    assert type(value.F) is GoFloat32
    value.F = float(value.F)
    with pytest.raises(Mismatch, match="Python type float, expected GoFloat32"):
        assert_matches(record["expect"], value, schema, root_type(record))


def test_comparator_rejects_a_signed_int_where_go_has_a_uint64() -> None:
    # The golden Sys records hold no uint64 (their random values never drew one): state one.
    record = _sys_record("f32")
    schema = golden_schema(record)
    expect = {"t": "struct", "name": "Sys", "f": {"F": {"t": "uint", "v": 403}}}
    data = schema.encode(build(expect, schema, root_type(record)))
    assert data.endswith(b"\x00\xcd\x01\x93")
    value = schema.decode(data, strict=True)
    assert_matches(expect, value, schema, root_type(record))
    value.F = int(value.F)
    with pytest.raises(Mismatch, match="Python type int, expected GoUint64"):
        assert_matches(expect, value, schema, root_type(record))
