"""Every reference vector decodes to its expected value, and re-encodes byte for byte."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from support.vectors import MANIFEST, case_id, reencoded_by_reader, vector_bytes, vector_schema
from support.expected_values import expected_value, same

from zebrapack import DecodeError

BYTE_EXACT = [case for case in MANIFEST if case["byte_exact"]]

# Typed JSON says "nan" without the payload: a value built from `expect` holds
# the default quiet NaN where the vector has NaN payload 1 (decode -> encode,
# which keeps the payload, reproduces the vector itself).
NAN_PAYLOAD = {"zp/Prims_boundary_b": ("03cb7ff8000000000001", "03cb7ff8000000000000")}


def encode_like(case: dict[str, Any], value: Any) -> bytes:
    """Encode as the case was written (deprecated fields warn; tests of that are elsewhere)."""
    schema = vector_schema(case["schema"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return schema.encode(value, structnames=case["structnames_on_wire"], mode=case["mode"])


@pytest.mark.parametrize("case", MANIFEST, ids=case_id)
def test_vector_decodes_to_expected_value(case: dict[str, Any]) -> None:
    schema = vector_schema(case["schema"])
    data = vector_bytes(case)
    if "count" in case:
        decoded = schema.decode_all(data, type=case["type"])
        assert len(decoded) == case["count"]
    else:
        decoded = schema.decode(data, type=case["type"])
    same(decoded, expected_value(case, schema))


@pytest.mark.parametrize("case", MANIFEST, ids=case_id)
def test_vector_type_comes_from_the_wire_exactly_when_named(case: dict[str, Any]) -> None:
    schema = vector_schema(case["schema"])
    data = vector_bytes(case)
    if not case["structnames_on_wire"]:
        with pytest.raises(DecodeError, match="names no struct of this schema"):
            schema.decode_all(data) if "count" in case else schema.decode(data)
        return
    decoded = schema.decode_all(data) if "count" in case else schema.decode(data)
    same(decoded, expected_value(case, schema))


@pytest.mark.parametrize("case", BYTE_EXACT, ids=case_id)
def test_decoded_vector_reencodes_byte_for_byte(case: dict[str, Any]) -> None:
    schema = vector_schema(case["schema"])
    data = vector_bytes(case)
    if "count" in case:
        records = schema.decode_all(data, type=case["type"])
        assert b"".join(encode_like(case, record) for record in records) == reencoded_by_reader(case)
    else:
        assert encode_like(case, schema.decode(data, type=case["type"])) == reencoded_by_reader(case)


@pytest.mark.parametrize("case", BYTE_EXACT, ids=case_id)
def test_value_built_from_expect_encodes_to_vector_bytes(case: dict[str, Any]) -> None:
    schema = vector_schema(case["schema"])
    value = expected_value(case, schema)
    records = value if "count" in case else [value]
    expected = reencoded_by_reader(case)
    if case_id(case) in NAN_PAYLOAD:
        vector_nan, default_nan = NAN_PAYLOAD[case_id(case)]
        expected = expected.replace(bytes.fromhex(vector_nan), bytes.fromhex(default_nan))
    assert b"".join(encode_like(case, record) for record in records) == expected


@pytest.mark.parametrize("case", [c for c in MANIFEST if not c["byte_exact"]], ids=case_id)
def test_inexact_vector_round_trips_by_value(case: dict[str, Any]) -> None:
    schema = vector_schema(case["schema"])
    decoded = schema.decode(vector_bytes(case), type=case["type"])
    again = schema.decode(encode_like(case, decoded), type=case["type"])
    same(again, decoded)
