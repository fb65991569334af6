"""A map's scalar values (integers of every width, strings, floats, bools) read as a
struct field of the same type reads them: every wire form of every scalar, and every
cut of it, gives the same value, nil's zero, or the same DecodeError words at the
value's own offset, with the entry's key in the path; lenient and strict alike. (The
map reader takes integers, fixstrs and float64s in line, the rest through read_value.)"""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest
from support.go_schemas import schema_from_go_text

import zebrapack
from zebrapack import DecodeError

TYPES = ["int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint",
         "byte", "string", "float64", "float32", "bool"]

SCALAR_GO = "package mapvalues\n\ntype Holder struct {\n" + "".join(
    f'\tF{i} {t} `zid:"{2 * i}"`\n\tM{i} map[string]{t} `zid:"{2 * i + 1}"`\n' for i, t in enumerate(TYPES)) + "}\n"

#: One or more encodings of every wire form a scalar may meet: in and out of each
#: integer type's range, both integer families, strings valid and not, floats, bools.
FORMS: list[bytes] = [
    b"\x00", b"\x7f", b"\xe0", b"\xff", b"\xc0", b"\xc2", b"\xc3",
    b"\xcc\x80", b"\xcc\xff", b"\xcd\x01\x00", b"\xcd\xff\xff", b"\xce\x00\x01\x00\x00", b"\xce\xff\xff\xff\xff",
    b"\xcf" + struct.pack(">Q", 1 << 32), b"\xcf" + struct.pack(">Q", (1 << 63) - 1),
    b"\xcf" + struct.pack(">Q", 1 << 63), b"\xcf" + b"\xff" * 8,
    b"\xd0\x80", b"\xd0\x7f", b"\xd1\x80\x00", b"\xd1\x00\x80", b"\xd2\x80\x00\x00\x00", b"\xd2\x00\x00\x80\x00",
    b"\xd3" + struct.pack(">q", -(1 << 63)), b"\xd3" + struct.pack(">q", 1 << 40), b"\xd3" + struct.pack(">q", 5),
    b"\xa0", b"\xa2ab", b"\xa3\xe2\x82\xac", b"\xa2\xff\xfe", b"\xbf" + b"x" * 31, b"\xd9\x03abc", b"\xda\x00\x01z",
    b"\xc4\x02ab", b"\xcb" + struct.pack(">d", 2.5), b"\xcb" + struct.pack(">d", -0.0),
    b"\xca" + struct.pack(">f", 1.5), b"\x90", b"\x80", b"\xc1",
]


def all_forms() -> list[bytes]:
    """Every form whole, cut after each of its bytes but the last, and missing (the input
    ends where the value would begin)."""
    return FORMS + [form[:cut] for form in FORMS for cut in range(1, len(form))] + [b""]


@pytest.fixture(scope="module")
def holder(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, SCALAR_GO, "mapvalues")


HEAD = b"\x82\xff\xa6Holder"      # the struct's map header and name entry


def field_record(i: int, value: bytes) -> bytes:
    return HEAD + bytes([2 * i]) + value


MAP_PREFIX = b"\x82\xa1a\xc0\xa2bb"    # {"a": nil, "bb": <value>}: the value is the second entry's


def map_record(i: int, value: bytes) -> bytes:
    return HEAD + bytes([2 * i + 1]) + MAP_PREFIX + value


def outcome(schema: zebrapack.Schema, data: bytes, strict: bool) -> tuple[str, Any]:
    try:
        return ("value", schema.decode(data, strict=strict))
    except DecodeError as error:
        return ("error", error)


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b) or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize("index", range(len(TYPES)), ids=TYPES)
def test_map_values_read_as_a_field_of_their_type(holder: zebrapack.Schema, index: int, strict: bool) -> None:
    shift = len(MAP_PREFIX)        # the map value sits this many bytes after where the field's would
    go_type = TYPES[index]
    checked = 0
    for value in all_forms():
        as_field = outcome(holder, field_record(index, value), strict)
        as_map = outcome(holder, map_record(index, value), strict)
        assert as_field[0] == as_map[0], (go_type, value, as_field, as_map)
        if as_field[0] == "value":
            field_value = getattr(as_field[1], f"F{index}")
            map_value = getattr(as_map[1], f"M{index}")
            assert list(map_value) == ["a", "bb"]
            assert same_value(map_value["bb"], field_value), (go_type, value, map_value, field_value)
        else:
            field_error, map_error = as_field[1], as_map[1]
            assert field_error.path == f"Holder.F{index}"
            assert map_error.path == f"Holder.M{index}['bb']", (go_type, value, map_error)
            assert map_error.offset == field_error.offset + shift, (go_type, value, field_error, map_error)
            assert str(map_error).split(": ", 1)[1].rsplit(" (byte offset", 1)[0] == \
                str(field_error).split(": ", 1)[1].rsplit(" (byte offset", 1)[0]
        checked += 1
    assert checked == len(all_forms())


def test_in_line_forms_give_the_values_go_reads(holder: zebrapack.Schema) -> None:
    """The values themselves, not only their agreement with a field's."""
    def read(go_type: str, value: bytes) -> Any:
        index = TYPES.index(go_type)
        return getattr(holder.decode(map_record(index, value)), f"M{index}")["bb"]

    assert read("int8", b"\xd0\x80") == -128
    assert read("uint8", b"\xcc\xff") == 255
    assert read("int64", b"\xd3" + struct.pack(">q", -(1 << 63))) == -(1 << 63)
    assert read("uint64", b"\xcf" + b"\xff" * 8) == (1 << 64) - 1
    assert read("int64", b"\xc0") == 0
    assert read("string", b"\xa3\xe2\x82\xac") == "\u20ac"
    assert read("string", b"\xa0") == ""
    assert read("string", b"\xc0") == ""
    assert read("float64", b"\xcb" + struct.pack(">d", 2.5)) == 2.5
    assert read("float64", b"\xc0") == 0.0


@pytest.mark.parametrize(("go_type", "value", "words"), [
    ("int8", b"\xd1\x00\x80", "128 overflows int8"),
    ("uint8", b"\xcd\x01\x00", "256 overflows uint8"),
    ("string", b"\xa2\xff\xfe", "invalid UTF-8"),
    ("string", b"\xa3ab", "input ends inside a value: 4 bytes needed, 3 left"),
    ("float64", b"\xcb\x00\x00", "input ends inside a value: 9 bytes needed, 3 left"),
    ("int64", b"\xa1x", "expected int64, found str"),
])
def test_bad_map_values_are_errors_at_their_entry(holder: zebrapack.Schema, go_type: str, value: bytes,
                                                  words: str) -> None:
    index = TYPES.index(go_type)
    data = map_record(index, value)
    with pytest.raises(DecodeError) as caught:
        holder.decode(data)
    assert caught.value.path == f"Holder.M{index}['bb']"
    assert caught.value.offset == len(data) - len(value)
    assert words in str(caught.value)
