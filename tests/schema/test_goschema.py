"""The Go schema compiler: the reference's .z files from their Go sources, and its errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.vectors import VECTORS, vector_bytes, vector_schema

import zebrapack
from zebrapack import GoSourceError, Kind, SchemaError, TypeRef
from zebrapack.sources.from_go import compile_go_schema, read_go_schema
from zebrapack.schema.document import schema_document

SCHEMAS = sorted(path.stem for path in (VECTORS / "schemas").glob("*.go"))
#: What a reader takes from each field besides its type tree.
FIELD_KEYS = ("Zid", "FieldGoName", "FieldTagName", "FieldTypeStr", "FieldCategory", "FieldPrimitive",
              "OmitEmpty", "Skip", "Deprecated", "ShowZero")


def compile_vector(name: str) -> zebrapack.SchemaDef:
    return compile_go_schema((VECTORS / "schemas" / f"{name}.go").read_text(), "schema.go")


@pytest.mark.parametrize("name", SCHEMAS)
def test_vector_source_compiles_to_the_reference_model(name: str) -> None:
    assert compile_vector(name) == vector_schema(f"{name}.z").model


@pytest.mark.parametrize("name", SCHEMAS)
def test_vector_source_compiles_to_the_reference_fields(name: str) -> None:
    ours = schema_document(compile_vector(name))
    reference = msgpack.unpackb((VECTORS / "schemas" / f"{name}.z").read_bytes())
    assert {k: v for k, v in ours.items() if k != "Structs"} == {k: v for k, v in reference.items() if k != "Structs"}
    assert ours["Structs"].keys() == reference["Structs"].keys()
    for struct, raw in reference["Structs"].items():
        assert len(ours["Structs"][struct]["Fields"]) == len(raw["Fields"])
        for mine, theirs in zip(ours["Structs"][struct]["Fields"], raw["Fields"]):
            # structs the reference inlined (Kind 25, category 25) too: the compiler measures them as it does
            assert {k: mine.get(k) for k in FIELD_KEYS} == {k: theirs.get(k) for k in FIELD_KEYS}
            assert mine.get("FieldFullType") == theirs.get("FieldFullType")


def test_compiled_schema_survives_dump_and_load(tmp_path: Path) -> None:
    model = compile_vector("zp")
    zebrapack.Schema(model).dump(tmp_path / "zp.z")
    assert zebrapack.load(tmp_path / "zp.z").model == model
    assert zebrapack.load(tmp_path / "zp.z.json").model == model


def test_schema_from_go_decodes_and_encodes_like_the_reference_schema() -> None:
    schema = zebrapack.schema_from_go(VECTORS / "schemas" / "zp.go")
    case = {"file": "zp/Compound_single.zpk"}
    value = schema.decode(vector_bytes(case))
    assert schema.encode(value) == vector_bytes(case)
    assert schema.source_path == str(VECTORS / "schemas" / "zp.go")


def fields(source: str, struct: str = "T") -> dict[str, zebrapack.FieldDef]:
    model = compile_go_schema("package p\n\n" + source)
    return {f.go_name: f for f in model.structs[struct].fields}


def test_array_length_may_be_a_constant_of_the_file() -> None:
    got = fields('const (\n\tSlots = 4\n\tName = "x"\n)\n\ntype T struct {\n\tA [Slots]float32 `zid:"0"`\n'
                 '\tB [0x10]byte `zid:"1"`\n}\n')
    assert got["A"].type == TypeRef(Kind.ARRAY, length=4, elem=TypeRef(Kind.FLOAT32))
    assert got["B"].type == TypeRef(Kind.ARRAY, length=16, elem=TypeRef(Kind.BYTE))
    # The schema records the length as the reference does: Kind the value, Str the name as written.
    source = 'package p\nconst Slots = 4\ntype T struct {\n\tA [Slots][0x10]byte `zid:"0"`\n}\n'
    document = schema_document(compile_go_schema(source))
    domains = document["Structs"]["T"]["Fields"][0]["FieldFullType"]
    assert (domains["Domain"], domains["Range"]["Domain"]) == ({"Kind": 4, "Str": "Slots"}, {"Kind": 16, "Str": "16"})
    assert zebrapack.load(document).model == compile_go_schema(source)


@pytest.mark.parametrize(("declaration", "schema_id"), [
    ("const zebraSchemaId64 int64 = 0x1e70f00d00001", 0x1e70f00d00001),
    ("const zebraSchemaId64 = 1_000", 1000),
    ("const (\n\tother = 3\n\tzebraSchemaId64 = 0o17\n)", 15),
    ("const zebraSchemaId64 = 0", None),
    ("", None),
])
def test_schema_id_is_the_int64_literal_of_zebraSchemaId64(declaration: str, schema_id: int | None) -> None:
    model = compile_go_schema(f"package p\n{declaration}\ntype T struct {{\n\tA int `zid:\"0\"`\n}}\n")
    assert model.schema_id == schema_id


def test_unexported_fields_are_left_out_and_zidless_go_only_fields_are_skip_fields_without_zid() -> None:
    got = fields('type T struct {\n\tA int `zid:"0"`\n\tcache []byte\n\tlocal int `zid:"1"`\n'
                 '\tMu chan int `msg:"-"`\n\tTmp string `zid:"-" msg:"tmp"`\n\tB int `zid:"1"`\n'
                 '\tX, Y func() `msg:"-"`\n}\n')
    assert list(got) == ["A", "Mu", "Tmp", "B", "X", "Y"]
    assert [(f.zid, f.tag_name, f.skip, f.type) for f in got.values() if f.skip] == [
        (-2, "-", True, None), (-2, "tmp", True, None), (-2, "X", True, None), (-2, "Y", True, None)]


def test_unexported_mode_includes_unexported_structs_and_fields_under_their_names() -> None:
    source = ('package p\n\ntype inner struct {\n\tv int `zid:"0"`\n}\n\ntype T struct {\n\tin *inner `zid:"0"`\n'
              '\tName string `zid:"1"`\n}\n\ntype none struct {\n\tx int `msg:"-"`\n}\n')
    model = compile_go_schema(source, unexported=True)
    assert sorted(model.structs) == ["T", "inner", "none"]
    t = {f.go_name: f for f in model.structs["T"].fields}
    assert t["in"].type == TypeRef(Kind.POINTER, elem=TypeRef(Kind.STRUCT, name="inner"))
    assert (t["in"].tag_name, t["in"].type_str) == ("in", "*inner")
    assert model.structs["none"].fields[0].zid == -2
    # An unexported field is a field like any other then: it needs a zid (or msg:"-").
    with pytest.raises(GoSourceError, match=r"T.hidden: missing zid tag"):
        compile_go_schema(source.replace("\tName string", "\thidden int\n\tName string"), unexported=True)


def test_struct_without_fields_is_left_out_as_the_reference_does() -> None:
    model = compile_go_schema('package p\n\ntype Empty struct{}\n\ntype Quiet struct {\n\tsecret int\n}\n\n'
                              'type T struct {\n\tA int `zid:"0"`\n}\n')
    assert list(model.structs) == ["T"]


def test_msgp_ignore_directive_leaves_structs_out() -> None:
    source = ('package p\n\n//msgp:ignore Cache Other\n\ntype Cache struct {\n\tA int `zid:"0"`\n}\n\n'
              'type T struct {\n\tA int `zid:"0"`\n}\n\n/*msgp:ignore T*/\n')
    assert list(compile_go_schema(source).structs) == ["T"]
    with pytest.raises(GoSourceError, match=r"T.C: struct type Cache is left out of the schema by //msgp:ignore"):
        compile_go_schema(source.replace('\tA int `zid:"0"`\n}\n\n/*', '\tC *Cache `zid:"0"`\n}\n\n/*'))


@pytest.mark.parametrize("directive", ["tuple T", "shim T as:string using:a/b"])
def test_directive_changing_the_wire_of_a_struct_is_refused(directive: str) -> None:
    with pytest.raises(GoSourceError, match=rf"schema.go:2: T: //msgp:{directive.split()[0]} T .*cannot say"):
        compile_go_schema(f'package p\n//msgp:{directive}\ntype T struct {{\n\tA int `zid:"0"`\n}}\n')


def test_only_byte_spelled_slices_are_bin() -> None:
    got = fields('type T struct {\n\tA []byte `zid:"0"`\n\tB []uint8 `zid:"1"`\n\tC [4]uint8 `zid:"2"`\n'
                 '\tD [][]uint8 `zid:"3"`\n\tE [4]byte `zid:"4"`\n\tF map[string][]uint8 `zid:"5"`\n}\n')
    u8 = TypeRef(Kind.UINT8)
    assert got["A"].type == TypeRef(Kind.BYTES)
    assert got["B"].type == TypeRef(Kind.SLICE, elem=u8)
    assert got["C"].type == TypeRef(Kind.ARRAY, length=4, elem=u8)
    assert got["D"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.SLICE, elem=u8))
    assert got["E"].type == TypeRef(Kind.ARRAY, length=4, elem=TypeRef(Kind.BYTE))
    assert got["F"].type == TypeRef(Kind.MAP, key=TypeRef(Kind.STRING), elem=TypeRef(Kind.SLICE, elem=u8))
    assert [f.type_str for f in got.values()] == ["[]byte", "[]uint8", "[4]uint8", "[][]uint8", "[4]byte",
                                                  "map[string][]uint8"]


@pytest.mark.parametrize(("imports", "length", "size"), [
    ('import "github.com/glycerine/zebrapack/msgp"', "msgp.ExtensionPrefixSize", 6),
    ('import "github.com/glycerine/zebrapack/msgp"', "msgp.Complex128Size", 18),
    ('import zp "github.com/glycerine/zebrapack/msgp"', "zp.TimeSize", 15),
    ('import "github.com/tinylib/msgp/msgp"', "msgp.Int32Size", 5),
])
def test_array_length_may_be_a_constant_of_the_msgp_runtime(imports: str, length: str, size: int) -> None:
    got = fields(f'{imports}\n\ntype T struct {{\n\tA [{length}]float64 `zid:"0"`\n}}\n')
    assert got["A"].type == TypeRef(Kind.ARRAY, length=size, elem=TypeRef(Kind.FLOAT64))
    assert got["A"].type_str == f"[{length}]float64"


def test_msg_dash_with_a_zid_is_a_skip_field() -> None:
    got = fields('type T struct {\n\tA int `zid:"0"`\n\tC func() `zid:"1" msg:"-"`\n}\n')
    assert (got["C"].zid, got["C"].skip, got["C"].type, got["C"].tag_name) == (1, True, None, "-")


def test_tags_set_names_and_flags() -> None:
    got = fields('type T struct {\n\tA int `zid:"0" msg:"a,omitempty,showzero,iface"`\n'
                 '\tB string `zid:"1" deprecated:"true"`\n\tC struct{} `zid:"2" msg:",deprecated"`\n'
                 '\tD int "zid:\\"3\\" msg:\\"d\\""\n}\n')
    assert (got["A"].tag_name, got["A"].omit_empty, got["A"].show_zero, got["A"].deprecated) == ("a", True, True, False)
    assert (got["B"].tag_name, got["B"].deprecated, got["B"].skip) == ("B", True, False)
    assert (got["C"].skip, got["C"].deprecated, got["C"].type) == (True, True, None)
    assert (got["D"].zid, got["D"].tag_name) == (3, "d")


def test_embedded_field_is_named_after_its_type() -> None:
    got = fields('type Inner struct {\n\tX int `zid:"0"`\n}\n\ntype T struct {\n\tInner `zid:"0"`\n'
                 '\t*time.Time `zid:"1"`\n}\n')
    assert got["Inner"].type == TypeRef(Kind.STRUCT, name="Inner")
    assert got["Time"].type == TypeRef(Kind.POINTER, elem=TypeRef(Kind.TIME))


def test_functions_methods_variables_and_comments_are_passed_over() -> None:
    source = '''// Package p has { unbalanced braces } in a comment and `quotes".
package p

import (
\t"fmt"
\tmsgp "github.com/glycerine/zebrapack/msgp"
)

var table = map[string]int{"}": 1, "{": 2}

/* type Hidden struct { X int } */
func (t *T) String() string {
\tif t == nil { return "}" }
\treturn fmt.Sprintf("%d", '}')
}

type T struct {
\tA msgp.Extension `zid:"0"`
}

func helper[K comparable](k K) {}
'''
    model = compile_go_schema(source)
    assert list(model.structs) == ["T"]
    assert model.imports == ('"fmt"', 'msgp "github.com/glycerine/zebrapack/msgp"')
    assert model.structs["T"].fields[0].type == TypeRef(Kind.EXT)


def test_map_with_a_key_the_reference_cannot_serialize_is_skip() -> None:
    got = fields('type T struct {\n\tA map[int32]bool `zid:"0"`\n\tB map[uint32]bool `zid:"1"`\n'
                 '\tC []map[float64]string `zid:"2"`\n}\n')
    assert got["A"].type == TypeRef(Kind.MAP, key=TypeRef(Kind.INT32), elem=TypeRef(Kind.BOOL))
    assert (got["B"].skip, got["C"].skip) == (True, True)


def test_interface_types_of_the_file_type_interface_fields() -> None:
    got = fields('type Pet interface {\n\tName() string\n}\n\ntype T struct {\n\tP Pet `zid:"0"`\n'
                 '\tPs []Pet `zid:"1"`\n\tA any `zid:"2"`\n\tI interface{} `zid:"3"`\n}\n')
    assert got["P"].type == TypeRef(Kind.IDENT_IFACE, name="Pet")
    assert got["Ps"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.IDENT_IFACE, name="Pet"))
    assert got["A"].type == got["I"].type == TypeRef(Kind.INTF)


def test_struct_may_refer_to_itself_and_to_later_structs() -> None:
    got = fields('type T struct {\n\tKids []T `zid:"0"`\n\tNext *U `zid:"1"`\n}\n\n'
                 'type U struct {\n\tBack *T `zid:"0"`\n}\n')
    assert got["Kids"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.STRUCT, name="T"))
    assert got["Next"].type == TypeRef(Kind.POINTER, elem=TypeRef(Kind.STRUCT, name="U"))


ERRORS = [
    # (body after "package p\n", line, struct.field, what the message says)
    ('type T struct {\n\tA int `zid:"0"`\n\tB int\n}', 4, "T.B", "missing zid tag"),
    ('type T struct {\n\tA int `zid:"0"`\n\tB int\n}', 4, "T.B", "zebrapack schema --msgp"),
    ('type T struct {\n\tA int `zid:"-" msg:"a"`\n\tB int `zid:"0" msg:"a"`\n\tC int `zid:"1" msg:"a"`\n}', 5,
     "T.C", "tag name 'a' used twice"),
    ('type T struct {\n\tA int `zid:"0"`\n\tB int `zid:"0"`\n}', 4, "T.B", "zid 0 used twice (also by A)"),
    ('type T struct {\n\tA int `zid:"0"`\n\tB int `zid:"2"`\n}', 4, "T.B", "without gaps: zid 1 unused"),
    ('type T struct {\n\tA int `zid:"1"`\n}', 3, "T.A", "without gaps: zid 0 unused"),
    ('type T struct {\n\tA int `zid:"x"`\n}', 3, "T.A", "bad zid tag 'x'"),
    ('type T struct {\n\tA int `zid:"70000"`\n}', 3, "T.A", "zid 70000 outside 0..65535"),
    ('type T struct {\n\tA chan int `zid:"0"`\n}', 3, "T.A", "chan type chan int cannot be serialized"),
    ('type T struct {\n\tA rune `zid:"0"`\n}', 3, "T.A", "unsupported type rune"),
    ('type T struct {\n\tA big.Int `zid:"0"`\n}', 3, "T.A", "type big.Int of another package"),
    ('type T struct {\n\tA time.Duration `zid:"0"`\n}', 3, "T.A", "calling its MarshalMsg"),
    ('import "github.com/glycerine/zebrapack/msgp"\ntype T struct {\n\tA msgp.RawExtension `zid:"0"`\n}', 4, "T.A",
     'msgp.RawExtension without msg:"name,extension"'),
    ('import "github.com/glycerine/zebrapack/msgp"\ntype T struct {\n\tA msgp.RawExtension `zid:"0" '
     'msg:"a,extension,omitempty"`\n}', 4, "T.A", "only when its msg tag is exactly a name and extension"),
    ('type T struct {\n\tA []int `zid:"0" msg:"a,extension"`\n}', 3, "T.A", "couldn't cast it to an extension"),
    ('type F func()\n\ntype T struct {\n\tA F `zid:"0"`\n}', 5, "T.A", "type F is a func type"),
    ('type L []L\n\ntype T struct {\n\tA L `zid:"0"`\n}', 5, "T.A", "type L is defined by itself (L -> L)"),
    ('type M map[uint16]bool\n\ntype T struct {\n\tA M `zid:"0"`\n}', 5, "T.A",
     "the generator leaves the type out"),
    ('type id uint64\n\ntype T struct {\n\tA id `zid:"0"`\n}', 5, "T.A", "type id is unexported"),
    ('//msgp:shim ID as:[]byte\ntype ID string\n\ntype T struct {\n\tA ID `zid:"0"`\n}', 2, None,
     "shim directive should have 3 arguments; found 2"),
    ('//msgp:shim ID as:Big using:a/b\ntype ID string\n\ntype T struct {\n\tA ID `zid:"0"`\n}', 2, None,
     "the reference shims to a primitive type"),
    ('type T struct {\n\tA struct{ X int } `zid:"0"`\n}', 3, "T.A", "anonymous struct type"),
    ('type T struct {\n\tA interface{ M() } `zid:"0"`\n}', 3, "T.A", "declare it as a named interface"),
    ('type inner struct{}\n\ntype T struct {\n\tA inner `zid:"0"`\n}', 5, "T.A", "inner is unexported"),
    ('type inner struct{}\n\ntype T struct {\n\tA inner `zid:"0"`\n}', 5, "T.A", "zebrapack schema --unexported"),
    ('type E struct{}\n\ntype T struct {\n\tA *E `zid:"0"`\n}', 5, "T.A", "struct type E has no fields"),
    ('import "github.com/glycerine/zebrapack/msgp"\ntype T struct {\n\tA [msgp.Nope]int `zid:"0"`\n}', 4, "T.A",
     "the msgp runtime has no such integer constant"),
    ('import "math"\ntype T struct {\n\tA [math.MaxInt8]int `zid:"0"`\n}', 4, "T.A", "the constants of math are unknown"),
    ('type T struct {\n\tA [msgp.NilSize]int `zid:"0"`\n}', 3, "T.A", "no import named msgp"),
    ('type T struct {\n\tA [n]int `zid:"0"`\n}', 3, "T.A", "array length n: not an integer literal"),
    ('type T struct {\n\tA, B int `zid:"0"`\n}', 3, "T.A", "give each its own line and zid"),
    ('type T struct {\n\tA int `zid:"0" msg:"x"`\n\tB int `zid:"1" msg:"x"`\n}', 4, "T.B", "tag name 'x' used twice"),
    ('type T struct {\n\tA int `zid:"0" msg:"x\\q"`\n}', 3, "T.A", "malformed struct tag"),
    ('\ntype T struct {\n\tU U `zid:"0"`\n}\n\ntype U struct {\n\tT T `zid:"0"`\n}', 8, "U.T", "contains itself"),
    ('type T struct {\n\tMe T `zid:"0"`\n}', 3, "T.Me", "contains itself by value (T -> T)"),
    ('type T struct {\n\tA int `zid:"0"`\n}\ntype T struct{}', 5, None, "type T declared twice"),
    ('const zebraSchemaId64 = int64(5)\ntype T struct{}', 2, None, "zebraSchemaId64 must be an int64 literal"),
    ('type T struct {\n\tA int `zid:"0"\n}', 3, None, "syntax error: unterminated"),
    ('type T struct {\n\tA map[string] `zid:"0"`\n}', 3, None, "syntax error: expected a type"),
    ('type T struct {\n\tA int `zid:"0"`\n\n', 6, None, "syntax error: expected '}', found 'end of file'"),
]


@pytest.mark.parametrize(("body", "line", "where", "message"), ERRORS, ids=[e[3] for e in ERRORS])
def test_error_names_file_line_and_field(body: str, line: int, where: str | None, message: str) -> None:
    with pytest.raises(GoSourceError) as caught:
        compile_go_schema("package p\n" + body + "\n", "bad.go")
    error = caught.value
    assert (error.path, error.line) == ("bad.go", line)
    assert str(error).startswith(f"bad.go:{line}: {where}: " if where else f"bad.go:{line}: ")
    assert message in str(error)
    if where is not None:
        assert f"{error.struct}.{error.field}" == where


def test_missing_go_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="absent.go"):
        read_go_schema(tmp_path / "absent.go")


def test_go_only_fields_without_zid_never_conflict_in_compatibility_checks() -> None:
    old = compile_go_schema('package p\ntype T struct {\n\tA int `zid:"0"`\n\tx func() `msg:"-"`\n'
                            '\ty chan int `msg:"-"`\n}\n', unexported=True)
    new = compile_go_schema('package p\ntype T struct {\n\tA int `zid:"0"`\n\tz []chan int `msg:"-"`\n'
                            '\tB string `zid:"1"`\n}\n', unexported=True)
    report = zebrapack.check_compatible(old, new)
    assert report.compatible, report
    assert [(f.kind, f.field) for f in report.findings] == [("new-field", "B")]
