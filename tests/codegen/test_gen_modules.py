"""``zebrapack gen``: generated modules import, type-check, round-trip and are stable."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import subprocess
import sys
import types
import typing
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import SCHEMAS, cli_env, error_line, run_cli
from support.vectors import MANIFEST, case_id, vector_bytes, vector_schema
from support.golden import GOLDEN2_RECORDS, encode_like, golden_bytes
from support.expected_values import expected_value, same

import zebrapack
from zebrapack import SchemaError
from zebrapack.codegen import generate_module
from zebrapack.schema.model import python_name

SCHEMA_NAMES = sorted(path.name.removesuffix(".z") for path in SCHEMAS.glob("*.z"))
#: Golden set 2's schemas: named types (acct); -msgp, Raw, Number, a field zebrapack cannot represent (def).
GOLDEN2_NAMES = ("acct", "def")
GOLDEN2_SCHEMAS = SCHEMAS.parent.parent / "golden2" / "schemas"


def _ident(name: str) -> dict[str, Any]:
    return {"Kind": 22, "Str": name}


def _field(zid: int, name: str, full_type: dict[str, Any], **flags: Any) -> dict[str, Any]:
    return {"Zid": zid, "FieldGoName": name, "FieldTagName": name, "FieldCategory": full_type["Kind"],
            "FieldFullType": full_type, **flags}


# Names that would collide in a naive module: fields named as the struct they
# hold (Go's `Address Address`) or as an import, a struct named after a Python
# keyword, arrays of structs and times, extensions and interface types.
CLASH_SCHEMA = {"SourcePackage": "clash", "Structs": {
    "Address": {"StructName": "Address", "Fields": [_field(0, "Street", {"Kind": 2, "Str": "string"})]},
    "Person": {"StructName": "Person", "Fields": [
        _field(0, "Address", _ident("Address")),
        _field(1, "Home", {"Kind": 28, "Str": "Pointer", "Domain": _ident("Address")}),
        _field(2, "Other", _ident("Address")),
        _field(3, "Any", {"Kind": 19, "Str": "Intf"}),
        _field(4, "Pair", {"Kind": 27, "Str": "Array", "Domain": {"Kind": 2, "Str": "2"}, "Range": _ident("Address")}),
        _field(5, "Moments", {"Kind": 27, "Str": "Array", "Domain": {"Kind": 2, "Str": "2"},
                              "Range": {"Kind": 20, "Str": "Time"}}),
        _field(6, "Ext", {"Kind": 21, "Str": "Ext"}),
        _field(7, "Pet", {"Kind": 29, "Str": "Animal"}),
        _field(8, "Gone", {"Kind": 2, "Str": "string"}, Skip=True, Deprecated=True),
    ]},
    "None": {"StructName": "None", "Fields": [
        _field(0, "Person", {"Kind": 28, "Str": "Pointer", "Domain": _ident("Person")})]},
}}

USAGE_OK = '''\
from datetime import datetime, timezone

import zp_models
from zp_models import A, Compound, Inner, Tree

a = A(Name="Atlanta", Bday=datetime(1990, 12, 20, tzinfo=timezone.utc), Sibs=3)
data: bytes = zp_models.schema.encode(a)
c = Compound(Ints=[1], Nested=Inner(X=1), PInners=[None, Inner()], MInner={"k": None}, Anys=[1, "x"])
t = Tree(Kids=[Tree(Label="leaf")], Up=None)
weights: list[float] = [kid.Weight for kid in t.Kids]
'''

# Each line is a mistake mypy must catch: the annotations are precise.
USAGE_BAD = '''\
from zp_models import A, Compound, Inner
A(Sibs="3")
Compound(Ints=["x"])
Compound(Ptr=A())
label: str = Inner().X
Compound(SMap={1: 2})
'''
USAGE_BAD_ERRORS = {(2, "arg-type"), (3, "list-item"), (4, "arg-type"), (5, "assignment"), (6, "dict-item")}


def _import(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def generated_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("generated")
    for name in SCHEMA_NAMES:
        text = generate_module(zebrapack.load(SCHEMAS / f"{name}.z").model)
        (directory / f"{name}_models.py").write_text(text)
    (directory / "clash_models.py").write_text(generate_module(zebrapack.load(CLASH_SCHEMA).model))
    for name in GOLDEN2_NAMES:
        (directory / f"{name}_models.py").write_text(generate_module(zebrapack.load(GOLDEN2_SCHEMAS / f"{name}.z").model))
    (directory / "usage_ok.py").write_text(USAGE_OK)
    (directory / "usage_bad.py").write_text(USAGE_BAD)
    return directory


@pytest.fixture(scope="session")
def modules(generated_dir: Path) -> Iterator[dict[str, types.ModuleType]]:
    names = [*SCHEMA_NAMES, "clash", *GOLDEN2_NAMES]
    yield {name: _import(generated_dir / f"{name}_models.py") for name in names}
    for name in names:
        sys.modules.pop(f"{name}_models", None)


@pytest.fixture(scope="session")
def mypy_errors(generated_dir: Path) -> list[str]:
    """mypy --strict over every generated module and the usage files, run once."""
    files = sorted(path.name for path in generated_dir.glob("*.py"))
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", ".mypy_cache", *files],
                            cwd=generated_dir, capture_output=True, text=True, env=cli_env(), timeout=300, check=False)
    assert "error: " in result.stdout or result.returncode == 0, result.stdout + result.stderr
    return [line for line in result.stdout.splitlines() if ": error: " in line]


def test_generated_modules_pass_mypy_strict(mypy_errors: list[str]) -> None:
    assert [line for line in mypy_errors if not line.startswith("usage_bad.py:")] == []


def test_mypy_catches_wrong_field_types_through_the_generated_annotations(mypy_errors: list[str]) -> None:
    found = set()
    for line in mypy_errors:
        match = re.match(r"usage_bad\.py:(\d+): error: .*\[([a-z-]+)\]$", line)
        if match:
            found.add((int(match.group(1)), match.group(2)))
    assert found == USAGE_BAD_ERRORS


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_generated_module_starts_with_the_generated_code_line(generated_dir: Path, name: str) -> None:
    first = (generated_dir / f"{name}_models.py").read_text().splitlines()[0]
    assert first == "# Code generated by zebrapack gen. DO NOT EDIT."


@pytest.mark.parametrize("name", [*SCHEMA_NAMES, "clash", *GOLDEN2_NAMES])
def test_module_schema_is_bound_to_the_module_classes(modules: dict[str, types.ModuleType], name: str) -> None:
    module = modules[name]
    assert isinstance(module.schema, zebrapack.Schema)
    for struct in module.schema.structs:
        cls = getattr(module, python_name(struct))
        assert module.schema.types[struct] is cls
        assert cls.__module__ == module.__name__ and (cls.__doc__ or "").startswith(f"Go struct {struct}.")
        assert "__slots__" in vars(cls)


def test_generated_records_holding_no_containers_are_not_tracked_by_the_collector(
        modules: dict[str, types.ModuleType]) -> None:
    import gc
    module = modules["zp"]
    assert issubclass(module.A, zebrapack.Record)
    record = module.schema.decode(module.schema.encode(module.A(Name="Bo", Sibs=200)))
    assert not gc.is_tracked(record)
    record.Name = ["a list"]      # type: ignore[assignment]  # the base re-tracks before storing
    assert gc.is_tracked(record)


@pytest.mark.parametrize("case", MANIFEST, ids=case_id)
def test_generated_module_round_trips_every_vector(modules: dict[str, types.ModuleType],
                                                   case: dict[str, Any]) -> None:
    schema = modules[case["schema"].removesuffix(".z")].schema
    records = schema.decode_all(vector_bytes(case), type=case["type"])
    assert all(type(record) is schema.types[case["type"]] for record in records)
    expected = expected_value(case, schema)
    same(records, expected if "count" in case else [expected])
    plain = vector_schema(case["schema"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        options = {"structnames": case["structnames_on_wire"], "mode": case["mode"]}
        assert [schema.encode(record, **options) for record in records] == \
            [plain.encode(record, **options) for record in plain.decode_all(vector_bytes(case), type=case["type"])]


def _shape(hint: Any) -> Any:
    """A comparable form of an annotation: unions as sets, classes by name."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return "union", frozenset(_shape(arg) for arg in typing.get_args(hint))
    if origin is not None:
        return origin, tuple(_shape(arg) for arg in typing.get_args(hint))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return "class", hint.__name__
    return hint


