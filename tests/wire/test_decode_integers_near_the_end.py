"""Integers of every fixed width read the same whatever follows them in the input. The
decoder loads 8 bytes at once and shifts them down to the value's width
(zp_load_int_family8) where 8 bytes follow the lead byte, and switches on the width
within 8 bytes of the input's end (zp_load_int_family): each encoding of int8..int64
and uint8..uint64, at its extremes and in between, reads with 0 to 9 bytes after it as
an interface{} value, an item of []interface{}, a value of map[string]interface{}, an
item of []int64 and []uint64, and an int64 or uint64 field."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from support.go_schemas import schema_from_go_text

import zebrapack
from zebrapack import GoUint64

HOLDER_GO = '''package ends

type Holder struct {
	Any  interface{}            `zid:"0"`
	List []interface{}          `zid:"1"`
	Map  map[string]interface{} `zid:"2"`
	I    []int64                `zid:"3"`
	U    []uint64               `zid:"4"`
}

type Signed struct {
	V int64 `zid:"0"`
}

type Unsigned struct {
	V uint64 `zid:"0"`
}
'''

FORMATS = {0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q", 0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q"}


def _values(code: int) -> list[int]:
    """The extremes of the encoding's range, -1 and 1, and a value with every byte set apart."""
    bits = 8 * struct.calcsize(FORMATS[code])
    if code >= 0xd0:
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        pattern = int.from_bytes(bytes(range(0x81, 0x81 + bits // 8)), "big", signed=True)
        return [low, -1, 1, high, pattern]
    pattern = int.from_bytes(bytes(range(0x81, 0x81 + bits // 8)), "big")
    return [0, 1, (1 << bits) - 1, pattern]


CASES = [(code, value) for code in FORMATS for value in _values(code)]
IDS = [f"{code:#x}:{value}" for code, value in CASES]


def wire(code: int, value: int) -> bytes:
    return bytes([code]) + struct.pack(FORMATS[code], value)


def any_value(code: int, value: int) -> int:
    """As Go reads it into interface{}: the int family as int64, the uint family as uint64."""
    return value if code >= 0xd0 else GoUint64(value)


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, HOLDER_GO, "ends")


def read_then_empty_records(schema: zebrapack.Schema, record: bytes, type_name: str, after: int) -> Any:
    """The first of the records: this one, whose last bytes are the integer, then `after`
    empty records (one byte each), which decode_all reads on."""
    records = schema.decode_all(record + b"\x80" * after, type_name)
    assert len(records) == 1 + after
    return records[0]


@pytest.mark.parametrize(("code", "value"), CASES, ids=IDS)
def test_an_interface_value_reads_the_same_with_0_to_9_bytes_after_it(schema: zebrapack.Schema, code: int,
                                                                      value: int) -> None:
    expected = any_value(code, value)
    for after in range(10):
        single = read_then_empty_records(schema, b"\x81\x00" + wire(code, value), "Holder", after)
        listed = read_then_empty_records(schema, b"\x81\x01\x92\x07" + wire(code, value), "Holder", after)
        mapped = read_then_empty_records(schema, b"\x81\x02\x81\xa1k" + wire(code, value), "Holder", after)
        for got in (single.Any, listed.List[1], mapped.Map["k"]):
            assert got == expected and type(got) is type(expected)
        assert listed.List[0] == 7


@pytest.mark.parametrize(("code", "value"), CASES, ids=IDS)
def test_a_list_item_reads_the_same_with_0_to_9_bytes_after_it(schema: zebrapack.Schema, code: int,
                                                               value: int) -> None:
    for after in range(10):
        if value >= 0:
            assert read_then_empty_records(schema, b"\x81\x04\x92\x07" + wire(code, value), "Holder",
                                           after).U == [7, value]
        if value < 2**63:
            assert read_then_empty_records(schema, b"\x81\x03\x92\x07" + wire(code, value), "Holder",
                                           after).I == [7, value]


@pytest.mark.parametrize(("code", "value"), CASES, ids=IDS)
def test_a_field_reads_the_same_with_0_to_9_bytes_after_it(schema: zebrapack.Schema, code: int,
                                                           value: int) -> None:
    for type_name, fits in (("Signed", value < 2**63), ("Unsigned", value >= 0)):
        if fits:
            for after in range(10):
                assert read_then_empty_records(schema, b"\x81\x00" + wire(code, value), type_name, after).V == value
