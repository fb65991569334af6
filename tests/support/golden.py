"""The golden records of the reference (tests/golden, and set 2 in tests/golden2): their
manifests, schemas, and the typed ``expect`` trees, compared with decoded values and turned
into values by hand.

A typed tree states every value's Go type (tests/golden/README.md). Inside an
``interface{}`` value the Python type carries it: ``int`` is an int64 and
``GoUint64`` a uint64, ``float`` a float64 and ``GoFloat32`` a float32,
``complex`` a complex128 and ``GoComplex64`` a complex64. Elsewhere the schema
carries it and values are plain Python numbers.
"""

from __future__ import annotations

import json
import struct
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any

import zebrapack
from zebrapack import GoComplex64, GoFloat32, GoTime, GoUint64, Kind, TypeRef

GOLDEN = Path(__file__).parent.parent / "golden"
GOLDEN2 = Path(__file__).parent.parent / "golden2"
ANY = TypeRef(Kind.INTF)


def _manifest(folder: Path) -> list[dict[str, Any]]:
    """A golden set's records, each told its folder (its paths are relative to it)."""
    records: list[dict[str, Any]] = json.loads((folder / "manifest.json").read_text())["records"]
    for record in records:
        record["folder"] = folder.name
    return records


GOLDEN_RECORDS = _manifest(GOLDEN)
GOLDEN2_RECORDS = _manifest(GOLDEN2)

_SCHEMAS: dict[Path, zebrapack.Schema] = {}


def golden_path(record: dict[str, Any], key: str) -> Path:
    """A path of a golden record (``schema``, ``file``, ``go_source``) in its set's folder."""
    return Path(__file__).parent.parent / record["folder"] / record[key]


def golden_schema(record: dict[str, Any]) -> zebrapack.Schema:
    """The schema of a golden record (loaded once per session)."""
    path = golden_path(record, "schema")
    if path not in _SCHEMAS:
        _SCHEMAS[path] = zebrapack.load(path)
    return _SCHEMAS[path]


def golden_bytes(record: dict[str, Any]) -> bytes:
    return golden_path(record, "file").read_bytes()


