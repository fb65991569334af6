"""Schemas from the user's dataclasses: the same schema and the same bytes as the Go-defined one."""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Optional, Union

import pytest
from support.vectors import VECTORS, vector_schema

import zebrapack
from zebrapack import Kind, Retired, SchemaError, Zid
from zebrapack.sources.from_go import compile_go_schema


# The structs A, Inner and Tree of tests/vectors/schemas/zp.go, written in Python.
@dataclass
class A:
    Name: Annotated[str, Zid(0, tag="name")] = ""
    Bday: Optional[datetime] = field(default=None, metadata={"zid": 1})
    Phone: Annotated[str, Zid(2, tag="phone", omitempty=True)] = ""
    Sibs: Annotated[int, zebrapack.GoKind(Kind.INT), Zid(3, omitempty=True)] = 0
    GPA: float = field(default=0.0, metadata={"zid": 4})
    Friend: bool = field(default=False, metadata={"zid": 5})


@dataclass(slots=True)
class Inner:
    X: zebrapack.int32 = field(default=0, metadata={"zid": 0})
    Y: str = field(default="", metadata={"zid": 1})


@dataclass
class Tree:
    Kids: list[Tree] = field(default_factory=list, metadata={"zid": 0})
    Label: str = field(default="", metadata={"zid": 1})
    Weight: zebrapack.float32 = field(default=0.0, metadata={"zid": 2})
    Up: Optional[Tree] = field(default=None, metadata={"zid": 3})


# Person of evo1.go and evo2.go.
@dataclass
class PersonV1:
    Name: str = field(default="", metadata={"zid": 0})
    Age: zebrapack.int32 = field(default=0, metadata={"zid": 1})
    Email: str = field(default="", metadata={"zid": 2})


@dataclass
class PersonV2:
    Name: str = field(default="", metadata={"zid": 0})
    Age: Retired = field(default=None, metadata={"zid": 1})
    Email: str = field(default="", metadata={"zid": 2})
    Tags: list[str] = field(default_factory=list, metadata={"zid": 3})
    Score: zebrapack.uint64 = field(default=0, metadata={"zid": 4})


def renamed(cls: type, name: str) -> type:
    """The dataclass under another struct name (the Go struct is ``Person`` in both versions)."""
    return dataclasses.make_dataclass(name, [(f.name, f.type, f) for f in dataclasses.fields(cls)],
                                      namespace={"__module__": __name__})


def person_schema(cls: type) -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(renamed(cls, "Person"), package="evo", schema_id=0x1E70F00D00001)


@pytest.fixture(scope="module")
def zp_like() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(A, Inner, Tree, package="zp", schema_id=0x3B2F1A9C4D5E7)


def test_dataclasses_give_the_structs_of_the_go_schema(zp_like: zebrapack.Schema) -> None:
    zp = vector_schema("zp.z")
    assert dict(zp_like.structs) == {name: zp.structs[name] for name in ("A", "Inner", "Tree")}
    assert (zp_like.source_package, zp_like.schema_id) == ("zp", zp.schema_id)


@pytest.mark.parametrize(("name", "type_name"), [("A_seed", "A"), ("A_negative", "A"), ("Tree_small", "Tree")])
def test_user_instances_encode_the_bytes_of_the_go_schema(zp_like: zebrapack.Schema, name: str,
                                                          type_name: str) -> None:
    data = (VECTORS / "zp" / f"{name}.zpk").read_bytes()
    value = zp_like.decode(data)
    assert type(value) is zp_like.types[type_name] is {"A": A, "Tree": Tree}[type_name]
    assert zp_like.encode(value) == data
    assert vector_schema("zp.z").encode(vector_schema("zp.z").decode(data)) == data


def test_user_instance_built_by_hand_encodes_like_the_generated_class(zp_like: zebrapack.Schema) -> None:
    zp = vector_schema("zp.z")
    mine = Tree(Label="root", Weight=1.5, Kids=[Tree(Label="kid")], Up=Tree(Label="up"))
    theirs = zp.types.Tree(Label="root", Weight=1.5, Kids=[zp.types.Tree(Label="kid")], Up=zp.types.Tree(Label="up"))
    assert zp_like.encode(mine) == zp.encode(theirs)
    assert zp_like.encode(Inner(X=-3, Y="y")) == zp.encode(zp.types.Inner(X=-3, Y="y"))