@pytest.mark.parametrize("name", [*SCHEMA_NAMES, "clash", *GOLDEN2_NAMES])
def test_generated_classes_agree_with_the_runtime_classes(modules: dict[str, types.ModuleType], name: str) -> None:
    module = modules[name]
    runtime = zebrapack.Schema(module.schema.model).types
    for struct, cls in module.schema.types.items():
        hints = typing.get_type_hints(cls)
        expected = runtime[struct].__annotations__
        assert list(hints) == list(expected)
        assert {attr: _shape(hint) for attr, hint in hints.items()} == \
            {attr: _shape(hint) for attr, hint in expected.items()}
        same(dataclasses.asdict(cls()), dataclasses.asdict(runtime[struct]()))


@pytest.mark.parametrize("record", GOLDEN2_RECORDS, ids=[record["id"] for record in GOLDEN2_RECORDS])
def test_generated_module_round_trips_every_golden2_record(modules: dict[str, types.ModuleType],
                                                           record: dict[str, Any]) -> None:
    schema = modules[record["pkg"]].schema
    value = schema.decode(golden_bytes(record), type=record["type"], strict=True)
    assert type(value) is schema.types[record["type"]]
    if record["byte_exact"]:
        assert encode_like(schema, value, record) == golden_bytes(record)


