"""zebrapack.load: every source form, the reference compiler's quirks, malformed schemas,
and the dataclasses generated for the structs."""

from __future__ import annotations

import copy
import dataclasses
import json
import pathlib
from datetime import datetime
from typing import Any

import msgpack
import pytest
from support.vectors import VECTORS

import zebrapack
from zebrapack import Kind, SchemaError, TypeRef

SCHEMAS = VECTORS / "schemas"


def zp_document() -> dict[str, Any]:
    return json.loads((SCHEMAS / "zp.z.json").read_text())


@pytest.mark.parametrize("source", [
    SCHEMAS / "zp.z",
    str(SCHEMAS / "zp.z"),
    SCHEMAS / "zp.z.json",
    (SCHEMAS / "zp.z").read_bytes(),
    bytearray((SCHEMAS / "zp.z").read_bytes()),
    zp_document(),
], ids=["pathlike", "str-path", "json-path", "bytes", "bytearray", "dict"])
def test_every_source_form_loads_the_same_schema(source: Any) -> None:
    schema = zebrapack.load(source)
    assert schema.model == zebrapack.load(SCHEMAS / "zp.z").model
    assert schema.schema_id == 0x3b2f1a9c4d5e7
    assert schema.source_package == "zp"
    assert set(schema.types) == {"Inner", "Compound", "Tree", "A", "Prims"}


def test_msgpack_and_json_twins_agree_for_every_vector_schema() -> None:
    for path in sorted(SCHEMAS.glob("*.z")):
        assert zebrapack.load(path).model == zebrapack.load(f"{path}.json").model, path.name


def test_absent_schema_id_is_none() -> None:
    assert zebrapack.load(SCHEMAS / "mp.z").schema_id is None


def test_unnamed_inlined_struct_is_resolved_through_the_type_string() -> None:
    fields = {f.go_name: f for f in zebrapack.load(SCHEMAS / "zp.z").structs["Compound"].fields}
    inner = TypeRef(Kind.STRUCT, name="Inner")
    assert fields["Nested"].type == inner
    assert fields["Ptr"].type == TypeRef(Kind.POINTER, elem=inner)
    assert fields["PInners"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.POINTER, elem=inner))
    assert fields["MInner"].type == TypeRef(Kind.MAP, key=TypeRef(Kind.STRING), elem=TypeRef(Kind.POINTER, elem=inner))


def test_array_length_comes_from_the_domain() -> None:
    fields = {f.go_name: f for f in zebrapack.load(SCHEMAS / "zp.z").structs["Compound"].fields}
    assert fields["Arr"].type == TypeRef(Kind.ARRAY, length=3, elem=TypeRef(Kind.FLOAT64))
    assert fields["ByteArr"].type == TypeRef(Kind.ARRAY, length=4, elem=TypeRef(Kind.BYTE))


def test_ident_of_a_non_struct_is_an_interface() -> None:
    fields = {f.go_name: f for f in zebrapack.load(SCHEMAS / "iface.z").structs["Zoo"].fields}
    assert fields["Pet"].type == TypeRef(Kind.IDENT_IFACE, name="Familiar")
    assert fields["Flock"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.IDENT_IFACE, name="Familiar"))


def test_recursive_ident_is_the_struct() -> None:
    fields = {f.go_name: f for f in zebrapack.load(SCHEMAS / "zp.z").structs["Tree"].fields}
    assert fields["Kids"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.STRUCT, name="Tree"))


def test_skip_fields_have_no_type_and_no_attribute() -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z")
    skipped = {f.go_name: f for f in schema.structs["Compound"].fields if f.skip}
    assert set(skipped) == {"Gone", "UMap"}
    assert all(f.type is None for f in skipped.values())
    names = [f.name for f in dataclasses.fields(schema.types.Compound)]
    assert "Gone" not in names and "UMap" not in names


def test_structs_may_be_listed_as_in_older_schemas() -> None:
    document = zp_document()
    document["Structs"] = list(document["Structs"].values())
    assert zebrapack.load(document).model.structs == zebrapack.load(zp_document()).model.structs


# -- malformed schemas -----------------------------------------------------------

def broken(edit: Any) -> dict[str, Any]:
    document = copy.deepcopy(zp_document())
    edit(document)
    return document


