"""A field whose type zebrapack cannot represent (an anonymous struct the reference inlines,
a type of another package, an inlined struct the schema does not hold) makes only that
field unusable, never the whole schema: the schema loads, the field's attribute is always
None, and a record that holds a value there, or a value set there, is a clear error naming
the field, in decode, encode, typed JSON and Arrow. A malformed schema is still an error."""

from __future__ import annotations

import copy
import io
import json
from typing import Any

import msgpack
import pytest
from support.vectors import TESTS

import zebrapack
from zebrapack import DecodeError, EncodeError, SchemaError
from zebrapack.textformats.typed_json import TypedJson, TypedJsonError

DEF_JSON = TESTS / "golden2" / "schemas" / "def.z.json"
DEF = zebrapack.load(TESTS / "golden2" / "schemas" / "def.z")
OBJ = "an anonymous struct type"


def test_one_unusable_field_leaves_the_rest_of_the_reference_def_schema_usable() -> None:
    obj = next(f for f in DEF.structs["TestType"].fields if f.go_name == "Obj")
    assert (obj.type, obj.skip, obj.go_spelling) == (None, False, "struct{ ValueA string; ValueB []byte; }")
    assert OBJ in obj.unusable
    assert [f.go_name for f in DEF.structs["TestType"].unusable_fields] == ["Obj"]
    assert "Obj" not in [f.go_name for f in DEF.structs["TestType"].wire_fields]
    assert [f.name for f in __import__("dataclasses").fields(DEF.types.TestType)] == [
        "F", "Els", "Obj", "Child", "Time", "Any", "Appended", "Num", "Slice1", "Slice2", "SlicePtr"]
    assert DEF.types.TestType().Obj is None
    value = DEF.types.TestType(Slice1=["a"], Num=zebrapack.GoUint64(300))
    assert DEF.decode(DEF.encode(value, mode="msgp"), type="TestType", strict=True) == value


def test_a_record_holding_the_unusable_field_is_a_decode_error_naming_it() -> None:
    record = msgpack.packb({"float": 1.5, "object": {"value_a": "x", "value_b": b""}})
    for strict in (False, True):
        with pytest.raises(DecodeError, match=r"TestType\.Obj: the record holds a value of struct\{ ValueA string; "
                                              rf"ValueB \[\]byte; \}}, which zebrapack cannot represent: {OBJ}") \
                as caught:
            DEF.decode(record, type="TestType", strict=strict)
        assert caught.value.offset == len(msgpack.packb({"float": 1.5})) + len(msgpack.packb("object"))


def test_a_nil_or_absent_unusable_field_reads_as_none() -> None:
    for record in (msgpack.packb({"object": None, "num": 1}), msgpack.packb({"num": 1})):
        assert DEF.decode(record, type="TestType").Obj is None


def test_setting_the_unusable_field_is_an_encode_error_naming_it() -> None:
    with pytest.raises(EncodeError, match=rf"TestType\.Obj: .* cannot be represented by zebrapack \({OBJ}.*the "
                                          r"field must be None, not dict"):
        DEF.encode(DEF.types.TestType(Obj={"value_a": "x"}), mode="msgp")
    assert b"object" not in DEF.encode(DEF.types.TestType(), mode="msgp")      # None: left out


def document_with(edit: Any) -> dict[str, Any]:
    document = json.loads(DEF_JSON.read_text())
    edit(document)
    return document


def things_field(document: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in document["Structs"]["Things"]["Fields"] if f["FieldGoName"] == name)


@pytest.mark.parametrize(("edit", "reason"), [
    (lambda d: things_field(d, "Vals").update(FieldTypeStr="time.Duration", FieldCategory=23, FieldPrimitive=22,
                                              FieldFullType={"Kind": 22, "Str": "time.Duration"}),
     "type time.Duration of another package"),
    (lambda d: things_field(d, "Vals").update(FieldFullType={"Kind": 26, "Str": "Slice",
                                                              "Domain": {"Kind": 22, "Str": "big.Int"}}),
     "type big.Int of another package"),
    (lambda d: things_field(d, "Vals").update(FieldTypeStr="Missing", FieldCategory=25,
                                              FieldFullType={"Kind": 25, "Str": "Struct"}),
     "inlined struct 'Missing' is not a struct of the schema"),
    (lambda d: things_field(d, "Vals").update(FieldTypeStr="[]Gone", FieldCategory=26, FieldFullType={
        "Kind": 26, "Str": "Slice", "Domain": {"Kind": 25, "Str": "Struct"}}),
     "inlined struct 'Gone' is not a struct of the schema"),
], ids=["other-package", "other-package-element", "unknown-inlined-struct", "unknown-inlined-element"])
def test_types_zebrapack_cannot_represent_make_only_their_field_unusable(edit: Any, reason: str) -> None:
    schema = zebrapack.load(document_with(edit))
    vals = next(f for f in schema.structs["Things"].fields if f.go_name == "Vals")
    assert reason in vals.unusable
    assert schema.types.Things().Vals is None
    with pytest.raises(DecodeError, match=rf"Things\.Vals: the record holds a value of .*{reason}"):
        schema.decode(msgpack.packb({"values": [1]}), type="Things")


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: things_field(d, "Vals").update(FieldFullType={"Kind": 99}), "unknown type kind 99"),
    (lambda d: things_field(d, "Vals").update(FieldFullType={"Kind": 31, "Str": "x"}), "unknown type kind 31"),
    (lambda d: things_field(d, "Vals").update(FieldFullType={"Kind": 26, "Str": "Slice"}), "SLICE type without"),
    (lambda d: things_field(d, "Vals").update(FieldFullType={"Kind": 22, "Str": "not a name"}), "IDENT type names"),
    # an unrepresentable type is kept to be written back: it must be data JSON says exactly
    (lambda d: things_field(d, "Vals").update(FieldFullType={"Kind": 22, "Str": "time.Duration", 1: "x", "a": 2}),
     r"field type \(FieldFullType\) holds keys that are not strings"),
    (lambda d: things_field(d, "Vals").update(FieldFullType={"Kind": 22, "Str": "time.Duration", "X": b"\x00"}),
     r"field type \(FieldFullType\) holds keys that are not strings or values"),
], ids=["unknown-kind", "runtime-kind-number", "no-element", "bad-ident", "int-key-in-kept-type",
        "bytes-in-kept-type"])