def test_generated_field_zebrapack_cannot_represent_is_always_none(modules: dict[str, types.ModuleType]) -> None:
    module = modules["def"]
    assert typing.get_type_hints(module.TestType)["Obj"] is type(None)
    assert module.TestType().Obj is None
    assert "unusable, always None" in (module.__file__ and Path(module.__file__).read_text() or "")
    with pytest.raises(zebrapack.EncodeError, match=r"TestType\.Obj: .*cannot be represented by zebrapack"):
        module.schema.encode(module.TestType(Obj=1), mode="msgp")


def test_clashing_names_still_type_and_round_trip(modules: dict[str, types.ModuleType]) -> None:
    clash = modules["clash"]
    person = clash.Person(Address=clash.Address(Street="a"), Other=clash.Address(Street="o"), Any=[2.0],
                          Ext=zebrapack.Ext(9, b"x"), Pet=clash.Address(Street="pet"))
    assert clash.schema.decode(clash.schema.encode(person)) == person
    assert clash.None_(Person=person).Person.Address.Street == "a"
    assert typing.get_type_hints(clash.Person)["Other"] is clash.Address


def _run_generated(document: dict[str, Any]) -> types.ModuleType:
    """The module zebrapack gen writes for a schema document, executed."""
    source = generate_module(zebrapack.load(document).model)
    module = types.ModuleType(f"zebrapack_{document['SourcePackage']}_generated")
    sys.modules[module.__name__] = module      # dataclasses look their module up
    try:
        exec(compile(source, "<generated>", "exec"), module.__dict__)    # noqa: S102 - our own generated code
    finally:
        del sys.modules[module.__name__]
    return module


def test_array_zeros_of_a_struct_named_underscore_are_made_by_the_generated_module() -> None:
    # `_` is a struct name Python takes; `[_() for _ in range(3)]` would call the loop's int
    # (found by the load fuzz target, tests/fuzz/load/gen-struct-named-underscore-*).
    def array(length: str, element: dict[str, Any]) -> dict[str, Any]:
        return {"Kind": 27, "Str": "Array", "Domain": {"Kind": 2, "Str": length}, "Range": element}

    document = {"SourcePackage": "blank", "Structs": {
        "_": {"StructName": "_", "Fields": [_field(0, "Name", {"Kind": 2, "Str": "string"})]},
        "Grid": {"StructName": "Grid", "Fields": [_field(0, "Cells", array("2", array("3", _ident("_"))))]},
    }}
    module = _run_generated(document)
    cells = module.Grid().Cells
    assert cells == [[module._()] * 3] * 2
    assert len({id(cell) for row in cells for cell in row}) == 6     # each a fresh record
    grid = module.Grid(Cells=[[module._(Name=f"{i}{j}") for j in range(3)] for i in range(2)])
    assert module.schema.decode(module.schema.encode(grid)) == grid


def test_a_struct_whose_name_starts_with_underscore_gets_an_alias_python_does_not_mangle() -> None:
    # A field named as its struct hides the class in the class body; the alias "__A" would
    # be mangled there (found by the load fuzz target, tests/fuzz/load/gen-alias-*).
    document = {"SourcePackage": "under", "Structs": {
        "_A": {"StructName": "_A", "Fields": [_field(0, "X", {"Kind": 2, "Str": "string"})]},
        "Holder": {"StructName": "Holder", "Fields": [_field(0, "_A", _ident("_A"))]},
    }}
    module = _run_generated(document)
    assert module.Holder()._A == getattr(module, "_A")()
    holder = module.Holder(_A=getattr(module, "_A")(X="x"))
    assert module.schema.decode(module.schema.encode(holder)) == holder


