"""The loader on the reference's own schemas (tests/golden/schemas): Skip fields
whatever their zid, ``uint8`` containers that are arrays of integers (not ``bin``),
and the two spellings of a struct-valued field."""

from __future__ import annotations

import copy
import dataclasses
import json
import typing
from typing import Any

import pytest
from support.vectors import TESTS

import zebrapack
from zebrapack import Kind, SchemaError, TypeRef

GOLDEN_SCHEMAS = TESTS / "golden" / "schemas"
U8 = TypeRef(Kind.UINT8)
BYTE = TypeRef(Kind.BYTE)


def golden_document(name: str) -> dict[str, Any]:
    return json.loads((GOLDEN_SCHEMAS / f"{name}.z.json").read_text())


def fields_of(schema: zebrapack.Schema, struct: str) -> dict[str, zebrapack.FieldDef]:
    return {f.go_name: f for f in schema.structs[struct].fields}


@pytest.mark.parametrize("name", ["my", "my2", "deep", "headerplus"])
def test_every_golden_schema_loads_from_both_twins(name: str) -> None:
    schema = zebrapack.load(GOLDEN_SCHEMAS / f"{name}.z")
    assert schema.model == zebrapack.load(GOLDEN_SCHEMAS / f"{name}.z.json").model


def test_skip_field_without_zid_is_ignored() -> None:
    schema = zebrapack.load(GOLDEN_SCHEMAS / "my2.z")
    skipped = fields_of(schema, "Tr")["et"]
    assert (skipped.zid, skipped.skip, skipped.type) == (-2, True, None)
    assert [f.go_name for f in schema.structs["Tr"].wire_fields] == ["U", "Nt", "Snot", "Notyet", "Setm"]
    assert [f.name for f in dataclasses.fields(schema.types["Tr"])] == ["U", "Nt", "Snot", "Notyet", "Setm"]


def test_skip_fields_are_ignored_whatever_their_zid_or_category() -> None:
    document = golden_document("my2")
    fields = document["Structs"]["Tr"]["Fields"]
    fields.append({"Zid": -2, "FieldGoName": "other", "FieldTagName": "-", "Skip": True})
    fields.append({"Zid": 1 << 40, "FieldGoName": "far", "FieldCategory": 99, "FieldPrimitive": 77,
                   "FieldFullType": {"Kind": 1234}, "Skip": True})
    schema = zebrapack.load(document)
    assert [f.go_name for f in schema.structs["Tr"].wire_fields] == ["U", "Nt", "Snot", "Notyet", "Setm"]


def test_a_field_without_a_zid_loads_and_only_msgp_mode_writes_it() -> None:
    document = golden_document("my2")
    document["Structs"]["Tr"]["Fields"][0]["Zid"] = -3      # FORMAT.md section 7: no zid tag
    schema = zebrapack.load(document)
    value = schema.types.Tr(U="u")
    with pytest.raises(zebrapack.EncodeError, match=r"Tr\.U has no zid .*mode='msgp'"):
        schema.encode(value, structnames=False)
    assert schema.decode(schema.encode(value, mode="msgp"), type="Tr") == value
    document["Structs"]["Tr"]["Fields"][0]["Zid"] = 65536
    with pytest.raises(SchemaError, match=r"Tr\.U: zid 65536 outside"):
        zebrapack.load(document)


def test_a_skip_zid_still_collides_with_a_live_one() -> None:
    document = golden_document("my2")
    document["Structs"]["Tr"]["Fields"].append({"Zid": 0, "FieldGoName": "old", "Skip": True})
    with pytest.raises(SchemaError, match="zid 0 used twice"):
        zebrapack.load(document)


def test_uint8_containers_are_arrays_of_integers_and_byte_ones_bin() -> None:
    schema = zebrapack.load(GOLDEN_SCHEMAS / "deep.z")
    fields = fields_of(schema, "Deep")
    assert fields["U8s"].type == TypeRef(Kind.SLICE, elem=U8)
    assert fields["U8Arr"].type == TypeRef(Kind.ARRAY, length=4, elem=U8)
    assert fields["Grid"].type == TypeRef(Kind.ARRAY, length=3, elem=TypeRef(Kind.ARRAY, length=2, elem=U8))
    assert fields["U8Slab"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.SLICE, elem=U8))
    assert fields["Blobs"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.BYTES))
    assert fields["Fixed"].type == TypeRef(Kind.ARRAY, length=4, elem=BYTE)
    assert fields["ByteGrd"].type == TypeRef(Kind.ARRAY, length=2, elem=TypeRef(Kind.ARRAY, length=3, elem=BYTE))


