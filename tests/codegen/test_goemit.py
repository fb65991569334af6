"""Go source from a schema: gofmt-clean, accepted by the Go tool, and compiled back to the same schema."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Optional

import pytest
from support.vectors import VECTORS, vector_schema
from support.go_peer import _go_toolchain
from hypothesis import given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import Kind, SchemaError, TypeRef
from zebrapack.sources.from_go import MSGP_CONSTANTS, compile_go_schema
from zebrapack.golang.emitter import MSGP_IMPORT
from zebrapack.schema.model import BYTE_KINDS, SCALAR_KINDS, FieldDef, SchemaDef, StructDef

SCHEMAS = sorted(path.name for path in (VECTORS / "schemas").glob("*.z"))
GOLDEN_SCHEMAS = VECTORS.parent / "golden" / "schemas"
#: The golden schemas, and whether they hold unexported names (written and compiled with -unexported).
GOLDEN = {"my": False, "my2": True, "deep": False, "headerplus": False}
GOLDEN2_SCHEMAS = VECTORS.parent / "golden2" / "schemas"

#: A stand-in for the reference runtime's msgp package: what the emitted source names from it.
MSGP_STUB = """package msgp

type Decodable interface{ DecodeMsg() error }
type Encodable interface{ EncodeMsg() error }
type Marshaler interface{ MarshalMsg([]byte) ([]byte, error) }
type Unmarshaler interface{ UnmarshalMsg([]byte) ([]byte, error) }
type Sizer interface{ Msgsize() int }
type Extension interface{ ExtensionType() int8 }
type Raw []byte
type Number struct{ bits uint64 }
type RawExtension struct{ Type int8 }

