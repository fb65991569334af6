"""Every golden record of the reference (tests/golden): it decodes strictly to its typed
``expect`` tree (values and Go types), re-encodes byte for byte where Go's encoding is
unique (decode -> encode -> decode gives the same typed value elsewhere), and the value
built by hand from ``expect`` encodes to the same bytes."""

from __future__ import annotations

from typing import Any

import pytest
from golden_support import (
    GOLDEN_RECORDS,
    Mismatch,
    assert_matches,
    build,
    encode_like,
    golden_bytes,
    golden_schema,
)

from zebrapack import GoFloat32, GoUint64, Kind, TypeRef


def _root(record: dict[str, Any]) -> TypeRef:
    return TypeRef(Kind.STRUCT, name=record["type"])


@pytest.mark.parametrize("record", GOLDEN_RECORDS, ids=[r["id"] for r in GOLDEN_RECORDS])
def test_golden_record(record: dict[str, Any]) -> None:
    schema = golden_schema(record)
    data = golden_bytes(record)
    expect = record["expect"]
    value = schema.decode(data, record["type"], strict=True)
    assert_matches(expect, value, schema, _root(record))

    written = encode_like(schema, value, record)
    if record["byte_exact"]:
        assert written.hex() == data.hex()
    assert_matches(expect, schema.decode(written, record["type"], strict=True), schema, _root(record))

    by_hand = encode_like(schema, build(expect, schema, _root(record)), record)
    if record["byte_exact"]:
        assert by_hand.hex() == data.hex()
    assert_matches(expect, schema.decode(by_hand, record["type"], strict=True), schema, _root(record))


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
        assert_matches(record["expect"], value, schema, _root(record))


def test_comparator_rejects_a_signed_int_where_go_has_a_uint64() -> None:
    # The golden Sys records hold no uint64 (their random values never drew one): state one.
    record = _sys_record("f32")
    schema = golden_schema(record)
    expect = {"t": "struct", "name": "Sys", "f": {"F": {"t": "uint", "v": 403}}}
    data = schema.encode(build(expect, schema, _root(record)))
    assert data.endswith(b"\x00\xcd\x01\x93")
    value = schema.decode(data, strict=True)
    assert_matches(expect, value, schema, _root(record))
    value.F = int(value.F)
    with pytest.raises(Mismatch, match="Python type int, expected GoUint64"):
        assert_matches(expect, value, schema, _root(record))