def test_a_malformed_type_is_still_a_schema_error(edit: Any, message: str) -> None:
    with pytest.raises(SchemaError, match=rf"Things\.Vals: {message}"):
        zebrapack.load(document_with(edit))


def test_a_zebrapack_mode_unusable_field_with_a_zid_is_an_error_held_by_zid() -> None:
    document = {"SourcePackage": "p", "Structs": {"T": {"StructName": "T", "Fields": [
        {"Zid": 0, "FieldGoName": "A", "FieldTypeStr": "int64", "FieldCategory": 23, "FieldPrimitive": 17,
         "FieldFullType": {"Kind": 17, "Str": "int64"}},
        {"Zid": 1, "FieldGoName": "D", "FieldTypeStr": "time.Duration", "FieldCategory": 23, "FieldPrimitive": 22,
         "FieldFullType": {"Kind": 22, "Str": "time.Duration"}}]}}}
    schema = zebrapack.load(document)
    assert schema.encode(schema.types.T(A=1)) == bytes.fromhex("82ffa1540001")
    with pytest.raises(DecodeError, match=r"T\.D: the record holds a value of time\.Duration"):
        schema.decode(bytes.fromhex("83ffa154000101d3000000000000000a"))
    assert schema.decode(bytes.fromhex("83ffa154000101c0")) == schema.types.T(A=1)


def test_the_unusable_field_keeps_its_type_through_dump_and_load(tmp_path: Any) -> None:
    DEF.dump(tmp_path / "def.z")
    again = json.loads((tmp_path / "def.z.json").read_text())
    original = json.loads(DEF_JSON.read_text())
    obj = [f for f in original["Structs"]["TestType"]["Fields"] if f["FieldGoName"] == "Obj"]
    assert [f for f in again["Structs"]["TestType"]["Fields"] if f["FieldGoName"] == "Obj"] == obj
    assert zebrapack.load(tmp_path / "def.z").model == DEF.model


def test_typed_json_refuses_the_unusable_field_both_ways() -> None:
    converter = TypedJson(DEF)
    document = converter.to_json(DEF.types.TestType(Slice1=["a"]))
    assert "Obj" not in document
    assert converter.from_json(document) == DEF.types.TestType(Slice1=["a"])
    with pytest.raises(TypedJsonError, match=rf"TestType\.Obj: .* cannot be represented by zebrapack: {OBJ}"):
        converter.to_json(DEF.types.TestType(Obj=1))
    with pytest.raises(TypedJsonError, match=rf"TestType\.Obj: .* cannot be represented by zebrapack: {OBJ}"):
        converter.from_json({**document, "Obj": None})


def test_arrow_reader_refuses_a_record_holding_it_and_writer_a_column_for_it() -> None:
    pa = pytest.importorskip("pyarrow")
    import zebrapack.arrow
    record = msgpack.packb({"object": {"value_a": "x"}, "num": 1})
    with pytest.raises((DecodeError, pa.ArrowInvalid), match=r"TestType\.Obj: the record holds a value of"):
        pa.RecordBatchReader.from_stream(zebrapack.arrow.read(record, DEF, "TestType")).read_all()
    fine = msgpack.packb({"object": None, "num": 1})
    table = pa.RecordBatchReader.from_stream(zebrapack.arrow.read(fine, DEF, "TestType", time_unit="us")).read_all()
    assert "Obj" not in table.column_names
    with pytest.raises(EncodeError, match=r"TestType\.Obj: no column can be written as struct\{"):
        zebrapack.arrow.write(pa.table({"Obj": [b"\x80"]}), io.BytesIO(), DEF, "TestType", mode="msgp")


def test_the_document_model_keeps_every_other_field_of_the_struct() -> None:
    document = copy.deepcopy(json.loads(DEF_JSON.read_text()))
    fields = {f["FieldGoName"] for f in document["Structs"]["TestType"]["Fields"]}
    assert {f.go_name for f in DEF.structs["TestType"].fields} == fields