""" + "".join(f"const {name} = {value}\n" for name, value in MSGP_CONSTANTS.items())


@dataclass
class Event:
    When: Optional[datetime] = field(default=None, metadata={"zid": 0})
    Payload: Optional[zebrapack.Ext] = field(default=None, metadata={"zid": 1})
    Gone: zebrapack.Retired = field(default=None, metadata={"zid": 2})


def schema_with(*fields: FieldDef, package: str = "p") -> SchemaDef:
    return SchemaDef(source_package=package, structs={"T": StructDef("T", fields)})


@pytest.mark.parametrize("name", SCHEMAS)
def test_go_source_compiles_back_to_the_same_schema(name: str) -> None:
    model = vector_schema(name).model
    again = compile_go_schema(zebrapack.go_source(model), model.source_path)
    assert (again.structs, again.source_package, again.schema_id) == (model.structs, model.source_package,
                                                                     model.schema_id)


STRUCT_NAMES = ("Alpha", "Beta", "Gamma")
MAP_KEYS = [TypeRef(kind) for kind in (Kind.STRING, Kind.INT, Kind.INT32, Kind.INT64)]


def field_types(by_value: tuple[str, ...]) -> st.SearchStrategy[TypeRef]:
    """Types of a field of a struct that may hold the ``by_value`` structs directly (the
    ones declared after it: no struct holds itself) and any struct through a reference."""
    leaves = st.sampled_from([TypeRef(kind) for kind in sorted(SCALAR_KINDS)] +
                             [TypeRef(Kind.IDENT_IFACE, name="Pet")])
    values = leaves | st.sampled_from([TypeRef(Kind.STRUCT, name=name) for name in by_value] or [TypeRef(Kind.BOOL)])

    def references(inner: st.SearchStrategy[TypeRef]) -> st.SearchStrategy[TypeRef]:
        return st.one_of(
            inner.map(lambda t: TypeRef(Kind.POINTER, elem=t)),
            inner.map(lambda t: TypeRef(Kind.BYTES) if t.kind in BYTE_KINDS else TypeRef(Kind.SLICE, elem=t)),
            st.builds(lambda k, v: TypeRef(Kind.MAP, key=k, elem=v), st.sampled_from(MAP_KEYS), inner))

    any_struct = st.sampled_from([TypeRef(Kind.STRUCT, name=name) for name in STRUCT_NAMES])
    arrays = st.builds(lambda n, t: TypeRef(Kind.ARRAY, length=n, elem=t), st.integers(1, 3), values)
    return values | arrays | references(st.recursive(leaves | any_struct, references, max_leaves=4))


@st.composite
def models(draw: st.DrawFn) -> SchemaDef:
    structs = {}
    for index, name in enumerate(STRUCT_NAMES):
        count = draw(st.integers(1, 5))  # the reference leaves a struct without fields out
        go_names = draw(st.lists(st.from_regex(r"[A-Z][a-z0-9_]{0,5}", fullmatch=True),
                                 min_size=count, max_size=count, unique=True))
        tags = draw(st.lists(st.from_regex(r"[a-z_][a-z0-9_]{0,5}", fullmatch=True), min_size=count,
                             max_size=count, unique=True))
        zids = draw(st.permutations(range(count)))
        fields = []
        for zid, go_name, tag in zip(zids, go_names, tags):
            type_ref = draw(st.none() | field_types(STRUCT_NAMES[index + 1:]))
            flags = draw(st.fixed_dictionaries({"omit_empty": st.booleans(), "deprecated": st.booleans(),
                                                "show_zero": st.booleans()}))
            fields.append(FieldDef(zid, go_name, draw(st.sampled_from([go_name, tag])), type_ref,
                                   type_ref.go if type_ref else "", skip=type_ref is None, **flags))
        if draw(st.booleans()):  # a Go-only field: msg:"-" without a zid
            fields.insert(draw(st.integers(0, len(fields))), FieldDef(-2, "Local", "-", None, skip=True))
        structs[name] = StructDef(name, tuple(fields))
    return SchemaDef(source_package="p", structs=structs, schema_id=draw(st.none() | st.integers(1, 2**53)))


@settings(max_examples=60, deadline=None)
@given(models())
def test_any_schema_written_as_go_compiles_back_the_same(model: SchemaDef) -> None:
    again = compile_go_schema(zebrapack.go_source(model))
    assert (dict(again.structs), again.schema_id) == (model.structs, model.schema_id)


def test_struct_without_fields_is_declared_but_no_field_may_hold_it() -> None:
    empty = StructDef("Empty", ())
    model = SchemaDef(source_package="p", structs={"T": StructDef("T", (FieldDef(0, "A", "A", TypeRef(Kind.INT)),)),
                                                   "Empty": empty})
    assert "type Empty struct {\n}\n" in zebrapack.go_source(model)
    assert list(compile_go_schema(zebrapack.go_source(model)).structs) == ["T"]  # as the reference leaves it out
    holder = FieldDef(1, "E", "E", TypeRef(Kind.SLICE, elem=TypeRef(Kind.STRUCT, name="Empty")))
    model = SchemaDef(source_package="p", structs={"T": StructDef("T", (holder,)), "Empty": empty})
    with pytest.raises(SchemaError, match="T.E: struct Empty has no fields"):
        zebrapack.go_source(model)


def test_array_length_spelled_with_a_msgp_constant_is_kept() -> None:
    arr = TypeRef(Kind.ARRAY, length=6, elem=TypeRef(Kind.ARRAY, length=2, elem=TypeRef(Kind.UINT8)))
    kept = FieldDef(0, "A", "A", arr, "[msgp.ExtensionPrefixSize][2]uint8")
    source = zebrapack.go_source(schema_with(kept))
    assert "\tA [msgp.ExtensionPrefixSize][2]uint8 `zid:\"0\"`\n" in source
    assert f'import "{MSGP_IMPORT}"' in source
    assert compile_go_schema(source).structs["T"].fields == (kept,)
    # A spelling that does not mean the same length is not used.
    wrong = FieldDef(0, "A", "A", arr, "[msgp.NilSize][2]uint8")
    assert "\tA [6][2]uint8 `zid:\"0\"`\n" in zebrapack.go_source(schema_with(wrong))


def test_go_source_declares_fields_with_their_tags() -> None:
    source = zebrapack.go_source(vector_schema("zp.z").model)
    assert '\tName   string    `zid:"0" msg:"name"`\n' in source
    assert '\tPhone  string    `zid:"2" msg:"phone,omitempty"`\n' in source
    assert '\tGone    struct{}          `zid:"0" msg:",deprecated"`\n' in source
    assert '\tUMap    struct{}          `zid:"17"`\n' in source
    assert '\tShown   int64             `zid:"14" msg:",showzero"`\n' in source
    assert "const zebraSchemaId64 int64 = 0x3b2f1a9c4d5e7\n" in source


def test_interface_types_are_declared_with_the_msgp_interfaces() -> None:
    source = zebrapack.go_source(vector_schema("iface.z").model)
    assert f'import "{MSGP_IMPORT}"\n' in source
    assert '"fmt"' not in source  # only imports the declarations use
    assert "type Familiar interface {\n\tmsgp.Decodable\n" in source
    assert '\tPet   Familiar   `zid:"1" msg:",iface"`\n' in source


@pytest.mark.parametrize(("field_def", "message"), [
    (FieldDef(0, "name", "name", TypeRef(Kind.STRING)), "T.name: field name is not exported"),
    (FieldDef(0, "A", "a,b", TypeRef(Kind.STRING)), "T.A: tag name 'a,b' cannot be written"),
])
def test_what_go_cannot_declare_is_refused(field_def: FieldDef, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        zebrapack.go_source(schema_with(field_def))


def test_package_name_must_be_a_go_identifier() -> None:
    model = schema_with(FieldDef(0, "A", "A", TypeRef(Kind.STRING)), package="")
    with pytest.raises(SchemaError, match="package name '' is not a Go identifier"):
        zebrapack.go_source(model)
    assert zebrapack.go_source(model, package="other").count("package other\n") == 1


@pytest.fixture(scope="module")
def go_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Go module with one package per vector schema and one from Python dataclasses."""
    root = tmp_path_factory.mktemp("gosource")
    (root / "go.mod").write_text("module example.com/schemas\n\ngo 1.21\n\nrequire github.com/glycerine/zebrapack v0.0.0\n"
                                 "\nreplace github.com/glycerine/zebrapack => ./msgpstub\n")
    (root / "msgpstub" / "msgp").mkdir(parents=True)
    (root / "msgpstub" / "go.mod").write_text("module github.com/glycerine/zebrapack\n\ngo 1.21\n")
    (root / "msgpstub" / "msgp" / "msgp.go").write_text(MSGP_STUB)
    models = [(vector_schema(name).model, False) for name in SCHEMAS]
    models.append((zebrapack.schema_from_dataclasses(Event, package="events").model, False))
    models += [(zebrapack.load(GOLDEN_SCHEMAS / f"{name}.z").model, unexported) for name, unexported in GOLDEN.items()]
    # golden set 2: named types (acct); -msgp fields without zids, a field zebrapack cannot represent (def,
    # whose package _generated is renamed: go ./... passes over folders starting with "_")
    models += [(dataclasses.replace(zebrapack.load(GOLDEN2_SCHEMAS / f"{name}.z").model, source_package=name), False)
               for name in ("acct", "def")]
    for model, unexported in models:
        (root / model.source_package).mkdir()
        (root / model.source_package / "schema.go").write_text(zebrapack.go_source(model, unexported=unexported))
    return root


def test_go_vet_accepts_the_go_source(go_module: Path) -> None:
    result = subprocess.run([_go_toolchain(), "vet", "./..."], cwd=go_module, capture_output=True, text=True,
                            env=offline_go_env(), timeout=300)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in go_module.iterdir() if (p / "schema.go").exists()) == sorted(
        ["events", "acct", "def", *GOLDEN, *{vector_schema(name).source_package for name in SCHEMAS}])


def test_gofmt_leaves_the_go_source_as_it_is(go_module: Path) -> None:
    gofmt = Path(_go_toolchain()).resolve().parent / "gofmt"
    result = subprocess.run([str(gofmt), "-l", "."], cwd=go_module, capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def offline_go_env() -> dict[str, str]:
    """A go command that never reaches the network: the stub stands in for the msgp module."""
    return dict(os.environ, GOPROXY="off", GOTOOLCHAIN="local")
