"""``zebrapack schema`` on the reference's own Go sources (tests/golden/schemas): each compiles,
without Go, to the schema the reference wrote (``NAME.z``), and ``zebrapack go`` writes it back
as Go that compiles to the same schema again."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.cli import call_main, error_line, run_cli
from support.vectors import TESTS

import zebrapack
from zebrapack import GoSourceError, Kind, TypeRef
from zebrapack.sources.from_go import compile_go_schema
from zebrapack.schema.document import schema_document

GOLDEN = TESTS / "golden"
SOURCES = GOLDEN / "schemas"
#: The schemas and whether the reference compiled them with -unexported.
NAMES = {"my": False, "my2": True, "deep": False, "headerplus": False}
MANIFEST: list[dict[str, Any]] = json.loads((GOLDEN / "manifest.json").read_text())["records"]
#: What a reader takes from each field besides its type tree.
FIELD_KEYS = ("Zid", "FieldGoName", "FieldTagName", "FieldTypeStr", "FieldPrimitive",
              "OmitEmpty", "Skip", "Deprecated", "ShowZero")


def compiled(name: str) -> zebrapack.SchemaDef:
    """The golden source compiled as the reference was run: from its folder, by file name."""
    return compile_go_schema((SOURCES / f"{name}.go").read_text(), f"{name}.go", unexported=NAMES[name])


def reference(name: str) -> zebrapack.SchemaDef:
    return zebrapack.load(SOURCES / f"{name}.z").model


@pytest.mark.parametrize("name", NAMES)
def test_golden_source_compiles_to_the_reference_model_field_by_field(name: str) -> None:
    ours, theirs = compiled(name), reference(name)
    assert (ours.source_path, ours.source_package, ours.schema_id, ours.imports) == (
        theirs.source_path, theirs.source_package, theirs.schema_id, theirs.imports)
    assert sorted(ours.structs) == sorted(theirs.structs)
    for struct, expected in theirs.structs.items():
        assert [f.go_name for f in ours.structs[struct].fields] == [f.go_name for f in expected.fields]
        for mine, want in zip(ours.structs[struct].fields, expected.fields):
            assert mine == want, f"{struct}.{want.go_name}"
    assert ours == theirs


@pytest.mark.parametrize("name", NAMES)
def test_golden_source_compiles_to_the_reference_documents(name: str) -> None:
    ours = schema_document(compiled(name))
    theirs = msgpack.unpackb((SOURCES / f"{name}.z").read_bytes())
    assert {k: v for k, v in ours.items() if k != "Structs"} == {k: v for k, v in theirs.items() if k != "Structs"}
    for struct, raw in theirs["Structs"].items():
        for mine, want in zip(ours["Structs"][struct]["Fields"], raw["Fields"], strict=True):
            assert {k: mine.get(k) for k in FIELD_KEYS} == {k: want.get(k) for k in FIELD_KEYS}
            if not want.get("Skip"):  # the reference keeps a Skip field's category when it parsed the type
                assert mine.get("FieldCategory") == want.get("FieldCategory")
            # structs the reference inlines (Kind 25) too: the compiler measures them as it does
            assert mine.get("FieldFullType") == want.get("FieldFullType")


def test_uint8_containers_stay_arrays_of_integers() -> None:
    fields = {f.go_name: f for f in compiled("deep").structs["Deep"].fields}
    u8, byte = TypeRef(Kind.UINT8), TypeRef(Kind.BYTE)
    assert fields["U8s"].type == TypeRef(Kind.SLICE, elem=u8)
    assert fields["U8Arr"].type == TypeRef(Kind.ARRAY, length=4, elem=u8)
    assert fields["Grid"].type == TypeRef(Kind.ARRAY, length=3, elem=TypeRef(Kind.ARRAY, length=2, elem=u8))
    assert fields["U8Slab"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.SLICE, elem=u8))
    assert fields["Blobs"].type == TypeRef(Kind.SLICE, elem=TypeRef(Kind.BYTES))
    assert fields["ByteGrd"].type == TypeRef(Kind.ARRAY, length=2, elem=TypeRef(Kind.ARRAY, length=3, elem=byte))


def test_msgp_constant_array_length_keeps_its_spelling() -> None:
    arr = {f.go_name: f for f in compiled("my").structs["S2"].fields}["Arr"]
    assert (arr.type, arr.type_str) == (TypeRef(Kind.ARRAY, length=6, elem=TypeRef(Kind.FLOAT64)),
                                        "[msgp.ExtensionPrefixSize]float64")
    document = next(f for f in schema_document(compiled("my"))["Structs"]["S2"]["Fields"] if f["FieldGoName"] == "Arr")
    assert document["FieldFullType"]["Domain"] == {"Kind": 6, "Str": "msgp.ExtensionPrefixSize"}


def test_zidless_msg_dash_field_is_a_skip_field_with_zid_minus_2() -> None:
    et = compiled("my2").structs["Tr"].fields[1]
    assert (et.zid, et.go_name, et.tag_name, et.skip, et.type) == (-2, "et", "-", True, None)


def test_unsupported_map_key_is_a_skip_field_and_empty_struct_is_left_out() -> None:
    odd = {f.go_name: f for f in compiled("deep").structs["Deep"].fields}["Odd"]
    assert (odd.zid, odd.skip, odd.type, odd.type_str) == (19, True, None, "")
    assert "S" not in compiled("my").structs  # type S struct{}


def test_my2_needs_unexported() -> None:
    with pytest.raises(GoSourceError, match=r"my2.go:\d+: Tr.Setm: struct type inn is unexported.*--unexported"):
        compile_go_schema((SOURCES / "my2.go").read_text(), "my2.go")


@pytest.mark.filterwarnings("ignore:.*is deprecated in the schema:DeprecationWarning")  # S2.P in my
@pytest.mark.parametrize("name", NAMES)
def test_golden_records_decode_alike_with_the_compiled_schema(name: str) -> None:
    ours = zebrapack.schema_from_go(SOURCES / f"{name}.go", unexported=NAMES[name])
    theirs = zebrapack.load(SOURCES / f"{name}.z")
    records = [record for record in MANIFEST if record["pkg"] == name]
    assert records
    for record in records:
        data = (GOLDEN / record["file"]).read_bytes()
        mine, want = ours.decode(data, record["type"]), theirs.decode(data, record["type"])
        # repr: NaNs compare unequal; the bytes below pin their payloads.
        assert repr(dataclasses.asdict(mine)) == repr(dataclasses.asdict(want)), record["id"]
        assert ours.encode(mine) == theirs.encode(want), record["id"]


@pytest.mark.parametrize("name", NAMES)
def test_cli_schema_writes_the_reference_schema(name: str, tmp_path: Path) -> None:
    options = ["--unexported"] if NAMES[name] else []
    result = run_cli("schema", *options, f"{name}.go", "-o", tmp_path / f"{name}.z", cwd=SOURCES)
    assert result.returncode == 0, result.stderr
    assert zebrapack.load(tmp_path / f"{name}.z").model == reference(name)
    assert zebrapack.load(tmp_path / f"{name}.z.json").model == reference(name)


def test_cli_schema_without_unexported_says_how(tmp_path: Path) -> None:
    line = error_line(run_cli("schema", SOURCES / "my2.go", "-o", tmp_path / "my2.z"))
    assert "struct type inn is unexported" in line and "--unexported" in line


@pytest.mark.parametrize("name", NAMES)
def test_go_source_of_golden_schema_compiles_back_to_it(name: str) -> None:
    model = reference(name)
    source = zebrapack.go_source(model, unexported=NAMES[name])
    assert compile_go_schema(source, model.source_path, unexported=NAMES[name]).structs == model.structs


def test_go_source_keeps_uint8_spellings_constants_and_zidless_skip_fields() -> None:
    deep = zebrapack.go_source(reference("deep"))
    for line in ("\tU8s     []uint8 ", "\tU8Arr   [4]uint8 ", "\tGrid    [3][2]uint8 ", "\tU8Slab  [][]uint8 ",
                 "\tBlobs   [][]byte ", "\tFixed   [4]byte "):
        assert line in deep
    my = zebrapack.go_source(reference("my"))
    assert "\tArr    [msgp.ExtensionPrefixSize]float64 `zid:\"6\" msg:\"arr\"`\n" in my
    assert 'import (\n\t"time"\n\n\t"github.com/glycerine/zebrapack/msgp"\n)\n' in my
    assert '\tet     struct{}        `msg:"-"`\n' in zebrapack.go_source(reference("my2"), unexported=True)


def test_go_source_of_unexported_names_needs_unexported(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(zebrapack.SchemaError, match=r"is not exported in Go.*unexported=True"):
        zebrapack.go_source(reference("my2"))
    status, out, _ = call_main(monkeypatch, "go", "--unexported", SOURCES / "my2.z")
    assert status == 0
    assert compile_go_schema(out.decode(), unexported=True).structs == reference("my2").structs
