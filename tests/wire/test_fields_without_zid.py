"""Fields without a zid (FORMAT.md section 7): the reference starts every field at Zid -3
("not given"); in -msgp mode zids are never on the wire, so a msgp-mode schema may hold
fields with Zid -3 (its own _generated/def.go, golden2/def) or -1 (zebra/zebra.go). They
load, are keyed by their tag name, and only msgp mode can write them: zebrapack mode keys
fields by zid, so encoding such a struct there is an EncodeError naming the field."""

from __future__ import annotations

import io
from typing import Any

import pytest
from support.vectors import TESTS

import zebrapack
from zebrapack import EncodeError, SchemaError

DEF = zebrapack.load(TESTS / "golden2" / "schemas" / "def.z")


def schema_of(*fields: dict[str, Any], preserve_unknown: bool = False) -> zebrapack.Schema:
    return zebrapack.load({"SourcePackage": "p", "Structs": {"T": {"StructName": "T", "Fields": list(fields)}}},
                          preserve_unknown=preserve_unknown)


def int_field(zid: int, name: str, tag: str = "", **flags: Any) -> dict[str, Any]:
    return {"Zid": zid, "FieldGoName": name, "FieldTagName": tag or name, "FieldTypeStr": "int64",
            "FieldCategory": 23, "FieldPrimitive": 17, "FieldFullType": {"Kind": 17, "Str": "int64"}, **flags}


@pytest.mark.parametrize("zid", [-3, -1, -7])
def test_field_without_zid_loads_and_msgp_mode_keys_it_by_its_tag(zid: int) -> None:
    schema = schema_of(int_field(zid, "A", "a"), int_field(zid, "B", "b"))
    value = schema.types.T(A=1, B=-2)
    data = schema.encode(value, mode="msgp")
    assert data == bytes.fromhex("82a16101a162fe")      # declaration order, tag names
    assert schema.decode(data, type="T", strict=True) == value


def test_zebrapack_mode_cannot_write_a_struct_with_a_field_without_zid() -> None:
    schema = schema_of(int_field(0, "A"), int_field(-3, "B"))
    value = schema.types.T(A=1)
    for write in (lambda: schema.encode(value), lambda: schema.encode_into(value, bytearray()),
                  lambda: schema.writer(io.BytesIO()).write(value)):
        with pytest.raises(EncodeError, match=r"T\.B has no zid .*encode it with mode='msgp'"):
            write()
    assert schema.decode(schema.encode(value, mode="msgp"), type="T") == value


def test_a_nested_struct_without_zids_is_refused_in_zebrapack_mode_too() -> None:
    schema = zebrapack.load(TESTS / "golden2" / "schemas" / "def.z")
    value = schema.types.Rocky(Road="r")
    with pytest.raises(EncodeError, match=r"Rocky\.Bugs has no zid"):
        schema.encode(value)
    wrapped = schema.types.TopNester(Bullwinkle=value)
    with pytest.raises(EncodeError, match=r"TopNester\.TopId has no zid"):
        schema.encode(wrapped)


def test_zebrapack_mode_data_for_a_struct_without_zids_holds_only_unknown_zids() -> None:
    # The integer keys of zebrapack mode name no field here: they are skipped as unknown
    # zids of a newer schema (and kept by preserve_unknown), as for any schema.
    schema = schema_of(int_field(-3, "A"))
    assert schema.decode(bytes.fromhex("810005"), type="T", strict=True) == schema.types.T()
    keeping = schema_of(int_field(-3, "A"), preserve_unknown=True)
    assert keeping.decode(bytes.fromhex("810005"), type="T").zebrapack_unknown == {0: b"\x05"}


def test_a_zid_is_still_checked_where_there_is_one() -> None:
    with pytest.raises(SchemaError, match=r"T\.B: zid 0 used twice"):
        schema_of(int_field(0, "A"), int_field(0, "B"))
    with pytest.raises(SchemaError, match=r"T\.A: zid 65536 outside"):
        schema_of(int_field(65536, "A"))
    with pytest.raises(SchemaError, match="tag name 'x' used twice"):
        schema_of(int_field(-3, "A", "x"), int_field(-3, "B", "x"))


def test_the_reference_def_schema_loads_with_its_zidless_fields() -> None:
    fields = DEF.structs["TopNester"].fields
    assert {f.zid for f in fields} == {-3}
    assert [f.go_name for f in DEF.structs["TopNester"].wire_fields] == [f.go_name for f in fields]
    assert DEF.structs["TopNester"].field_without_zid is fields[0]
    assert DEF.structs["SimpleTestType"].field_without_zid is None     # zid tags 0, 1, 2