def compound_field(document: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in document["Structs"]["Compound"]["Fields"] if f["FieldGoName"] == name)


@pytest.mark.parametrize(("edit", "message", "struct", "field"), [
    (lambda d: compound_field(d, "Ints")["FieldFullType"]["Domain"].update(Kind=99),
     "unknown type kind 99", "Compound", "Ints"),
    (lambda d: compound_field(d, "Strs").update(Zid=1), "zid 1 used twice", "Compound", "Strs"),
    (lambda d: compound_field(d, "Ints").update(Zid="1"), "Zid must be int", "Compound", "Ints"),
    (lambda d: compound_field(d, "Ints").update(OmitEmpty="yes"), "OmitEmpty must be bool", "Compound", "Ints"),
    (lambda d: compound_field(d, "Ints").pop("FieldFullType"), "field has no type", "Compound", "Ints"),
    (lambda d: compound_field(d, "Arr")["FieldFullType"]["Domain"].update(Str="x", Kind=-3),
     "array length", "Compound", "Arr"),
    (lambda d: compound_field(d, "Ints").update(Zid=70000), "outside 0..65535", "Compound", "Ints"),
    (lambda d: compound_field(d, "Strs").update(FieldGoName="Ints"), "field name used twice", "Compound", "Ints"),
    (lambda d: d["Structs"]["Inner"]["Fields"][0].update(
        FieldFullType={"Kind": 22, "Str": "Compound"}, FieldTypeStr="Compound"),
     "contains itself by value", "Compound", "Nested"),
], ids=["unknown-kind", "duplicate-zid", "zid-type",
        "flag-type", "no-type", "array-length", "zid-range", "duplicate-name", "value-cycle"])
def test_malformed_schema_raises_schema_error_naming_struct_and_field(
        edit: Any, message: str, struct: str, field: str) -> None:
    with pytest.raises(SchemaError, match=message) as caught:
        zebrapack.load(broken(edit))
    assert (caught.value.struct, caught.value.field) == (struct, field)
    assert f"{struct}.{field}" in str(caught.value)


def test_ident_naming_no_struct_is_an_interface_not_an_error() -> None:
    # FORMAT.md section 4: an IDENT whose name is not a struct of the schema is an interface
    schema = zebrapack.load(broken(
        lambda d: compound_field(d, "Ptr")["FieldFullType"]["Domain"].update(Kind=22, Str="Nowhere")))
    ptr = next(f for f in schema.structs["Compound"].fields if f.go_name == "Ptr")
    assert ptr.type == TypeRef(Kind.POINTER, elem=TypeRef(Kind.IDENT_IFACE, name="Nowhere"))


def test_schema_error_is_a_value_error() -> None:
    assert issubclass(SchemaError, ValueError)


@pytest.mark.parametrize("name", ["absent.z", "absent.z.json"])
def test_missing_schema_file_is_file_not_found(tmp_path: pathlib.Path, name: str) -> None:
    with pytest.raises(FileNotFoundError, match="absent"):
        zebrapack.load(tmp_path / name)
    with pytest.raises(FileNotFoundError, match="absent"):
        zebrapack.load(str(tmp_path / name))


@pytest.mark.parametrize("data", [b"\xc1", b"\x93\x01\x02\x03", b"\x81\xa1a"],
                         ids=["never-used-byte", "not-a-map", "truncated"])
def test_bytes_that_are_not_a_schema_raise_schema_error(data: bytes) -> None:
    with pytest.raises(SchemaError):
        zebrapack.load(data)


def test_malformed_json_file_is_a_schema_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bad.z.json"
    path.write_text("{not json")
    with pytest.raises(SchemaError, match="not a JSON schema"):
        zebrapack.load(path)


def test_struct_listed_under_another_name_is_rejected() -> None:
    document = zp_document()
    document["Structs"]["Other"] = document["Structs"].pop("Inner")
    with pytest.raises(SchemaError, match="listed under 'Other'"):
        zebrapack.load(document)


