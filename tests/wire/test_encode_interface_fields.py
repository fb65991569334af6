"""A record's interface{} field holding a str or a scalar (a float, an int of int64 or
uint64, a bool, None, a GoFloat32 or GoUint64) is written in line with the record's other
fields (a record of such fields is flat): its value's bytes are exactly what a
``[]interface{}`` item of the same value takes, nil is written and never left out, and
anything else (bytes, a time, an int beyond uint64, a str with a surrogate; a list or a
dict but where the in-line writer takes it whole: test_encode_interface_containers.py) is
written or refused by the general path, with the same bytes and messages as before, also
when records of the same class keep alternating between the two."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import msgpack
import pytest

import zebrapack
from zebrapack import EncodeError, GoFloat32, GoUint64

from support.interface_records import Inner, Rec, zid_field


@dataclass(slots=True)
class Items:
    L: list[Any] = zid_field(0, factory=list)


@pytest.fixture(scope="module")
def schema() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(Rec, Items, package="ifields")


WHEN = datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
SCALARS = [None, 0, -1, 127, 128, -33, 2**31, -(2**63), 2**63 - 1, 2**63, 2**64 - 1, 0.0, -0.0, 1.5,
           float("inf"), True, False, "", "word", "é" * 40, "x" * 300, GoFloat32(2.5), GoUint64(700),
           GoUint64(2**64 - 1)]
GENERAL = [{"a": 1}, [1, "b"], {}, [], b"", b"\x00" * 40, WHEN]


def value_bytes(schema: zebrapack.Schema, value: Any) -> bytes:
    """The bytes a []interface{} item of value takes: {0: [value]} without its headers."""
    data = schema.encode(Items(L=[value]), structnames=False)
    assert data[:3] == b"\x81\x00\x91"
    return data[3:]


def entries(schema: zebrapack.Schema, data: bytes) -> dict[int, Any]:
    return msgpack.unpackb(data, strict_map_key=False, raw=True)


@pytest.mark.parametrize("value", SCALARS + GENERAL, ids=repr)
def test_an_interface_field_takes_the_bytes_of_an_interface_item(schema: zebrapack.Schema, value: Any) -> None:
    record = Rec(A=value, B=value, In=Inner(V=value))
    item = value_bytes(schema, value)
    # A (zid 0), B (2), In (3) holding V (0); S and In.N, zeros, left out
    assert schema.encode(record, structnames=False) == b"\x83\x00" + item + b"\x02" + item + b"\x03\x81\x00" + item
    decoded = schema.decode(schema.encode(record))
    assert (decoded.A, decoded.B, decoded.In.V) == (value, value, value)
    # (an int past int64 is Go's uint64, as a []interface{} item's is)
    assert type(decoded.A) is (GoUint64 if type(value) is int and value >= 2**63 else type(value))


def test_a_nil_interface_field_is_written_and_never_left_out(schema: zebrapack.Schema) -> None:
    assert entries(schema, schema.encode(Rec()))[0] is None
    assert entries(schema, schema.encode(Rec()))[2] is None
    assert 0 in entries(schema, schema.encode(Rec(A=0)))     # a zero is no nil


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, "\udc80", object()], ids=repr)
def test_what_no_interface_holds_is_refused_at_its_field(schema: zebrapack.Schema, value: Any) -> None:
    with pytest.raises(EncodeError) as caught:
        schema.encode(Rec(B=value))
    assert caught.value.path.startswith("Rec.B")
    with pytest.raises(EncodeError) as nested:
        schema.encode(Rec(In=Inner(V=value)))
    assert nested.value.path.startswith("Rec.In.V")


def test_records_that_alternate_scalars_and_containers_all_encode_as_alone(schema: zebrapack.Schema) -> None:
    # records of one class whose interface{} fields hold containers pass the in-line
    # writer by for a while after each such record: every record still has its bytes
    values = ([{"k": [1, 2]}] * 40 + [7, "s", None] * 5 + [[1]] * 3 + [2.5]) * 3
    records = [Rec(A=value, S=str(i), In=Inner(V=value, N=i)) for i, value in enumerate(values)]
    alone = [zebrapack.schema_from_dataclasses(Rec, Items, package="ifields").encode(record)
             for record in records]
    assert [schema.encode(record) for record in records] == alone
    assert [schema.decode(data) for data in alone] == records
    buffer = bytearray()
    for record, data in zip(records, alone):
        buffer.clear()
        schema.encode_into(record, buffer)
        assert bytes(buffer) == data
    assert schema.encode(Items(L=records)) == zebrapack.schema_from_dataclasses(
        Rec, Items, package="ifields").encode(Items(L=records))


def test_msgp_mode_and_no_names_write_interface_fields_as_before(schema: zebrapack.Schema) -> None:
    record = Rec(A=3, B="x", In=Inner(V=None))
    assert msgpack.unpackb(schema.encode(record, mode="msgp"), raw=False) == {
        "A": 3, "S": "", "B": "x", "In": {"V": None, "N": 0}}
    assert -1 not in entries(schema, schema.encode(record, structnames=False))
