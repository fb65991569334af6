"""The reference data read through the Arrow reader and written back by zpa.write:
byte-exact records (golden records of both sets and vectors marked so) come back byte for byte;
every other record comes back as encode writes the value decode gives for it."""

from __future__ import annotations

import io
import warnings
from typing import Any

import pytest

import zebrapack
import zebrapack.arrow
from zebrapack import DecodeError

from support.engines import engine
from support.vectors import MANIFEST, case_id, reencoded_by_reader, vector_bytes, vector_schema
from support.golden import GOLDEN2_RECORDS, GOLDEN_RECORDS, encode_like, golden_bytes, golden_schema

pa = engine("pyarrow")


def through_arrow(data: bytes, schema: zebrapack.Schema, type: str, structnames: bool, mode: str) -> bytes:
    """read -> Arrow -> write; nanoseconds unless the times need microseconds' range."""
    for time_unit in ("ns", "us"):
        try:
            table = pa.RecordBatchReader.from_stream(zebrapack.arrow.read(data, schema, type, time_unit=time_unit)).read_all()
        except (DecodeError, pa.ArrowInvalid) as exc:
            if "outside timestamp" in str(exc) and time_unit == "ns":
                continue
            if "nanoseconds that timestamp[us] cannot hold" in str(exc):
                pytest.skip(f"no Arrow timestamp unit holds this record's time: {exc}")
            raise
        out = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)     # the reference writes deprecated fields
            zebrapack.arrow.write(table, out, schema, type, structnames=structnames, mode=mode)
        return out.getvalue()
    raise AssertionError("unreachable")


def expected(schema: zebrapack.Schema, data: bytes, type: str, case: dict[str, Any]) -> bytes:
    if case["byte_exact"]:
        return data
    return b"".join(encode_like(schema, value, case) for value in schema.decode_all(data, type))


@pytest.mark.parametrize("case", GOLDEN_RECORDS + GOLDEN2_RECORDS,
                         ids=[case["id"] for case in GOLDEN_RECORDS + GOLDEN2_RECORDS])
def test_golden_records_write_back_through_arrow(case: dict[str, Any]) -> None:
    schema = golden_schema(case)
    data = golden_bytes(case)
    assert through_arrow(data, schema, case["type"], case["structnames_on_wire"], case["mode"]) == \
        expected(schema, data, case["type"], case)


@pytest.mark.parametrize("case", MANIFEST, ids=[case_id(case) for case in MANIFEST])
def test_vectors_write_back_through_arrow(case: dict[str, Any]) -> None:
    schema = vector_schema(case["schema"])
    data = vector_bytes(case)
    # byte-exact vectors come back as the reader's own re-encoding (without the entries a
    # cross-version reader does not know)
    want = reencoded_by_reader(case) if case["byte_exact"] else expected(schema, data, case["type"], case)
    assert through_arrow(data, schema, case["type"], case["structnames_on_wire"], case["mode"]) == want