@pytest.mark.parametrize(("struct", "alias"), [("_A", "_A_"), ("A", "_A")])
def test_a_struct_named_as_another_ones_alias_is_refused(struct: str, alias: str) -> None:
    document = {"SourcePackage": "clash", "Structs": {
        name: {"StructName": name, "Fields": [_field(0, "X", {"Kind": 2, "Str": "string"})]} for name in (struct, alias)}}
    with pytest.raises(SchemaError, match=f"'{alias}' is the alias the generated module gives '{struct}'"):
        generate_module(zebrapack.load(document).model)


def test_generation_is_stable_and_the_same_from_z_and_z_json(generated_dir: Path) -> None:
    for name in SCHEMA_NAMES:
        from_z = (generated_dir / f"{name}_models.py").read_text()
        again = generate_module(zebrapack.load(SCHEMAS / f"{name}.z").model)
        from_json = generate_module(zebrapack.load(SCHEMAS / f"{name}.z.json").model)
        assert from_z == again == from_json


def test_gen_output_does_not_depend_on_hash_seeds(generated_dir: Path, tmp_path: Path) -> None:
    outputs = [run_cli("gen", SCHEMAS / "zp.z", PYTHONHASHSEED=seed).stdout for seed in ("1", "2")]
    assert outputs[0] == outputs[1] == (generated_dir / "zp_models.py").read_bytes()


def test_gen_writes_the_module_to_a_file(tmp_path: Path, generated_dir: Path) -> None:
    target = tmp_path / "models.py"
    result = run_cli("gen", SCHEMAS / "iface.z.json", "-o", target)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert target.read_text() == (generated_dir / "iface_models.py").read_text().replace("iface.z.", "iface.z.json.", 1)


def test_importing_a_generated_module_reads_nothing_and_prints_nothing(generated_dir: Path, tmp_path: Path) -> None:
    code = "import sys; sys.path.insert(0, sys.argv[1]); import zp_models; print(zp_models.schema.types.A().Sibs)"
    result = subprocess.run([sys.executable, "-c", code, str(generated_dir)], cwd=tmp_path, capture_output=True,
                            text=True, env=cli_env(), timeout=60, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, "0\n", "")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", [*SCHEMA_NAMES, "clash", *GOLDEN2_NAMES])
def test_generated_module_holds_no_mutable_state(modules: dict[str, types.ModuleType], name: str) -> None:
    for attr, value in vars(modules[name]).items():
        if not attr.startswith("__"):
            assert isinstance(value, (type, types.ModuleType, bytes, zebrapack.Schema, type(typing.Any),
                                      type(dataclasses.field), __import__("__future__")._Feature)), (attr, value)


def test_struct_named_like_a_module_name_is_refused(tmp_path: Path) -> None:
    document = {"Structs": {"schema": {"StructName": "schema", "Fields": []}}}
    with pytest.raises(SchemaError, match="the generated module needs the name 'schema' for itself"):
        generate_module(zebrapack.load(document).model)
    path = tmp_path / "bad.z.json"
    path.write_text('{"Structs": {"schema": {"StructName": "schema"}}}')
    assert error_line(run_cli("gen", path)) == \
        f"zebrapack gen: error: {path}: schema: the generated module needs the name 'schema' for itself"


def test_gen_errors_are_one_line(tmp_path: Path) -> None:
    assert error_line(run_cli("gen", tmp_path / "none.z")) == f"zebrapack gen: error: {tmp_path / 'none.z'}: No such file or directory"
    assert error_line(run_cli("gen", SCHEMAS / "zp.z", "-o", tmp_path / "no" / "x.py")) == \
        f"zebrapack gen: error: {tmp_path / 'no' / 'x.py'}: No such file or directory"


@dataclasses.dataclass
class HandInner:
    """A hand-written (not slots) class for zp's Inner, with an extra defaulted field."""

    Y: str = ""
    X: int = 0
    note: str = "mine"


def test_hand_written_dataclasses_stand_in_for_generated_ones() -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z", types={"Inner": HandInner})
    record = schema.decode(vector_bytes(next(c for c in MANIFEST if c["name"] == "Compound_full")))
    assert record.Nested == HandInner(Y="nest", X=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # Compound_full writes the deprecated Old
        assert schema.decode(schema.encode(record)) == record
    with pytest.raises(SchemaError, match="has no field for it"):
        zebrapack.load(SCHEMAS / "zp.z", types={"Inner": dataclasses.make_dataclass("Inner", [("X", int)])})
