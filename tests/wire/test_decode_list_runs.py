"""Lists of integers, float64, bools, strings and []byte, and of pointers to them, are read
item by item without the general dispatch: every encoding an item may take still
decodes as the general reader takes it (nil as the zero value or None, the other
integer family, a float32 or an integer in a float64 list, a bin in a string list
unless strict), and an error inside the run names the item's index and offset."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Optional

import pytest

import zebrapack
from zebrapack import DecodeError


@dataclass(slots=True)
class Lists:
    I: list[int] = field(default_factory=list, metadata={"zid": 0})
    PI: list[Optional[int]] = field(default_factory=list, metadata={"zid": 1})
    S: list[str] = field(default_factory=list, metadata={"zid": 2})
    PS: list[Optional[str]] = field(default_factory=list, metadata={"zid": 3})
    B: list[bytes] = field(default_factory=list, metadata={"zid": 4})
    F: list[float] = field(default_factory=list, metadata={"zid": 5})
    PF: list[Optional[float]] = field(default_factory=list, metadata={"zid": 6})
    U8: list[zebrapack.uint8] = field(default_factory=list, metadata={"zid": 7})
    F32: list[zebrapack.float32] = field(default_factory=list, metadata={"zid": 8})
    PF32: list[Optional[zebrapack.float32]] = field(default_factory=list, metadata={"zid": 9})
    Bo: list[bool] = field(default_factory=list, metadata={"zid": 10})
    PBo: list[Optional[bool]] = field(default_factory=list, metadata={"zid": 11})


@pytest.fixture(scope="module")
def schema() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(Lists, package="runs")


def record(zid: int, items: list[bytes]) -> bytes:
    """A Lists record whose field zid holds an array of these encoded items."""
    assert len(items) < 16
    return b"\x81" + bytes([zid, 0x90 | len(items)]) + b"".join(items)


def decode(schema: zebrapack.Schema, zid: int, items: list[bytes], strict: bool = False) -> list[object]:
    value = schema.decode(record(zid, items), Lists, strict=strict)
    return getattr(value, ["I", "PI", "S", "PS", "B", "F", "PF", "U8", "F32", "PF32", "Bo", "PBo"][zid])


NIL = b"\xc0"
F64 = b"\xcb" + struct.pack(">d", 2.5)
F32 = b"\xca" + struct.pack(">f", 1.5)


def test_integer_items_of_every_width_and_nil(schema: zebrapack.Schema) -> None:
    items = [b"\x05", b"\xe0", b"\xd0\x80", b"\xd1\x80\x00", b"\xd2\x80\x00\x00\x00", b"\xd3" + struct.pack(">q", -2**63),
             b"\xcc\xff", b"\xcf" + struct.pack(">Q", 2**63 - 1), NIL]
    expected = [5, -32, -128, -32768, -2**31, -2**63, 255, 2**63 - 1]
    assert decode(schema, 0, items) == expected + [0]
    assert decode(schema, 1, items) == expected + [None]


def test_an_integer_item_out_of_range_names_its_index(schema: zebrapack.Schema) -> None:
    data = record(1, [b"\x01", NIL, b"\xcf" + struct.pack(">Q", 2**63)])
    with pytest.raises(DecodeError, match="overflows int64") as caught:
        schema.decode(data, Lists)
    assert (caught.value.path, caught.value.offset) == ("Lists.PI[2]", 5)
    with pytest.raises(DecodeError, match=r"expected uint8, found int8 \(strict") as caught:
        schema.decode(record(7, [b"\x01", b"\xd0\x05"]), Lists, strict=True)
    assert caught.value.path == "Lists.U8[1]"
    assert decode(schema, 7, [b"\x01", b"\xd0\x05", NIL]) == [1, 5, 0]


def test_float_items_take_float32_and_exact_integers(schema: zebrapack.Schema) -> None:
    items = [F64, F32, b"\x07", NIL]
    assert decode(schema, 5, items) == [2.5, 1.5, 7.0, 0.0]
    assert decode(schema, 6, items) == [2.5, 1.5, 7.0, None]
    with pytest.raises(DecodeError) as caught:
        schema.decode(record(6, [F64, b"\xa1x"]), Lists)
    assert caught.value.path == "Lists.PF[1]"
    with pytest.raises(DecodeError, match="input ends inside a value") as caught:
        schema.decode(record(5, [F64, b"\xcb\x00\x00"]), Lists)
    assert (caught.value.path, caught.value.offset) == ("Lists.F[1]", 12)


def test_float32_items_take_float32_exact_float64_and_integers(schema: zebrapack.Schema) -> None:
    tiny = b"\xca" + struct.pack(">I", 1)                  # the smallest subnormal float32
    nan = b"\xca" + struct.pack(">I", 0x7fc00001)
    items = [F32, tiny, F64, b"\x07", NIL, b"\xca\xff\x80\x00\x00"]
    expected = [1.5, struct.unpack(">f", struct.pack(">I", 1))[0], 2.5, 7.0]
    assert decode(schema, 8, items) == expected + [0.0, float("-inf")]
    assert decode(schema, 9, items) == expected + [None, float("-inf")]
    assert str(decode(schema, 8, [nan])[0]) == "nan"
    with pytest.raises(DecodeError, match="not exactly a float32") as caught:
        schema.decode(record(8, [F32, b"\xcb" + struct.pack(">d", 0.1)]), Lists)
    assert (caught.value.path, caught.value.offset) == ("Lists.F32[1]", 8)
    with pytest.raises(DecodeError) as caught:
        schema.decode(record(9, [F32, F64]), Lists, strict=True)
    assert caught.value.path == "Lists.PF32[1]"
    with pytest.raises(DecodeError, match="input ends inside a value") as caught:
        schema.decode(record(8, [F32, b"\xca\x00\x00"]), Lists)
    assert (caught.value.path, caught.value.offset) == ("Lists.F32[1]", 8)


def test_bool_items_and_nil(schema: zebrapack.Schema) -> None:
    items = [b"\xc3", b"\xc2", NIL, b"\xc2", b"\xc3"]
    assert decode(schema, 10, items) == [True, False, False, False, True]
    assert decode(schema, 11, items) == [True, False, None, False, True]
    assert all(type(item) is bool for item in decode(schema, 10, items))


def test_a_bool_item_of_another_kind_names_its_index(schema: zebrapack.Schema) -> None:
    for zid, name in ((10, "Bo"), (11, "PBo")):
        for wrong in (b"\x01", b"\xa1x", F64):
            with pytest.raises(DecodeError, match="expected bool") as caught:
                schema.decode(record(zid, [b"\xc3", NIL, wrong]), Lists)
            assert (caught.value.path, caught.value.offset) == (f"Lists.{name}[2]", 5)
        # fewer bytes than items: the list's count is refused before any item
        with pytest.raises(DecodeError, match="input ends inside a value") as caught:
            schema.decode(record(zid, [b"\xc3", b"\xc2", b"\xc3"])[:-1], Lists)
        assert (caught.value.path, caught.value.offset) == (f"Lists.{name}", 3)


def test_string_items_of_every_header_nil_and_bin(schema: zebrapack.Schema) -> None:
    items = [b"\xa0", b"\xa2hi", b"\xd9\x03abc", b"\xda\x00\x02\xc3\xa9", b"\xdb\x00\x00\x00\x01z",
             b"\xc4\x02ok", NIL]
    assert decode(schema, 2, items) == ["", "hi", "abc", "é", "z", "ok", ""]
    assert decode(schema, 3, items) == ["", "hi", "abc", "é", "z", "ok", None]
    with pytest.raises(DecodeError, match="expected string, found bin8") as caught:
        schema.decode(record(2, items), Lists, strict=True)
    assert caught.value.path == "Lists.S[5]"


def test_an_invalid_or_cut_string_item_names_its_index(schema: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="invalid UTF-8") as caught:
        schema.decode(record(2, [b"\xa1a", b"\xa2\xc3\x28"]), Lists)
    assert (caught.value.path, caught.value.offset) == ("Lists.S[1]", 5)
    with pytest.raises(DecodeError, match="input ends inside a value") as caught:
        schema.decode(record(3, [b"\xa1a", b"\xa5abc"]), Lists)
    assert (caught.value.path, caught.value.offset) == ("Lists.PS[1]", 5)


def test_bytes_items_nil_and_str(schema: zebrapack.Schema) -> None:
    items = [b"\xc4\x00", b"\xc4\x02\xff\x00", b"\xc5\x00\x01x", b"\xa2hi", NIL]
    assert decode(schema, 4, items) == [b"", b"\xff\x00", b"x", b"hi", b""]
    with pytest.raises(DecodeError, match="expected .*found str") as caught:
        schema.decode(record(4, items), Lists, strict=True)
    assert caught.value.path == "Lists.B[3]"
    with pytest.raises(DecodeError, match="input ends inside a value") as caught:
        schema.decode(record(4, [b"\xc4\x09abc"]), Lists)
    assert caught.value.path == "Lists.B[0]"


def test_a_list_cut_inside_an_item_names_the_item(schema: zebrapack.Schema) -> None:
    data = record(1, [b"\x01", NIL, b"\xd1\x00\x05"])[:-1]
    with pytest.raises(DecodeError, match="input ends inside a value") as caught:
        schema.decode(data, Lists)
    assert (caught.value.path, caught.value.offset) == ("Lists.PI[2]", 5)


def test_round_trips_of_long_lists(schema: zebrapack.Schema) -> None:
    value = Lists(I=list(range(-300, 300)), PI=[None if i % 3 else i * 2**40 for i in range(200)],
                  S=["x" * (i % 40) + "é" * (i % 3) for i in range(300)], PS=[None, "a", "ü" * 50] * 50,
                  B=[bytes(i % 300) for i in range(300)], F=[i / 7 for i in range(300)], PF=[None, 0.5] * 100)
    assert schema.decode(schema.encode(value), Lists) == value
