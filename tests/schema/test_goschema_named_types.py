"""``zebrapack schema`` on named Go types, as the reference compiles them (FORMAT.md section 7):
a named type of any kind is its underlying type in the schema (``FieldTypeStr`` keeps the
name), a map keyed by a named type is a Skip field, shims replace a type by a primitive,
the msgp runtime's Raw, Number and RawExtension (tagged extension) are known; golden set 2's
acct.go compiles to exactly acct.z's model. ``zebrapack go`` writes such a schema back as
Go that compiles to it again, declaring the named types."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.cli import run_cli
from support.vectors import TESTS

import zebrapack
from zebrapack import Kind, TypeRef
from zebrapack.sources.from_go import compile_go_schema
from zebrapack.schema.document import schema_document

SOURCES = TESTS / "golden2" / "schemas"
MANIFEST: list[dict[str, Any]] = json.loads((TESTS / "golden2" / "manifest.json").read_text())["records"]
U8, BYTE, STRING = TypeRef(Kind.UINT8), TypeRef(Kind.BYTE), TypeRef(Kind.STRING)


def acct_reference() -> zebrapack.SchemaDef:
    return zebrapack.load(SOURCES / "acct.z").model


def test_acct_source_compiles_to_the_reference_model_field_by_field() -> None:
    ours, theirs = compile_go_schema((SOURCES / "acct.go").read_text(), "acct.go"), acct_reference()
    assert (ours.source_path, ours.source_package, ours.schema_id, ours.imports) == (
        theirs.source_path, theirs.source_package, theirs.schema_id, theirs.imports)
    for struct, expected in theirs.structs.items():
        assert [f.go_name for f in ours.structs[struct].fields] == [f.go_name for f in expected.fields]
        for mine, want in zip(ours.structs[struct].fields, expected.fields):
            assert mine == want, f"{struct}.{want.go_name}"
    assert ours == theirs


def test_acct_source_compiles_to_the_reference_document() -> None:
    ours = schema_document(compile_go_schema((SOURCES / "acct.go").read_text(), "acct.go"))
    theirs = msgpack.unpackb((SOURCES / "acct.z").read_bytes())
    assert {k: v for k, v in ours.items() if k != "Structs"} == {k: v for k, v in theirs.items() if k != "Structs"}
    assert sorted(ours["Structs"]) == sorted(theirs["Structs"])     # in Go's map order there
    for struct, raw in theirs["Structs"].items():
        assert {k: v for k, v in ours["Structs"][struct].items() if k != "Fields"} == {
            k: v for k, v in raw.items() if k != "Fields"}
        for mine, want in zip(ours["Structs"][struct]["Fields"], raw["Fields"], strict=True):
            if want.get("Skip"):    # the reference keeps a Skip field's category when it parsed its type
                want = {key: value for key, value in want.items() if key not in ("FieldCategory", "FieldPrimitive")}
            assert mine == want     # Account.Geo inlined (Kind 25) as the reference measures it


def test_cli_schema_writes_the_reference_acct_schema(tmp_path: Path) -> None:
    result = run_cli("schema", "acct.go", "-o", tmp_path / "acct.z", cwd=SOURCES)
    assert result.returncode == 0, result.stderr
    assert zebrapack.load(tmp_path / "acct.z").model == acct_reference()


@pytest.mark.filterwarnings("ignore:.*is deprecated in the schema:DeprecationWarning")  # Account.LegacyID
def test_acct_records_decode_and_encode_alike_with_the_compiled_schema() -> None:
    ours, theirs = zebrapack.schema_from_go(SOURCES / "acct.go"), zebrapack.load(SOURCES / "acct.z")
    for record in [record for record in MANIFEST if record["pkg"] == "acct"]:
        data = (TESTS / "golden2" / record["file"]).read_bytes()
        mine, want = ours.decode(data, record["type"]), theirs.decode(data, record["type"])
        assert repr(dataclasses.asdict(mine)) == repr(dataclasses.asdict(want)), record["id"]
        assert ours.encode(mine) == theirs.encode(want), record["id"]


def compiled(declarations: str, field_type: str, tag: str = "", imports: str = "") -> zebrapack.FieldDef:
    source = f'package p\n{imports}\n{declarations}\n\ntype T struct {{\n\tF {field_type} `zid:"0"{tag}`\n}}\n'
    return compile_go_schema(source).structs["T"].fields[0]


NAMED = "type ID uint64\ntype Name string\ntype Blob []byte\ntype Tags []string\ntype Grid [2][2]int8\n" \
        "type Scores map[string]float32\ntype Role uint8\ntype Level Role\ntype Ref *Tags\ntype When time.Time"


@pytest.mark.parametrize(("field_type", "expected"), [
    ("ID", TypeRef(Kind.UINT64)),
    ("Name", STRING),
    ("Blob", TypeRef(Kind.BYTES)),
    ("Tags", TypeRef(Kind.SLICE, elem=STRING)),
    ("Grid", TypeRef(Kind.ARRAY, length=2, elem=TypeRef(Kind.ARRAY, length=2, elem=TypeRef(Kind.INT8)))),
    ("Scores", TypeRef(Kind.MAP, key=STRING, elem=TypeRef(Kind.FLOAT32))),
    ("*ID", TypeRef(Kind.POINTER, elem=TypeRef(Kind.UINT64))),
    ("[]Role", TypeRef(Kind.SLICE, elem=U8)),           # an array of integers, as []uint8
    ("[]Level", TypeRef(Kind.SLICE, elem=U8)),          # a named type of a named type
    ("map[string]Tags", TypeRef(Kind.MAP, key=STRING, elem=TypeRef(Kind.SLICE, elem=STRING))),
    ("map[int32]*Name", TypeRef(Kind.MAP, key=TypeRef(Kind.INT32), elem=TypeRef(Kind.POINTER, elem=STRING))),
    ("Ref", TypeRef(Kind.POINTER, elem=TypeRef(Kind.SLICE, elem=STRING))),
    ("[3]Blob", TypeRef(Kind.ARRAY, length=3, elem=TypeRef(Kind.BYTES))),
    ("When", TypeRef(Kind.TIME)),
])
def test_named_type_of_every_kind_is_its_underlying_type(field_type: str, expected: TypeRef) -> None:
    field = compiled(NAMED, field_type, imports='import "time"')
    assert (field.type, field.type_str) == (expected, field_type)


def test_a_slice_of_a_named_byte_type_is_an_array_of_integers_and_an_array_of_one_bin() -> None:
    # the generator's slice writer writes every element: only []byte spelled so is bin;
    # its array writer tests the element kind: [N]B with B a byte is bin
    assert compiled("type B byte", "[]B").type == TypeRef(Kind.SLICE, elem=BYTE)
    assert compiled("type B byte", "[4]B").type == TypeRef(Kind.ARRAY, length=4, elem=BYTE)
    schema = zebrapack.Schema(compile_go_schema('package p\ntype B byte\ntype T struct {\n\tS []B `zid:"0"`\n'
                                                '\tA [2]B `zid:"1"`\n}\n'))
    assert schema.encode(schema.types.T(S=[1, 200], A=b"xy")) == bytes.fromhex("83ffa154009201ccc801c4027879")


def test_a_map_keyed_by_a_named_type_is_a_skip_field() -> None:
    field = compiled("type K string", "map[K]int")
    assert (field.skip, field.type, field.type_str) == (True, None, "")


def test_a_named_struct_type_of_a_struct_is_a_struct_of_its_own() -> None:
    model = compile_go_schema('package p\ntype Base struct {\n\tX int `zid:"0"`\n}\ntype Copy Base\n'
                              'type T struct {\n\tC Copy `zid:"0"`\n}\n')
    assert model.structs["Copy"].fields == model.structs["Base"].fields
    assert model.structs["T"].fields[0].type == TypeRef(Kind.STRUCT, name="Copy")


def test_shims_replace_a_named_or_foreign_type_by_a_primitive() -> None:
    source = ('package p\nimport "os"\n//msgp:shim ID as:[]byte using:to/from\n//msgp:shim *os.File as:string '
              'using:a/b\ntype ID string\ntype T struct {\n\tA ID `zid:"0"`\n\tB []*os.File `zid:"1"`\n}\n')
    a, b = compile_go_schema(source).structs["T"].fields
    assert (a.type, a.type_str) == (TypeRef(Kind.BYTES), "ID")
    assert b.type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.POINTER, elem=STRING))


MSGP = 'import "github.com/glycerine/zebrapack/msgp"'


@pytest.mark.parametrize(("field_type", "tag", "expected"), [
    ("msgp.Raw", "", TypeRef(Kind.RAW)),
    ("msgp.Number", "", TypeRef(Kind.NUMBER)),
    ("[]msgp.Number", "", TypeRef(Kind.SLICE, elem=TypeRef(Kind.NUMBER))),
    ("msgp.Extension", "", TypeRef(Kind.EXT)),
    ("msgp.RawExtension", ' msg:"x,extension"', TypeRef(Kind.EXT)),
    ("*msgp.RawExtension", ' msg:"x,extension"', TypeRef(Kind.POINTER, elem=TypeRef(Kind.EXT))),
])
def test_types_of_the_msgp_runtime(field_type: str, tag: str, expected: TypeRef) -> None:
    assert compiled("", field_type, tag, imports=MSGP).type == expected


def test_the_runtime_is_known_by_the_name_its_import_gives_it() -> None:
    field = compiled("", "rt.Raw", imports='import rt "github.com/glycerine/zebrapack/msgp"')
    assert field.type == TypeRef(Kind.RAW)
    model = compile_go_schema(f'package p\n{MSGP.replace("import ", "import rt ")}\ntype T struct {{\n'
                              '\tR rt.Raw `zid:"0"`\n}\n')
    assert zebrapack.load(schema_document(model)).model == model      # the loader knows the alias too


def test_a_schema_for_msgp_mode_needs_no_zids() -> None:
    source = 'package p\ntype T struct {\n\tC string `msg:"c"`\n\tA, B int\n\tD int `zid:"0"`\n}\n'
    fields = compile_go_schema(source, msgp=True).structs["T"].fields
    assert [(f.zid, f.go_name, f.tag_name) for f in fields] == [(-3, "C", "c"), (-3, "A", "A"), (-3, "B", "B"),
                                                                (0, "D", "D")]
    with pytest.raises(zebrapack.GoSourceError, match="missing zid tag.*zebrapack schema --msgp"):
        compile_go_schema(source)


INLINING = """package p
type Small struct {
	A, B int
	C    string `msg:",omitempty"`
}
type Four struct {
	A, B, C int
	D      *int
}
type Named struct {
	A UserID
	B Small
	C int
}
type Skips struct {
	A, B, C int
	D      int `msg:"-"`
	E      struct{}
}
type Shimmed struct {
	A, B Enum
}
type Self struct {
	Next *Self
}
type UserID uint64
type Enum int
//msgp:shim Enum as:string using:a/b
type T struct {
	S  Small
	F  *Four
	N  []Named
	K  map[string]Skips
	H  Shimmed
	P  *Self
}
"""


def test_the_structs_the_reference_inlines_are_marked_as_it_measures_them() -> None:
    # gen's Complexity as declared: a struct 1 more than its non-Skip fields, a name 1,
    # a shimmed name 2, a pointer or slice 1 more than its element; below 5 is inlined
    model = compile_go_schema(INLINING, msgp=True)
    marks = {f.go_name: f.type for f in model.structs["T"].fields}
    inner = {"S": marks["S"], "F": marks["F"].elem, "N": marks["N"].elem, "K": marks["K"].elem,
             "H": marks["H"], "P": marks["P"].elem}
    assert {name: ref.inlined for name, ref in inner.items()} == {
        "S": True,    # 1 + 3
        "F": False,   # 1 + 1 + 1 + 1 + 2
        "N": True,    # 1 + 3: UserID and Small count 1 each as declared
        "K": True,    # 1 + 3: the Skip fields left out
        "H": False,   # 1 + 2 + 2
        "P": True,    # 1 + 2, into T
    }
    assert not model.structs["Self"].fields[0].type.elem.inlined       # never into itself
    document = schema_document(model)["Structs"]["T"]["Fields"]
    assert document[0]["FieldFullType"] == {"Kind": 25, "Str": "Struct"} and document[0]["FieldCategory"] == 25
    assert document[1]["FieldFullType"]["Domain"] == {"Kind": 22, "Str": "Four"}
    assert zebrapack.load(document_bytes(model)).model == model


def document_bytes(model: zebrapack.SchemaDef) -> bytes:
    return msgpack.packb(schema_document(model))


def test_msgp_mode_writes_an_inlined_struct_of_a_compiled_schema_with_every_field() -> None:
    schema = zebrapack.Schema(compile_go_schema(INLINING, msgp=True))
    types = schema.types
    value = types.T(S=types.Small(A=1, B=2, C=""), F=types.Four(A=1, B=2, C=3, D=None))
    assert schema.decode(schema.encode(value, mode="msgp"), "T").S == value.S
    written = schema.encode(value, mode="msgp")
    assert bytes.fromhex("a143a0") in written      # S.C written though empty: S is inlined
    assert schema.encode(types.Small(A=1, B=2, C=""), mode="msgp").count(b"\xa1C") == 0


def test_go_source_of_the_acct_schema_declares_its_named_types_and_compiles_back() -> None:
    model = acct_reference()
    source = zebrapack.go_source(model)
    for line in ("type UserID uint64\n", "type Role uint8\n", "type Tags []string\n", "type Blob []byte\n",
                 "\tRoles    []Role ", "\tPrefs    *Tags "):
        assert line in source
    assert compile_go_schema(source, model.source_path) == model


def test_go_source_of_the_def_schema_compiles_back_for_msgp() -> None:
    model = zebrapack.load(SOURCES / "def.z").model
    source = zebrapack.go_source(model)
    assert "// Fields without a zid tag: a schema for -msgp only (zebrapack schema --msgp)." in source
    assert '\tOext  msgp.RawExtension                 `msg:"oext,extension"`' in source
    assert "\t// Obj struct{ ValueA string; ValueB []byte; } `msg:\"object\"`: zebrapack cannot represent" in source
    again = compile_go_schema(source, model.source_path, msgp=True)
    without_obj = dataclasses.replace(model.structs["TestType"], fields=tuple(
        f for f in model.structs["TestType"].fields if not f.unusable))
    assert dict(again.structs) == {**model.structs, "TestType": without_obj}


@pytest.mark.parametrize(("type_str", "declared"), [("[]MyByte", "type MyByte byte"), ("", "type ByteElem byte")])
def test_go_source_names_the_byte_type_of_a_slice_of_bytes_written_as_integers(type_str: str, declared: str) -> None:
    field = zebrapack.FieldDef(0, "S", "S", TypeRef(Kind.SLICE, elem=BYTE), type_str)
    model = zebrapack.SchemaDef(source_package="p", structs={"T": zebrapack.StructDef("T", (field,))})
    source = zebrapack.go_source(model)
    assert declared in source
    assert compile_go_schema(source).structs["T"].fields[0].type == TypeRef(Kind.SLICE, elem=BYTE)
