"""msgp.Raw and msgp.Number, the reference runtime's types (FORMAT.md section 7; schema
IDENTs ``msgp.Raw`` and ``msgp.Number``): a Raw is an already encoded msgpack value, its
bytes given back by decode and written verbatim by encode once checked to be exactly one
value (empty bytes are nil, as the runtime writes an empty Raw); a Number keeps its wire
family, an int, a GoUint64, a GoFloat32 or a float as an interface{} number does. The
reference generator never treats either as empty: zebrapack mode writes them always."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from support.vectors import TESTS

import zebrapack
from zebrapack import DecodeError, EncodeError, GoFloat32, GoUint64, Kind, TypeRef
from zebrapack.schema.document import schema_document
from zebrapack.textformats.typed_json import TypedJson, TypedJsonError

RAWNUM = zebrapack.schema_from_go(TESTS / "schemas" / "rawnum.go")
Holder = RAWNUM.types.Holder
#: A Holder's map header and struct name; its Raw (zid 0) and Number (zid 1) follow.
HEAD = bytes.fromhex("83ffa6486f6c646572")


def test_the_schema_names_the_runtime_types() -> None:
    fields = {f.go_name: f.type for f in RAWNUM.structs["Holder"].fields}
    assert fields["Raw"] == TypeRef(Kind.RAW) and fields["Num"] == TypeRef(Kind.NUMBER)
    assert fields["Nums"] == TypeRef(Kind.SLICE, elem=TypeRef(Kind.NUMBER))
    document = schema_document(RAWNUM.model)["Structs"]["Holder"]["Fields"]
    assert document[0]["FieldFullType"] == {"Kind": 22, "Str": "msgp.Raw"}
    assert (document[1]["FieldCategory"], document[1]["FieldPrimitive"]) == (23, 22)


def test_raw_and_number_are_never_empty_in_zebrapack_mode() -> None:
    assert RAWNUM.encode(Holder()) == HEAD + bytes.fromhex("00c00100")


@pytest.mark.parametrize("raw", [b"\x01", b"\x92\x01\xa1a", msgpack.packb({"k": [1.5, None]}), b"\xc7\x01\x09\x90",
                                 b"\xdc\x00\x01\xc3"], ids=bytes.hex)
def test_raw_is_written_verbatim_and_read_back_as_its_bytes(raw: bytes) -> None:
    data = RAWNUM.encode(Holder(Raw=raw))
    assert data == HEAD + b"\x00" + raw + b"\x01\x00"
    assert RAWNUM.decode(data, strict=True).Raw == raw
    assert RAWNUM.encode(Holder(Raw=bytearray(raw))) == RAWNUM.encode(Holder(Raw=memoryview(raw))) == data


def test_an_empty_raw_is_nil_and_nil_reads_as_empty() -> None:
    assert RAWNUM.encode(Holder(Raw=b"")) == RAWNUM.encode(Holder(Raw=b"\xc0")) == HEAD + bytes.fromhex("00c00100")
    assert RAWNUM.decode(HEAD + bytes.fromhex("00c00100"), strict=True).Raw == b""


@pytest.mark.parametrize(("raw", "problem"), [
    (b"\x92\x01", r"input ends inside a value: 2 bytes needed, 1 left \(at byte 1\)"),
    (b"\x01\x02", r"1 bytes after the value \(at byte 1\)"),
    (b"\xc1", r"0xc1 is never used in msgpack \(at byte 0\)"),
    (b"\xdd\xff\xff\xff\xff", "input ends inside a value"),
], ids=["cut-short", "trailing", "never-used", "claims-too-much"])
def test_raw_that_is_not_exactly_one_value_is_refused(raw: bytes, problem: str) -> None:
    with pytest.raises(EncodeError, match=rf"Holder\.Raw: msgp\.Raw must hold exactly one msgpack value: {problem}"):
        RAWNUM.encode(Holder(Raw=raw))


def test_raw_nested_deeper_than_max_depth_allows_is_refused() -> None:
    shallow = zebrapack.schema_from_go(TESTS / "schemas" / "rawnum.go", max_depth=4)
    assert shallow.encode(shallow.types.Holder(Raw=b"\x91\x91\x91\x01"))
    with pytest.raises(EncodeError, match=r"nesting deeper than max_depth=3 \(at byte 4, in \[0\]\[0\]\[0\]\)"):
        shallow.encode(shallow.types.Holder(Raw=b"\x91\x91\x91\x91\x91\x01"))


@pytest.mark.parametrize("value", ["text", 1, None, [1]], ids=repr)
def test_raw_of_another_python_type_is_refused(value: Any) -> None:
    with pytest.raises(EncodeError, match=r"Holder\.Raw: expected msgp\.Raw"):
        RAWNUM.encode(Holder(Raw=value))


#: A Number and its bytes: the family follows the Python type, as in interface{}.
NUMBERS = [
    (0, "00", int), (-1, "ff", int), (200, "d100c8", int), (-(2**63), "d38000000000000000", int),
    (2**63, "cf8000000000000000", GoUint64), (GoUint64(200), "ccc8", GoUint64),
    (GoUint64(5), "05", int),     # a positive fixint, which every reader reads as an int
    (GoFloat32(1.5), "ca3fc00000", GoFloat32), (1.5, "cb3ff8000000000000", float),
    (-0.0, "cb8000000000000000", float),
]


@pytest.mark.parametrize(("number", "number_hex", "read_as"), NUMBERS, ids=[hex for _, hex, _ in NUMBERS])
def test_number_keeps_its_wire_family(number: Any, number_hex: str, read_as: type) -> None:
    data = RAWNUM.encode(Holder(Num=number))
    assert data == HEAD + b"\x00\xc0\x01" + bytes.fromhex(number_hex)
    read = RAWNUM.decode(data, strict=True).Num
    assert (type(read), read) == (read_as, number)
    assert RAWNUM.encode(RAWNUM.decode(data)) == data


@pytest.mark.parametrize("wire", ["d000", "d1ffff", "cc05", "cd0100", "ca7fc00001", "cb7ff8000000000001"])
def test_number_reads_every_family_and_writes_it_back_in_its_smallest_form(wire: str) -> None:
    number = RAWNUM.decode(HEAD + b"\x00\xc0\x01" + bytes.fromhex(wire), strict=True).Num
    family = {"d": int, "c": GoUint64}.get(wire[0]) if wire[:2] not in ("ca", "cb") else None
    assert type(number) is (family or {"ca": GoFloat32, "cb": float}[wire[:2]])


@pytest.mark.parametrize("value", [True, "1", None, 1j, -(2**63) - 1, 2**64, GoUint64(2**64 - 1) + 1], ids=repr)
def test_number_of_no_go_number_type_is_refused(value: Any) -> None:
    with pytest.raises(EncodeError, match=r"Holder\.Num: "):
        RAWNUM.encode(Holder(Num=value))


@pytest.mark.parametrize("wire", ["a161", "c3", "92", "c70109", "c1"])
def test_number_reads_only_numbers(wire: str) -> None:
    with pytest.raises(DecodeError, match=r"Holder\.Num: expected msgp\.Number"):
        RAWNUM.decode(HEAD + b"\x00\xc0\x01" + bytes.fromhex(wire))


def test_a_nil_number_is_zero_to_a_lenient_read_and_an_error_to_a_strict_one() -> None:
    data = HEAD + bytes.fromhex("00c001c0")
    assert RAWNUM.decode(data).Num == 0
    with pytest.raises(DecodeError, match=r"Holder\.Num: expected msgp\.Number \(strict\), found nil"):
        RAWNUM.decode(data, strict=True)


def test_raw_and_number_in_containers_and_pointers() -> None:
    value = Holder(Nums=[1, GoUint64(300), GoFloat32(2.5), -3.25], Raws=[b"\x01", b"", b"\xa1x"],
                   ByName={"a": b"\x90"}, MaybeNum=GoUint64(7))
    again = RAWNUM.decode(RAWNUM.encode(value), strict=True)
    assert again == Holder(Nums=[1, GoUint64(300), GoFloat32(2.5), -3.25], Raws=[b"\x01", b"", b"\xa1x"],
                           ByName={"a": b"\x90"}, MaybeNum=7)
    assert [type(n) for n in again.Nums] == [int, GoUint64, GoFloat32, float]


def test_typed_json_keeps_number_families_and_raw_bytes() -> None:
    converter = TypedJson(RAWNUM)
    value = Holder(Raw=b"\x92\x01\xc0", Num=GoUint64(300), Nums=[1, GoFloat32(0.5), 2.5, float("-inf")])
    document = converter.to_json(value)
    assert (document["Raw"], document["Num"]) == ({"$msgpack": "9201c0"}, {"$uint": 300})
    assert document["Nums"][:3] == [1, {"$f32": 0.5}, 2.5]
    again = converter.from_json(document)
    assert RAWNUM.encode(again) == RAWNUM.encode(value)
    assert [type(n) for n in again.Nums] == [int, GoFloat32, float, float]
    for bad in ("1", True, None, {"$ext": [1, ""]}, [1]):
        with pytest.raises(TypedJsonError, match=r"Holder\.Num: expected msgp\.Number"):
            converter.from_json({**document, "Num": bad})
    with pytest.raises(TypedJsonError, match=r"Holder\.Raw: \$msgpack must be hex"):
        converter.from_json({**document, "Raw": {"$msgpack": "xyz"}})