def test_uint8_containers_are_lists_of_int_in_the_dataclasses() -> None:
    schema = zebrapack.load(GOLDEN_SCHEMAS / "deep.z")
    hints = typing.get_type_hints(schema.types["Deep"])
    assert hints["U8s"] == list[int]
    assert hints["U8Arr"] == list[int]
    assert hints["Grid"] == list[list[int]]
    assert hints["U8Slab"] == list[list[int]]
    assert hints["Fixed"] is bytes
    assert hints["ByteGrd"] == list[bytes]
    zero = schema.types["Deep"]()
    assert (zero.U8Arr, zero.Grid, zero.Fixed, zero.ByteGrd) == ([0] * 4, [[0, 0]] * 3, bytes(4), [bytes(3)] * 2)


def test_uint8_array_is_written_as_an_array_of_unsigned_integers() -> None:
    schema = zebrapack.load(GOLDEN_SCHEMAS / "deep.z")
    record = schema.types["Deep"](U8s=[1, 200], U8Arr=[0, 1, 2, 255])
    decoded = schema.decode(schema.encode(record), strict=True)
    assert (decoded.U8s, decoded.U8Arr) == ([1, 200], [0, 1, 2, 255])
    assert b"\x92\x01\xcc\xc8" in schema.encode(record)
    with pytest.raises(zebrapack.EncodeError, match=r"Deep\.U8Arr"):
        schema.encode(schema.types["Deep"](U8Arr=b"\x00\x01\x02\x03"))


def _with_plus_pet(document: dict[str, Any], **spelling: Any) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    for field in changed["Structs"]["Plus"]["Fields"]:
        if field["FieldGoName"] == "Pet":
            for key in ("FieldCategory", "FieldPrimitive", "FieldFullType"):
                field.pop(key, None)
            field.update(spelling)
    return changed


@pytest.mark.parametrize("spelling", [
    {"FieldCategory": 25},
    {"FieldCategory": 23, "FieldPrimitive": 22},
    {"FieldCategory": 25, "FieldFullType": {"Kind": 25, "Str": "Struct"}},
    {"FieldCategory": 23, "FieldPrimitive": 22, "FieldFullType": {"Kind": 22, "Str": "Dog"}},
], ids=["category-25", "category-23-primitive-22", "full-type-25", "full-type-22"])
def test_both_spellings_of_a_struct_valued_field_are_the_same(spelling: dict[str, Any]) -> None:
    document = golden_document("headerplus")
    for field in document["Structs"]["Plus"]["Fields"]:
        if field["FieldGoName"] == "Pet":
            field["FieldTypeStr"] = "Dog"
    schema = zebrapack.load(_with_plus_pet(document, **spelling))
    assert fields_of(schema, "Plus")["Pet"].type == TypeRef(Kind.STRUCT, name="Dog")


def test_byte_and_uint8_arrays_are_incompatible_but_scalars_are_one_type() -> None:
    document = golden_document("deep")
    changed = copy.deepcopy(document)
    fields = {f["FieldGoName"]: f for f in changed["Structs"]["Deep"]["Fields"]}
    fields["Fixed"]["FieldFullType"]["Range"] = {"Kind": 8, "Str": "uint8"}      # [4]byte -> [4]uint8
    assert [finding.field for finding in zebrapack.check_compatible(document, changed).conflicts] == ["Fixed"]
    my = golden_document("my")
    renamed = copy.deepcopy(my)
    r_field = next(f for f in renamed["Structs"]["S2"]["Fields"] if f["FieldGoName"] == "R")
    r_field["FieldFullType"]["Range"] = {"Kind": 12, "Str": "byte"}              # map[string]uint8 -> byte
    assert zebrapack.check_compatible(my, renamed).compatible