def encode_like(schema: zebrapack.Schema, value: Any, record: dict[str, Any]) -> bytes:
    """Encode as the record was written (its mode and struct names); deprecated fields are
    part of the reference's data, so their warning is not the point here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return schema.encode(value, structnames=record["structnames_on_wire"], mode=record["mode"])


def root_type(record: dict[str, Any]) -> TypeRef:
    return TypeRef(Kind.STRUCT, name=record["type"])


def assert_golden_record(record: dict[str, Any]) -> None:
    """A golden record decodes strictly to its typed ``expect`` tree (values and Go types),
    re-encodes byte for byte where Go's encoding is unique (decode -> encode -> decode gives
    the same typed value elsewhere), and the value built by hand from ``expect`` encodes to
    the same bytes."""
    schema = golden_schema(record)
    data = golden_bytes(record)
    expect = record["expect"]
    value = schema.decode(data, record["type"], strict=True)
    assert_matches(expect, value, schema, root_type(record))

    written = encode_like(schema, value, record)
    if record["byte_exact"]:
        assert written.hex() == data.hex()
    assert_matches(expect, schema.decode(written, record["type"], strict=True), schema, root_type(record))

    by_hand = encode_like(schema, build(expect, schema, root_type(record)), record)
    if record["byte_exact"]:
        assert by_hand.hex() == data.hex()
    assert_matches(expect, schema.decode(by_hand, record["type"], strict=True), schema, root_type(record))


# -- comparing ------------------------------------------------------------------------


def _f32_bits(value: float) -> str:
    if value != value:      # bit by bit: struct would quieten a signalling NaN
        bits = struct.unpack(">Q", struct.pack(">d", value))[0]
        return f"{(bits >> 32) & 0x80000000 | 0x7f800000 | (bits >> 29) & 0x7fffff:08x}"
    return struct.pack(">f", value).hex()


def _f64_bits(value: float) -> str:
    return struct.pack(">d", value).hex()


def _float_from_bits(bits: str) -> float:
    number = int(bits, 16)
    if len(bits) == 8 and number & 0x7f800000 == 0x7f800000 and number & 0x7fffff:
        # a float32 NaN, bit by bit (struct would quieten a signalling one)
        number = (number & 0x80000000) << 32 | 0x7ff0000000000000 | (number & 0x7fffff) << 29
        bits = f"{number:016x}"
    result: float = struct.unpack(">f" if len(bits) == 8 else ">d", bytes.fromhex(bits))[0]
    return result


def _unwrap(type_ref: TypeRef) -> TypeRef:
    while type_ref.kind == Kind.POINTER:
        type_ref = type_ref.elem_type
    return type_ref


def _elem(type_ref: TypeRef) -> TypeRef:
    return ANY if type_ref.kind == Kind.INTF else type_ref.elem_type


def _time_of(value: Any) -> tuple[int, int]:
    if isinstance(value, GoTime):
        return value.seconds, value.nanoseconds
    assert isinstance(value, datetime), value
    moment = GoTime.from_datetime(value)
    return moment.seconds, moment.nanoseconds


class Mismatch(AssertionError):
    pass


def assert_matches(node: dict[str, Any], value: Any, schema: zebrapack.Schema,
                   type_ref: TypeRef | None = None, path: str = "$") -> None:
    """``value`` (decoded) is what the typed tree ``node`` states: value and Go type."""
    kind = node["t"]
    type_ref = _unwrap(type_ref) if type_ref is not None else None
    dynamic = type_ref is not None and type_ref.kind == Kind.INTF

    def fail(message: str) -> None:
        raise Mismatch(f"{path}: {message} (expected {json.dumps(node)[:200]}, got {value!r:.200})")

    def expect_type(*types: type) -> None:
        if type(value) not in types:
            fail(f"Python type {type(value).__name__}, expected {' or '.join(t.__name__ for t in types)}")

    if kind == "struct":
        name = node["name"]
        if not isinstance(value, schema.types[name]):
            fail(f"not a {name}")
        fields = {f.go_name: f for f in schema.structs[name].wire_fields}
        if set(node["f"]) != set(fields):
            fail(f"fields {sorted(node['f'])} vs schema {sorted(fields)}")
        for go_name, child in node["f"].items():
            field = fields[go_name]
            assert field.type is not None
            if field.type.kind == Kind.TIME and child["t"] == "time" and child["zero"] and child["top"]:
                if getattr(value, field.attr) is not None:
                    raise Mismatch(f"{path}.{go_name}: Go's zero time in a time.Time field is None")
                continue
            assert_matches(child, getattr(value, field.attr), schema, field.type, f"{path}.{go_name}")
    elif kind == "nil":
        if value is not None:
            fail("not None")
    elif kind in ("int", "uint"):
        expect_type(GoUint64 if dynamic and kind == "uint" else int)
        if value != node["v"]:
            fail("wrong value")
    elif kind in ("f32", "f64"):
        expect_type(GoFloat32 if dynamic and kind == "f32" else float)
        bits = _f32_bits(value) if kind == "f32" else _f64_bits(value)
        if bits != node["bits"]:
            fail(f"bits {bits}")
    elif kind in ("c64", "c128"):
        expect_type(GoComplex64 if dynamic and kind == "c64" else complex)
        to_bits = _f32_bits if kind == "c64" else _f64_bits
        if (to_bits(value.real), to_bits(value.imag)) != (node["re"], node["im"]):
            fail("bits")
    elif kind == "str":
        expect_type(str)
        if value != node["v"]:
            fail("wrong value")
    elif kind == "bool":
        expect_type(bool)
        if value is not node["v"]:
            fail("wrong value")
    elif kind == "bytes":
        expect_type(bytes)
        if value.hex() != node["hex"]:
            fail("wrong bytes")
    elif kind == "list":
        expect_type(list)
        if len(value) != len(node["v"]):
            fail(f"{len(value)} elements, expected {len(node['v'])}")
        elem = _elem(type_ref) if type_ref is not None else None
        for index, (child, item) in enumerate(zip(node["v"], value)):
            assert_matches(child, item, schema, elem, f"{path}[{index}]")
    elif kind == "map":
        expect_type(dict)
        if len(value) != len(node["v"]):
            fail(f"{len(value)} entries, expected {len(node['v'])}")
        key_type = ANY if dynamic else type_ref.key if type_ref is not None else None
        elem = _elem(type_ref) if type_ref is not None else None
        keys = {build(key_node, schema, key_type): key_node for key_node, _ in node["v"]}
        for key_node, child in node["v"]:
            key = build(key_node, schema, key_type)
            if key not in value:
                fail(f"no key {key!r}")
            actual_key = next(k for k in value if k == key)
            assert_matches(key_node, actual_key, schema, key_type, f"{path}[{key!r}](key)")
            assert_matches(child, value[key], schema, elem, f"{path}[{key!r}]")
        assert len(keys) == len(node["v"])
    elif kind == "time":
        if not isinstance(value, (datetime, GoTime)):
            fail("not a time")
        if _time_of(value) != (node["sec"], node["nsec"]):
            fail(f"instant {_time_of(value)}")
    elif kind == "ext":
        expect_type(zebrapack.Ext)
        if (value.code, value.data.hex()) != (node["type"], node["hex"]):
            fail("wrong ext")
    else:
        raise AssertionError(f"unknown node {kind}")


# -- building ---------------------------------------------------------------------------


def build(node: dict[str, Any], schema: zebrapack.Schema, type_ref: TypeRef | None = None) -> Any:
    """The Python value a user writes by hand for the typed tree ``node``."""
    kind = node["t"]
    type_ref = _unwrap(type_ref) if type_ref is not None else None
    dynamic = type_ref is not None and type_ref.kind == Kind.INTF
    if kind == "struct":
        name = node["name"]
        fields = {f.go_name: f for f in schema.structs[name].wire_fields}
        values = {}
        for go_name, child in node["f"].items():
            field = fields[go_name]
            if field.type is not None and field.type.kind == Kind.TIME and child["t"] == "time" \
                    and child["zero"] and child["top"]:
                values[field.attr] = None
            else:
                values[field.attr] = build(child, schema, field.type)
        return schema.types[name](**values)
    if kind == "nil":
        return None
    if kind == "int":
        return node["v"]
    if kind == "uint":
        return GoUint64(node["v"]) if dynamic else node["v"]
    if kind in ("f32", "f64"):
        number = _float_from_bits(node["bits"])
        return GoFloat32(number) if dynamic and kind == "f32" else number
    if kind in ("c64", "c128"):
        number = complex(_float_from_bits(node["re"]), _float_from_bits(node["im"]))
        return GoComplex64(number) if dynamic and kind == "c64" else number
    if kind in ("str", "bool"):
        return node["v"]
    if kind == "bytes":
        return bytes.fromhex(node["hex"])
    if kind == "list":
        elem = _elem(type_ref) if type_ref is not None else None
        return [build(child, schema, elem) for child in node["v"]]
    if kind == "map":
        key_type = ANY if dynamic else type_ref.key if type_ref is not None else None
        elem = _elem(type_ref) if type_ref is not None else None
        return {build(key, schema, key_type): build(child, schema, elem) for key, child in node["v"]}
    if kind == "time":
        moment = GoTime(node["sec"], node["nsec"])
        return moment.to_datetime() if moment.in_datetime_range() else moment
    if kind == "ext":
        return zebrapack.Ext(node["type"], bytes.fromhex(node["hex"]))
    raise AssertionError(f"unknown node {kind}")