def test_retired_and_new_fields_give_the_evolved_schema() -> None:
    v1, v2 = person_schema(PersonV1), person_schema(PersonV2)
    assert v1.structs == vector_schema("evo1.z").structs
    assert v2.structs == vector_schema("evo2.z").structs
    assert zebrapack.check_compatible(v1, v2).compatible
    written_by_v2 = (VECTORS / "evo2" / "v2_as_v2.zpk").read_bytes()
    assert v2.encode(v2.decode(written_by_v2)) == written_by_v2


def test_nested_dataclasses_are_found_through_the_fields() -> None:
    @dataclass
    class Holder:
        Trees: dict[str, Tree] = field(default_factory=dict, metadata={"zid": 0})

    schema = zebrapack.schema_from_dataclasses(Holder, package="p")
    assert list(schema.structs) == ["Holder", "Tree"]
    assert schema.types.Tree is Tree


def test_dumped_schema_loads_back_the_same(zp_like: zebrapack.Schema, tmp_path: Path) -> None:
    zp_like.dump(tmp_path / "zp.z")
    assert zebrapack.load(tmp_path / "zp.z").model == zp_like.model
    again = zebrapack.load(tmp_path / "zp.z.json", types={"A": A, "Inner": Inner, "Tree": Tree})
    value = A(Name="x", Sibs=3, Bday=datetime(2020, 1, 2).astimezone())
    assert again.decode(again.encode(value)) == value


def test_go_source_of_a_dataclass_schema_compiles_back_the_same(zp_like: zebrapack.Schema) -> None:
    compiled = compile_go_schema(zebrapack.go_source(zp_like.model))
    assert compiled.structs == zp_like.structs
    assert (compiled.source_package, compiled.schema_id) == ("zp", zp_like.schema_id)


def test_annotations_map_to_go_types() -> None:
    @dataclass
    class All:
        B: bytes = field(default=b"", metadata={"zid": 0})
        C: complex = field(default=0j, metadata={"zid": 1})
        C64: zebrapack.complex64 = field(default=0j, metadata={"zid": 2})
        I: Any = field(default=None, metadata={"zid": 3})
        E: Optional[zebrapack.Ext] = field(default=None, metadata={"zid": 4})
        P: Optional[zebrapack.uint16] = field(default=None, metadata={"zid": 5})
        T: list[Optional[datetime]] = field(default_factory=list, metadata={"zid": 6})
        M: dict[zebrapack.int32, list[bytes]] = field(default_factory=dict, metadata={"zid": 7})
        U: zebrapack.byte | None = field(default=None, metadata={"zid": 8})

    got = {f.go_name: f.type.go for f in zebrapack.schema_from_dataclasses(All, package="p").structs["All"].fields
           if f.type is not None}
    assert got == {"B": "[]byte", "C": "complex128", "C64": "complex64", "I": "interface{}",
                   "E": "*msgp.Extension", "P": "*uint16", "T": "[]*time.Time", "M": "map[int32][][]byte",
                   "U": "*byte"}


def test_flags_come_from_metadata_or_zid() -> None:
    @dataclass
    class Flags:
        Old: int = field(default=0, metadata={"zid": 0, "deprecated": True, "tag": "old", "omitempty": True})
        New: Annotated[int, Zid(1, deprecated=True)] = 0

    old, new = zebrapack.schema_from_dataclasses(Flags, package="p").structs["Flags"].fields
    assert (old.deprecated, old.tag_name, old.omit_empty, new.deprecated, new.tag_name) == (True, "old", True, True, "New")


def test_preserve_unknown_works_with_a_zebrapack_unknown_field() -> None:
    @dataclass
    class Person:
        Name: str = field(default="", metadata={"zid": 0})
        Age: zebrapack.int32 = field(default=0, metadata={"zid": 1})
        Email: str = field(default="", metadata={"zid": 2})
        zebrapack_unknown: Optional[dict[Union[int, str], bytes]] = field(default=None, compare=False)

    schema = zebrapack.schema_from_dataclasses(Person, package="evo1", preserve_unknown=True)
    written_by_v2 = (VECTORS / "evo1" / "v2_as_v1.zpk").read_bytes()
    person = schema.decode(written_by_v2)
    assert isinstance(person, Person) and set(person.zebrapack_unknown or {}) == {3, 4}
    assert schema.encode(person) == written_by_v2