def test_schema_document_round_trips_through_dump(tmp_path: pathlib.Path) -> None:
    for path in sorted(SCHEMAS.glob("*.z")):
        schema = zebrapack.load(path)
        target = tmp_path / path.name
        schema.dump(target)
        assert zebrapack.load(target).model == schema.model, path.name
        assert zebrapack.load(f"{target}.json").model == schema.model, path.name
        assert isinstance(msgpack.unpackb(target.read_bytes()), dict)



def test_the_document_is_what_dump_writes_and_load_reads(tmp_path: pathlib.Path) -> None:
    for path in sorted(SCHEMAS.glob("*.z")):
        schema = zebrapack.load(path)
        schema.dump(tmp_path / path.name)
        assert schema.document == (tmp_path / path.name).read_bytes(), path.name
        assert zebrapack.load(schema.document).model == schema.model, path.name


def test_a_self_describing_stream_starts_with_the_document(tmp_path: pathlib.Path) -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z")
    with schema.writer(tmp_path / "records.zpk", write_schema=True) as writer:
        writer.write(schema.types.A(Name="x"))
    data = (tmp_path / "records.zpk").read_bytes()
    assert data.startswith(schema.document) and len(data) > len(schema.document)
    with zebrapack.open_stream(tmp_path / "records.zpk") as stream:
        assert [record.Name for record in stream] == ["x"]


# -- generated dataclasses -------------------------------------------------------

def test_generated_class_has_go_names_in_zid_order_with_slots() -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z")
    A = schema.types.A
    assert A.__name__ == "A"
    assert [f.name for f in dataclasses.fields(A)] == ["Name", "Bday", "Phone", "Sibs", "GPA", "Friend"]
    assert A.__slots__ == ("Name", "Bday", "Phone", "Sibs", "GPA", "Friend")
    with pytest.raises(AttributeError):
        A().extra = 1  # type: ignore[attr-defined]


def test_generated_annotations_follow_the_mapping_table() -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z")
    Inner = schema.types.Inner
    prims = schema.types.Prims.__annotations__
    assert prims["S"] is str and prims["Bin"] is bytes and prims["F32"] is float
    assert prims["C64"] is complex and prims["U64"] is int and prims["B"] is bool
    assert prims["T"] == datetime | None
    compound = schema.types.Compound.__annotations__
    assert compound["Ints"] == list[int]
    assert compound["SMap"] == dict[str, int]
    assert compound["Nested"] is Inner
    assert compound["Ptr"] == Inner | None
    assert compound["PInners"] == list[Inner | None]
    assert compound["ByteArr"] is bytes
    assert compound["Times"] == list[datetime]
    assert schema.types.Tree.__annotations__["Kids"] == list[schema.types.Tree]


def test_generated_defaults_are_the_zero_values() -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z")
    compound = schema.types.Compound()
    assert compound.Ints == [] and compound.SMap == {} and compound.Ptr is None
    assert compound.Arr == [0.0, 0.0, 0.0] and compound.ByteArr == bytes(4)
    assert compound.Nested == schema.types.Inner(X=0, Y="")
    assert compound.Ints is not schema.types.Compound().Ints     # fresh lists, not shared
    a = schema.types.A()
    assert (a.Name, a.Bday, a.Sibs, a.GPA, a.Friend) == ("", None, 0, 0.0, False)


def test_keyword_construction_repr_and_equality() -> None:
    A = zebrapack.load(SCHEMAS / "zp.z").types.A
    a = A(Name="x", Sibs=3)
    assert a == A(Name="x", Sibs=3) and a != A(Name="y", Sibs=3)
    assert repr(a) == "A(Name='x', Bday=None, Phone='', Sibs=3, GPA=0.0, Friend=False)"


def test_types_mapping_reads_by_key_and_attribute() -> None:
    types = zebrapack.load(SCHEMAS / "zp.z").types
    assert types["A"] is types.A
    assert "Tree" in types and len(types) == 5
    with pytest.raises(AttributeError, match="no struct 'Nope'"):
        types.Nope  # noqa: B018


def test_empty_record_decodes_to_the_default_instance_of_every_struct() -> None:
    for path in sorted(SCHEMAS.glob("*.z")):
        schema = zebrapack.load(path)
        for name, cls in schema.types.items():
            assert schema.decode(b"\x80", type=name) == cls(), f"{path.name} {name}"
