"""The compatibility checker: one finding per rule of the zid discipline, on crafted schema pairs."""

from __future__ import annotations

from typing import Any

import pytest
from support.vectors import VECTORS, vector_schema

import zebrapack
from zebrapack import SchemaError, check_compatible
from zebrapack.sources.from_go import compile_go_schema
from zebrapack.schema.document import schema_document

PERSON = """package people

type Person struct {
	Name  string            `zid:"0" msg:"name"`
	Age   int32             `zid:"1"`
	Tags  []string          `zid:"2"`
	Home  *Address          `zid:"3"`
	Bytes [4]byte           `zid:"4"`
	Old   struct{}          `zid:"5" msg:",deprecated"`
}

type Address struct {
	Street string `zid:"0"`
}
"""


def person(**replace: str) -> zebrapack.SchemaDef:
    """PERSON with whole lines replaced (``Age='Age string `zid:"1"`'``) or removed (an empty string)."""
    lines = []
    for line in PERSON.splitlines():
        name = line.split()[0] if line.startswith("\t") else None
        if name in replace:
            if replace[name]:
                lines.append("\t" + replace[name])
        else:
            lines.append(line)
    return compile_go_schema("\n".join(lines) + "\n")


def lines(old: Any, new: Any) -> list[str]:
    report = check_compatible(old, new)
    return [f"{f.severity}: {f}" for f in report.findings]


def test_same_schema_has_no_findings() -> None:
    report = check_compatible(person(), person())
    assert report.findings == () and report.compatible


@pytest.mark.parametrize(("change", "finding"), [
    ({"Age": 'Age string `zid:"1"`'}, "conflict: Person zid 1 (Age): type int32 -> string"),
    ({"Tags": 'Tags []int32 `zid:"2"`'}, "conflict: Person zid 2 (Tags): type []string -> []int32"),
    ({"Home": 'Home *Person `zid:"3"`'}, "conflict: Person zid 3 (Home): type *Address -> *Person"),
    ({"Age": 'Years int32 `zid:"1" msg:"Age"`'}, "conflict: Person zid 1 (Age): Go name Age -> Years"),
    ({"Name": 'Name string `zid:"0" msg:"fullname"`'}, "conflict: Person zid 0 (Name): tag name name -> fullname"),
    ({"Old": ""}, "conflict: Person zid 5 (Old): field removed (retire it instead: deprecated, type struct{})"),
    ({"Age": 'Age struct{} `zid:"1"`'},
     "conflict: Person zid 1 (Age): type int32 -> struct{} (a retired field must also be deprecated)"),
    ({"Old": 'Old int64 `zid:"5"`'}, "conflict: Person zid 5 (Old): type struct{} -> int64 (a retired zid is never reused)"),
    ({"Age": 'Age struct{} `zid:"1" msg:",deprecated"`'}, "info: Person zid 1 (Age): retired (int32 -> struct{}, deprecated)"),
    ({"Age": 'Age int32 `zid:"1" msg:",deprecated"`'}, "info: Person zid 1 (Age): newly deprecated"),
    ({"Old": 'Old struct{} `zid:"5"`'}, "info: Person zid 5 (Old): no longer deprecated"),
])
def test_each_change_of_a_zid_is_one_finding(change: dict[str, str], finding: str) -> None:
    assert lines(person(), person(**change)) == [finding]


def test_renamed_field_changes_its_tag_name_too() -> None:
    assert lines(person(), person(Age='Years int32 `zid:"1"`')) == [
        "conflict: Person zid 1 (Age): Go name Age -> Years", "conflict: Person zid 1 (Age): tag name Age -> Years"]


def test_new_fields_and_structs_are_information() -> None:
    new = compile_go_schema(PERSON.replace('msg:",deprecated"`\n', 'msg:",deprecated"`\n\tNick string `zid:"6"`\n')
                            + 'type Pet struct {\n\tName string `zid:"0"`\n}\n')
    report = check_compatible(person(), new)
    assert lines(person(), new) == ["info: Person zid 6 (Nick): new field string", "info: Pet: new struct"]
    assert report.compatible and report.info == report.findings