def test_deprecated_field_written_warns() -> None:
    @dataclass
    class D:
        Old: Annotated[int, Zid(0, deprecated=True)] = 0

    schema = zebrapack.schema_from_dataclasses(D, package="p")
    with pytest.warns(DeprecationWarning, match="deprecated"):
        schema.encode(D(Old=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        schema.encode(D())


@dataclass
class NoZid:
    A: int = field(default=0, metadata={"zid": 0})
    B: int = 0


@dataclass
class TwiceZid:
    A: int = field(default=0, metadata={"zid": 0})
    B: int = field(default=0, metadata={"zid": 0})


@dataclass
class GapZid:
    A: int = field(default=0, metadata={"zid": 0})
    B: int = field(default=0, metadata={"zid": 2})


@dataclass
class BothZid:
    A: Annotated[int, Zid(0)] = field(default=0, metadata={"zid": 0})


@dataclass
class SetField:
    A: set[int] = field(default_factory=set, metadata={"zid": 0})


@dataclass
class UnionField:
    A: Union[int, str] = field(default=0, metadata={"zid": 0})


@dataclass
class FloatKey:
    A: dict[float, int] = field(default_factory=dict, metadata={"zid": 0})


@dataclass
class WrongWidth:
    A: Annotated[float, zebrapack.GoKind(Kind.INT32)] = field(default=0.0, metadata={"zid": 0})


@dataclass
class SelfReference:
    A: SelfReference | None = field(default=None, metadata={"zid": 0})
    B: list[SelfReference] = field(default_factory=list, metadata={"zid": 1})


@dataclass
class SelfByValue:
    A: SelfByValue = field(default=None, metadata={"zid": 0})  # type: ignore[assignment]


@dataclass
class BadTag:
    A: int = field(default=0, metadata={"zid": 0, "tag": 5})


@pytest.mark.parametrize(("cls", "field_name", "message"), [
    (NoZid, "B", "no zid"),
    (TwiceZid, "B", "zid 0 used twice (also by A)"),
    (GapZid, "B", "zid 1 unused"),
    (BothZid, "A", "zid given twice"),
    (SetField, "A", "set[int] has no schema type"),
    (UnionField, "A", "a union other than Optional[T]"),
    (FloatKey, "A", "map key float64"),
    (WrongWidth, "A", "needs one GoKind that fits"),
    (BadTag, "A", "FieldTagName must be str"),
    (SelfByValue, "A", "contains itself by value"),
], ids=lambda value: value.__name__ if isinstance(value, type) else None)
def test_error_names_class_and_field(cls: type, field_name: str, message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        zebrapack.schema_from_dataclasses(cls, package="p")
    assert (caught.value.struct, caught.value.field) == (cls.__name__, field_name)
    assert message in str(caught.value)


def test_dataclass_may_refer_to_itself_through_optional_and_list() -> None:
    schema = zebrapack.schema_from_dataclasses(SelfReference, package="p")
    value = SelfReference(A=SelfReference(), B=[SelfReference()])
    assert schema.decode(schema.encode(value)) == value


def test_two_dataclasses_with_one_name_are_refused() -> None:
    other_tree = dataclasses.make_dataclass("Tree", [("Label", str, field(default="", metadata={"zid": 0}))])
    with pytest.raises(SchemaError, match="two dataclasses are named Tree"):
        zebrapack.schema_from_dataclasses(Tree, other_tree, package="p")


def test_arguments_must_be_dataclasses_and_package_an_identifier() -> None:
    with pytest.raises(SchemaError, match="is not a dataclass"):
        zebrapack.schema_from_dataclasses(int, package="p")
    with pytest.raises(SchemaError, match="package must be an identifier"):
        zebrapack.schema_from_dataclasses(Inner, package="my-package")
