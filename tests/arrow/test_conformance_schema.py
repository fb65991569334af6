"""zpa.arrow_schema gives, for every struct of every reference schema, the Arrow schema of the
contract's type mapping: names, types, nullability and extension metadata."""

from __future__ import annotations

from typing import Any

import pytest

import zebrapack
import zebrapack.arrow as zpa

from support.engines import engine
from .oracle import EXTENSION_METADATA, EXTENSION_NAME, expected_schema
from .sources import COLUMN_CHOICES, SCHEMA_STRUCTS, SCHEMAS

pa = engine("pyarrow")


def arrow_schema(schema: zebrapack.Schema, type_name: str, **options: Any) -> Any:
    return pa.schema(zpa.arrow_schema(schema, type_name, **options))


def assert_same_schema(got: Any, want: Any) -> None:
    assert got.names == want.names
    for field, expected in zip(got, want):
        assert field.equals(expected, check_metadata=True), f"{field} {field.metadata}\n!=\n{expected} " \
            f"{expected.metadata}"


@pytest.mark.parametrize("time_unit", ["ns", "us"])
@pytest.mark.parametrize(("schema_name", "type_name"), SCHEMA_STRUCTS, ids=[f"{s}-{t}" for s, t in SCHEMA_STRUCTS])
def test_every_struct_maps_to_the_contract_schema(schema_name: str, type_name: str, time_unit: str) -> None:
    schema = SCHEMAS[schema_name]
    assert_same_schema(arrow_schema(schema, type_name, time_unit=time_unit),
                       expected_schema(schema, type_name, time_unit=time_unit))


def test_every_primitive_kind_has_its_arrow_type_literally() -> None:
    """The contract's table, spelled out for zp.z's Prims (one field of each primitive kind)."""
    schema = SCHEMAS["zp"]
    real_imag32 = pa.struct([pa.field("real", pa.float32(), False), pa.field("imag", pa.float32(), False)])
    real_imag64 = pa.struct([pa.field("real", pa.float64(), False), pa.field("imag", pa.float64(), False)])
    want = [("S", pa.utf8(), False), ("Bin", pa.binary(), False), ("F32", pa.float32(), False),
            ("F64", pa.float64(), False), ("C64", real_imag32, False), ("C128", real_imag64, False),
            ("U", pa.uint64(), False), ("U8", pa.uint8(), False), ("U16", pa.uint16(), False),
            ("U32", pa.uint32(), False), ("U64", pa.uint64(), False), ("By", pa.uint8(), False),
            ("I", pa.int64(), False), ("I8", pa.int8(), False), ("I16", pa.int16(), False),
            ("I32", pa.int32(), False), ("I64", pa.int64(), False), ("B", pa.bool_(), False),
            ("T", pa.timestamp("ns", "UTC"), True), ("Any", pa.binary(), True)]
    got = arrow_schema(schema, "Prims")
    assert [(f.name, f.type, f.nullable) for f in got] == want
    extensions = {f.name: f.metadata[EXTENSION_NAME.encode()].decode() for f in got if f.metadata}
    assert extensions == {"C64": "zebrapack.complex64", "C128": "zebrapack.complex128", "Any": "zebrapack.msgpack"}
    assert arrow_schema(schema, "Prims", time_unit="us").field("T").type == pa.timestamp("us", "UTC")


def test_containers_pointers_and_nested_structs_have_their_arrow_types_literally() -> None:
    schema = SCHEMAS["zp"]
    inner = pa.struct([pa.field("X", pa.int32(), False), pa.field("Y", pa.utf8(), False)])
    got = arrow_schema(schema, "Compound")
    want = {
        "Ints": pa.list_(pa.field("item", pa.int64(), False)),
        "Arr": pa.list_(pa.field("item", pa.float64(), False), 3),
        "ByteArr": pa.binary(4),
        "IMap": pa.map_(pa.field("key", pa.int64(), False), pa.field("value", pa.utf8(), False)),
        "Nested": inner, "Ptr": inner,
        "PInners": pa.list_(pa.field("item", inner, True)),
        "MInner": pa.map_(pa.field("key", pa.utf8(), False), pa.field("value", inner, True)),
        "Matrix": pa.list_(pa.field("item", pa.list_(pa.field("item", pa.int32(), False)), False)),
        "PInt": pa.int64(),
        "Times": pa.list_(pa.field("item", pa.timestamp("ns", "UTC"), False)),
    }
    for name, arrow_type in want.items():
        assert got.field(name).type.equals(arrow_type), name
    assert [f.name for f in got if f.nullable] == ["Ptr", "PInt"]
    anys = got.field("Anys").type.value_field
    assert anys.nullable and anys.metadata[EXTENSION_NAME.encode()] == b"zebrapack.msgpack"


def test_a_named_interface_is_tagged_with_its_name_and_a_recursive_struct_with_its_own() -> None:
    iface = SCHEMAS["iface"]
    pet = arrow_schema(iface, "Zoo").field("Pet")
    assert (pet.type, pet.nullable) == (pa.binary(), True)
    assert pet.metadata == {EXTENSION_NAME.encode(): b"zebrapack.msgpack", EXTENSION_METADATA.encode(): b"Familiar"}
    tree = arrow_schema(SCHEMAS["zp"], "Tree")
    assert tree.field("Up").metadata[EXTENSION_METADATA.encode()] == b"Tree" and tree.field("Up").nullable
    assert not tree.field("Kids").type.value_field.nullable




@pytest.mark.parametrize(("package", "type_name", "columns"), COLUMN_CHOICES,
                         ids=[f"{p}-{t}-{'+'.join(c) or 'none'}" for p, t, c in COLUMN_CHOICES])
def test_columns_choose_fields_and_nested_paths_in_schema_order(package: str, type_name: str,
                                                                 columns: list[str]) -> None:
    schema = SCHEMAS[package]
    assert_same_schema(arrow_schema(schema, type_name, columns=columns),
                       expected_schema(schema, type_name, columns))


@pytest.mark.parametrize("columns", [["Nope"], ["Name", "Nested.X"], ["Name.Sub"], ["Bday.X"]])
def test_an_unknown_column_is_a_value_error_naming_it(columns: list[str]) -> None:
    with pytest.raises(ValueError, match=repr(columns[-1]).replace(".", r"\.")):
        zpa.arrow_schema(SCHEMAS["zp"], "A", columns=columns)


def test_the_type_is_a_name_a_generated_class_or_the_only_struct() -> None:
    schema = SCHEMAS["zp"]
    assert pa.schema(zpa.arrow_schema(schema, schema.types.A)).equals(arrow_schema(schema, "A"))
    with pytest.raises(ValueError, match="Compound"):
        zpa.arrow_schema(schema)                           # several structs: the choices are named
    with pytest.raises(ValueError, match="Nope"):
        zpa.arrow_schema(schema, "Nope")
    with pytest.raises(TypeError):
        zpa.arrow_schema(schema, int)
    only = SCHEMAS["evo1"]
    assert pa.schema(zpa.arrow_schema(only)).names == ["Name", "Age", "Email"]
    with pytest.raises(ValueError, match="time_unit"):
        zpa.arrow_schema(schema, "A", time_unit="ms")
