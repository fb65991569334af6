"""zebrapack.arrow.arrow_schema: the Arrow type of every schema kind, through pyarrow."""

from __future__ import annotations

import subprocess
import sys

import pytest

import zebrapack
import zebrapack.arrow as zpa
from zebrapack.examples import __file__ as examples_init

from support.engines import engine

pa = engine("pyarrow")

EXAMPLES = zebrapack.load(examples_init.replace("__init__.py", "zp.z"))


def schema_of(type, **options):
    return pa.schema(zpa.arrow_schema(EXAMPLES, type, **options))


def extension(field):
    meta = field.metadata or {}
    return meta.get(b"ARROW:extension:name", b"").decode(), meta.get(b"ARROW:extension:metadata", b"").decode()


def test_primitives_keep_width_sign_and_bits():
    schema = schema_of("Prims")
    expected = {
        "S": pa.utf8(), "Bin": pa.binary(), "F32": pa.float32(), "F64": pa.float64(),
        "U": pa.uint64(), "U8": pa.uint8(), "U16": pa.uint16(), "U32": pa.uint32(), "U64": pa.uint64(),
        "By": pa.uint8(), "I": pa.int64(), "I8": pa.int8(), "I16": pa.int16(), "I32": pa.int32(),
        "I64": pa.int64(), "B": pa.bool_(), "T": pa.timestamp("ns", tz="UTC"), "Any": pa.binary(),
    }
    for name, arrow_type in expected.items():
        assert schema.field(name).type == arrow_type, name
    assert schema.names == ["S", "Bin", "F32", "F64", "C64", "C128", "U", "U8", "U16", "U32", "U64", "By",
                            "I", "I8", "I16", "I32", "I64", "B", "T", "Any"]


def test_nullable_only_where_python_has_none():
    schema = schema_of("Prims")
    assert {f.name for f in schema if f.nullable} == {"T", "Any"}
    compound = schema_of("Compound")
    assert {f.name for f in compound if f.nullable} == {"Ptr", "PInt"}
    assert compound.field("PInners").type.value_field.nullable
    assert not compound.field("Inners").type.value_field.nullable
    assert compound.field("Anys").type.value_field.nullable


def test_complex_ext_and_interface_are_tagged_extensions():
    schema = schema_of("Prims")
    c64, c128 = schema.field("C64"), schema.field("C128")
    assert c64.type == pa.struct([pa.field("real", pa.float32(), False), pa.field("imag", pa.float32(), False)])
    assert c128.type == pa.struct([pa.field("real", pa.float64(), False), pa.field("imag", pa.float64(), False)])
    assert extension(c64) == ("zebrapack.complex64", "")
    assert extension(c128) == ("zebrapack.complex128", "")
    assert extension(schema.field("Any")) == ("zebrapack.msgpack", "")


def test_containers():
    schema = schema_of("Compound")
    inner = pa.struct([pa.field("X", pa.int32(), False), pa.field("Y", pa.utf8(), False)])
    assert schema.field("Ints").type == pa.list_(pa.field("item", pa.int64(), False))
    assert schema.field("Arr").type == pa.list_(pa.field("item", pa.float64(), False), 3)
    assert schema.field("ByteArr").type == pa.binary(4)
    assert schema.field("SMap").type == pa.map_(pa.utf8(), pa.field("value", pa.int64(), False))
    assert schema.field("Nested").type == inner
    assert schema.field("Ptr").type == inner
    assert schema.field("MInner").type == pa.map_(pa.utf8(), pa.field("value", inner, True))
    assert schema.field("Matrix").type == pa.list_(pa.field("item", pa.list_(pa.field("item", pa.int32(), False)),
                                                            False))
    assert schema.field("Times").type == pa.list_(pa.field("item", pa.timestamp("ns", "UTC"), False))


def test_recursive_struct_is_msgpack_bytes_at_its_second_occurrence():
    schema = schema_of("Tree")
    assert schema.field("Kids").type == pa.list_(pa.field("item", pa.binary(), False))
    assert extension(schema.field("Kids").type.value_field) == ("zebrapack.msgpack", "Tree")
    assert schema.field("Up").nullable and extension(schema.field("Up")) == ("zebrapack.msgpack", "Tree")


def test_time_unit_us():
    assert schema_of("A", time_unit="us").field("Bday").type == pa.timestamp("us", "UTC")
    with pytest.raises(ValueError, match="time_unit"):
        zpa.arrow_schema(EXAMPLES, "A", time_unit="ms")


def test_columns_keep_schema_order_and_nested_paths_prune_the_parent():
    schema = schema_of("Compound", columns=["Strs", "Nested.Y", "Ints", "Ptr.X"])
    assert schema.names == ["Ints", "Strs", "Nested", "Ptr"]
    assert schema.field("Nested").type == pa.struct([pa.field("Y", pa.utf8(), False)])
    assert schema.field("Ptr").type == pa.struct([pa.field("X", pa.int32(), False)])
    both = schema_of("Compound", columns=["Nested", "Nested.Y"])
    assert both.field("Nested").type.num_fields == 2


def test_unknown_columns_are_named():
    with pytest.raises(ValueError, match=r"'Nope'.*'Nested.Z'.*'Ints.X'"):
        zpa.arrow_schema(EXAMPLES, "Compound", columns=["Nope", "Nested.Z", "Ints.X"])
    with pytest.raises(TypeError):
        zpa.arrow_schema(EXAMPLES, "Compound", columns="Ints")


def test_type_by_class_and_choices():
    assert schema_of(EXAMPLES.types.A).names == ["Name", "Bday", "Phone", "Sibs", "GPA", "Friend"]
    with pytest.raises(ValueError, match="A, Compound, Inner, Prims, Tree"):
        zpa.arrow_schema(EXAMPLES)
    with pytest.raises(ValueError, match="'Nope' is not a struct"):
        zpa.arrow_schema(EXAMPLES, "Nope")
    with pytest.raises(TypeError):
        zpa.arrow_schema(EXAMPLES, int)


def test_map_entries_and_names_follow_the_spec():
    field = schema_of("Compound").field("IMap")
    assert field.type.key_type == pa.int64()
    assert field.type.item_type == pa.utf8()
    assert not field.type.keys_sorted


def test_capsule_released_without_consumer():
    export = zpa.arrow_schema(EXAMPLES, "Compound")
    for _ in range(100):
        export.__arrow_c_schema__()     # dropped unconsumed: the destructor releases it
    assert pa.schema(export) == pa.schema(export)


def test_import_zebrapack_arrow_does_not_import_engines():
    code = ("import sys, zebrapack, zebrapack.arrow as zpa; "
            "zpa.arrow_schema(zebrapack.load(sys.argv[1]), 'A').__arrow_c_schema__(); "
            "bad = [m for m in ('pyarrow', 'polars', 'duckdb') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code, examples_init.replace("__init__.py", "zp.z")], check=True)