def test_removed_struct_is_a_conflict() -> None:
    new = compile_go_schema(PERSON.replace("*Address", "*Person").split("type Address")[0])
    assert lines(person(), new) == [
        "conflict: Person zid 3 (Home): type *Address -> *Person",
        "conflict: Address: struct removed (structs, like fields, are never deleted)",
    ]


def document_with(extra_fields: list[dict[str, Any]], struct: str = "Person") -> dict[str, Any]:
    document = schema_document(person())
    document["Structs"][struct]["Fields"] += extra_fields
    return document


def test_repeated_zid_is_a_conflict() -> None:
    new = document_with([{"Zid": 2, "FieldGoName": "Labels", "FieldTypeStr": "string",
                          "FieldFullType": {"Kind": 2, "Str": "string"}}])
    assert lines(person(), new) == ["conflict: Person zid 2 (Labels): zid used twice in the new schema (also by Tags)"]
    assert lines(new, person()) == ["conflict: Person zid 2 (Labels): zid used twice in the old schema (also by Tags)"]


def test_new_zid_leaving_a_gap_is_a_conflict() -> None:
    new = document_with([{"Zid": 8, "FieldGoName": "Nick", "FieldTypeStr": "string",
                          "FieldFullType": {"Kind": 2, "Str": "string"}}])
    assert lines(person(), new) == ["info: Person zid 8 (Nick): new field string",
                                    "conflict: Person zid 8 (Nick): new zid leaves a gap (zid 6, 7 unused)"]


def test_new_struct_with_a_gap_is_a_conflict() -> None:
    new = schema_document(person())
    new["Structs"]["Pet"] = {"StructName": "Pet", "Fields": [
        {"Zid": 1, "FieldGoName": "Name", "FieldTypeStr": "string", "FieldFullType": {"Kind": 2, "Str": "string"}}]}
    assert lines(person(), new) == ["info: Pet: new struct",
                                    "conflict: Pet zid 1 (Name): new zid leaves a gap (zid 0 unused)"]


def test_reference_quirks_are_not_changes() -> None:
    # zp.z writes Inner as an unnamed inlined struct (Kind 25); our compiler names it (Kind 22).
    ours = compile_go_schema((VECTORS / "schemas" / "zp.go").read_text())
    assert check_compatible(VECTORS / "schemas" / "zp.z", ours).findings == ()
    assert check_compatible(ours, str(VECTORS / "schemas" / "zp.z.json")).findings == ()


def test_byte_and_uint8_are_one_type_except_as_array_elements() -> None:
    # [N]byte is bin on the wire, [N]uint8 an array of integers (golden/deep): a conflict.
    assert [f.kind for f in check_compatible(person(), person(Bytes='Bytes [4]uint8 `zid:"4"`')).conflicts] \
        == ["type-changed"]
    assert lines(person(Bytes='Bytes []uint8 `zid:"4"`'), person(Bytes='Bytes []uint8 `zid:"4"`')) == []
    assert lines(person(Bytes='Bytes map[string]byte `zid:"4"`'),
                 person(Bytes='Bytes map[string]uint8 `zid:"4"`')) == []


def test_evolution_of_the_vectors_is_compatible_one_way() -> None:
    evo1, evo2 = vector_schema("evo1.z"), vector_schema("evo2.z")
    forward = check_compatible(evo1, evo2)
    assert forward.compatible and [f.kind for f in forward.findings] == ["retired", "new-field", "new-field"]
    backward = check_compatible(evo2.model, (VECTORS / "schemas" / "evo1.z").read_bytes())
    assert [(f.kind, f.zid) for f in backward.conflicts] == [("type-changed", 1), ("field-removed", 3),
                                                             ("field-removed", 4)]


def test_findings_as_json_data() -> None:
    finding = check_compatible(person(), person(Age='Age string `zid:"1"`')).findings[0]
    assert finding.as_dict() == {"severity": "conflict", "kind": "type-changed", "struct": "Person", "zid": 1,
                                 "field": "Age", "message": "type int32 -> string"}


def test_invalid_schema_is_an_error_naming_it(tmp_path: Any) -> None:
    broken = tmp_path / "broken.z.json"
    broken.write_text('{"Structs": {"T": {"Fields": [{"Zid": 0}]}}}')
    with pytest.raises(SchemaError, match="broken.z.json: T: field #0 has no valid FieldGoName"):
        check_compatible(person(), broken)
