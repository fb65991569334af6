"""The Go peer against the golden records of the reference (tests/golden), Go -> Go
and Python -> Go -> Python.

The peer has Go structs for every type of the four golden schemas (``my``,
``my2``, ``deep``, ``headerplus``: tests/go/my, my2, deep, headerplus). For each
golden record its strict reader must read what the reference read: the peer's
typed tree of the record (``zpeer dump``) is the manifest's ``expect``, Go types
included, and the Go dynamic type of every value held in an interface is the
one ``expect`` names (``int`` is ``int64``, ``uint`` is ``uint64``, ``f32`` is
``float32``...). Its writer must write what the reference wrote: byte for byte
where the manifest says ``byte_exact``, else the same value (Go's map order is
random).

The ``interface{}`` reader and writer are also pinned on hand-made bytes: every
wire family reads as the Go type the reference gives it and is written back in
that family, and the exts the reference rejects are rejected.

Then Python: every golden record goes through zebrapack (decode, encode) into
Go's strict reader, which must read the reference's value and Go types, and
back (Go's encoding, zebrapack's decode) to the same value. hypothesis values
of every golden type make the same trip (tests/go_values.py), among them
``interface{}`` values whose Go type the Python user chose (``GoFloat32``,
``GoUint64``, ``GoComplex64``, ``GoTime``, ``Ext(-1, ...)``): Go must read that
type, and zebrapack must get it back.
"""

from __future__ import annotations

import json
import warnings
from datetime import datetime, timezone
from typing import Any

import pytest
from support.vectors import TESTS
from support.go_peer import GoPeer, GoRejected, go_peer  # noqa: F401  (go_peer is a fixture)
from support.go_values import (as_expected, as_go_holds_it, expected_go_type, go_type_named, go_type_of,
                       has_map_of_two_or_more, held_in_interfaces, same_go_value, struct_values)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import Kind, TypeRef

GOLDEN = TESTS / "golden"
GOLDEN_RECORDS: list[dict[str, Any]] = json.loads((GOLDEN / "manifest.json").read_text())["records"]
#: The golden schemas the peer has Go structs for (every struct of each).
PEER_SCHEMAS = ("my", "my2", "deep", "headerplus")
RECORDS = [record for record in GOLDEN_RECORDS if record["pkg"] in PEER_SCHEMAS]
BYTE_EXACT = [record for record in RECORDS if record["byte_exact"]]
INEXACT = [record for record in RECORDS if not record["byte_exact"]]

_SCHEMAS: dict[str, zebrapack.Schema] = {}


def golden_schema(pkg: str) -> zebrapack.Schema:
    """The schema of tests/golden/schemas/PKG.z (loaded once per session)."""
    if pkg not in _SCHEMAS:
        _SCHEMAS[pkg] = zebrapack.load(GOLDEN / "schemas" / f"{pkg}.z")
    return _SCHEMAS[pkg]


def record_id(record: dict[str, Any]) -> str:
    return str(record["id"])


def golden_bytes(record: dict[str, Any]) -> bytes:
    return (GOLDEN / record["file"]).read_bytes()


def read_by_go(peer: GoPeer, record: dict[str, Any], data: bytes) -> dict[str, Any]:
    (tree,) = peer.dump(record["pkg"], record["type"], data)
    return tree


def assert_go_types_are_the_references(record: dict[str, Any], tree: dict[str, Any]) -> None:
    for path, go_type, node in held_in_interfaces(tree):
        assert go_type == expected_go_type(record["pkg"], node), f"{record['id']}{path}"


@pytest.mark.parametrize("record", RECORDS, ids=record_id)
def test_go_peer_reads_golden_record_as_the_reference_did(go_peer: GoPeer, record: dict[str, Any]) -> None:
    tree = read_by_go(go_peer, record, golden_bytes(record))
    assert as_expected(tree) == as_expected(record["expect"])
    assert_go_types_are_the_references(record, tree)


@pytest.mark.parametrize("record", BYTE_EXACT, ids=record_id)
def test_go_peer_rewrites_golden_record_byte_for_byte(go_peer: GoPeer, record: dict[str, Any]) -> None:
    assert go_peer.roundtrip(record["pkg"], record["type"], golden_bytes(record)) == golden_bytes(record)


@pytest.mark.parametrize("record", INEXACT, ids=record_id)
def test_go_peer_rewrites_inexact_golden_record_to_the_same_value(go_peer: GoPeer, record: dict[str, Any]) -> None:
    rewritten = go_peer.roundtrip(record["pkg"], record["type"], golden_bytes(record))
    tree = read_by_go(go_peer, record, rewritten)
    assert as_expected(tree) == as_expected(record["expect"])
    assert_go_types_are_the_references(record, tree)


def test_golden_records_hold_every_go_number_type_in_interfaces(go_peer: GoPeer) -> None:
    # Guards the tests above against a manifest that stops exercising the families.
    seen = {go_type for record in RECORDS if record["type"] in ("Sys", "Plus")
            for _, go_type, _ in held_in_interfaces(read_by_go(go_peer, record, golden_bytes(record)))}
    assert {"int64", "float32", "float64", "complex64", "complex128", "time.Time",
            "*headerplus.Dog", "*headerplus.Owl"} <= seen


# A Sys record (schema my) whose interface{} field F (zid 0) holds the given bytes.
SYS_HEADER = bytes.fromhex("82ffa3537973") + b"\x00"


def sys_record(value_hex: str) -> bytes:
    return SYS_HEADER + bytes.fromhex(value_hex)


#: interface{} bytes -> (the Go type the reference reads, what it writes back).
#: Go reads by wire family and writes by Go type, in its smallest form.
INTERFACE_FAMILIES = {
    "7f": ("int64", "7f"),
    "e0": ("int64", "e0"),
    "d001": ("int64", "01"),  # int8 holding 1: int64 1, a fixint again
    "d1ff38": ("int64", "d1ff38"),
    "d2ffff7fff": ("int64", "d2ffff7fff"),
    "d38000000000000000": ("int64", "d38000000000000000"),
    "cc80": ("uint64", "cc80"),
    "cc05": ("uint64", "05"),  # uint8 holding 5: uint64 5, a positive fixint again
    "cd0193": ("uint64", "cd0193"),
    "ce00010000": ("uint64", "ce00010000"),
    "cfffffffffffffffff": ("uint64", "cfffffffffffffffff"),
    "ca3fc00000": ("float32", "ca3fc00000"),
    "ca7f800001": ("float32", "ca7f800001"),  # a signaling NaN keeps its bits
    "cb3ff8000000000000": ("float64", "cb3ff8000000000000"),
    "c3": ("bool", "c3"),
    "a3616263": ("string", "a3616263"),
    "d90161": ("string", "a161"),
    "c40101": ("[]uint8", "c40101"),
    "92cc0101": ("[]interface {}", "920101"),  # uint64 1 and int64 1: both fixints
    "81a16bcb3ff0000000000000": ("map[string]interface {}", "81a16bcb3ff0000000000000"),
    "81c4016b01": ("map[string]interface {}", "81a16b01"),  # a bin key is read as a string
    "81c001": ("map[string]interface {}", "81a001"),  # so is a nil key, as ""
    "d7033f80000040000000": ("complex64", "d7033f80000040000000"),
    "d8043ff00000000000004000000000000000": ("complex128", "d8043ff00000000000004000000000000000"),
    "c70c050000000000000001000003e8": ("time.Time", "c70c050000000000000001000003e8"),
    # Go reads the nanoseconds as a signed int32 and time.Unix normalizes them
    "c70c050000000000000001ffffffff": ("time.Time", "c70c0500000000000000003b9ac9ff"),
    "c70c0500000000000000013b9aca00": ("time.Time", "c70c05000000000000000200000000"),
    # the msgpack timestamp: a raw ext to Go, written back with the ext8 header of its
    # MarshalMsg (FORMAT.md section 7) whatever header it came with
    "d6ff00000001": ("*msgp.RawExtension", "c704ff00000001"),
    "d40701": ("*msgp.RawExtension", "c7010701"),
    "c7030a010203": ("*msgp.RawExtension", "c7030a010203"),
}


@pytest.mark.parametrize(("value_hex", "go_type", "written_hex"),
                         [(value, *read) for value, read in INTERFACE_FAMILIES.items()],
                         ids=list(INTERFACE_FAMILIES))
def test_go_reads_interface_value_by_wire_family_and_writes_it_back(
        go_peer: GoPeer, value_hex: str, go_type: str, written_hex: str) -> None:
    record = sys_record(value_hex)
    (tree,) = go_peer.dump("my", "Sys", record)
    assert tree["f"]["F"]["go"] == go_type
    # the value ends the record: also the last bytes of Go's buffer
    assert go_peer.roundtrip("my", "Sys", record) == sys_record(written_hex)


#: interface{} bytes the reference's reader rejects.
INTERFACE_REJECTS = {
    "d6033f800000": "ext 3 (complex64) in a fixext4",
    "c708033f80000040000000": "ext 3 (complex64) in an ext8",
    "d7043ff0000000000000": "ext 4 (complex128) in a fixext8",
    "d705000000000000000f": "ext 5 (time) in a fixext8",
    "c70d05000000000000000100000000ff": "ext 5 (time) of 13 bytes",
    "8101a161": "a map with an integer key",
    "c1": "the never-used byte",
}


def in_the_middle(value_hex: str) -> str:
    """The value as the first element of an array, other bytes after it."""
    return "92" + value_hex + "c0"


@pytest.mark.parametrize("placed", [str, in_the_middle], ids=["ending_the_record", "in_the_middle"])
@pytest.mark.parametrize("value_hex", list(INTERFACE_REJECTS), ids=list(INTERFACE_REJECTS.values()))
def test_go_rejects_interface_value_the_reference_rejects(go_peer: GoPeer, value_hex: str, placed: Any) -> None:
    with pytest.raises(GoRejected):
        go_peer.roundtrip("my", "Sys", sys_record(placed(value_hex)))


def test_go_leaves_a_nil_interface_typed_field_out_and_writes_a_nil_interface(go_peer: GoPeer) -> None:
    # headerplus/Plus_000 and my/Sys_000 pin both; here with the fields explicitly nil on the wire
    plus_with_nil_pet = bytes.fromhex("82ffa4506c757304c0")
    assert go_peer.roundtrip("headerplus", "Plus", plus_with_nil_pet) == bytes.fromhex("81ffa4506c7573")
    assert go_peer.roundtrip("my", "Sys", bytes.fromhex("81ffa3537973")) == sys_record("c0")


def test_go_reads_an_interface_typed_field_by_its_struct_name(go_peer: GoPeer) -> None:
    owl_pet = bytes.fromhex("82ffa4506c75730482ffa34f776c00a161")
    (tree,) = go_peer.dump("headerplus", "Plus", owl_pet)
    assert (tree["f"]["Pet"]["go"], tree["f"]["Pet"]["f"]["Nm"]["v"]) == ("*headerplus.Owl", "a")
    nameless_pet = bytes.fromhex("82ffa4506c7573048100a161")
    with pytest.raises(GoRejected, match="no struct name"):
        go_peer.roundtrip("headerplus", "Plus", nameless_pet)
    unknown_pet = bytes.fromhex("82ffa4506c75730482ffa343617400a161")
    with pytest.raises(GoRejected, match='unknown struct name "Cat"'):
        go_peer.roundtrip("headerplus", "Plus", unknown_pet)


#: A Deep field (zid, then value) in the other spelling's encoding: why Go rejects it.
UINT8_SPELLING_REJECTS = {
    "15c403010203": "U8s ([]uint8) as bin",
    "0393c4020102c4020102c4020102": "Grid rows ([2]uint8) as bin",
    "1694010203ff": "U8Arr ([4]uint8) holding a negative fixint",
    "099401020304": "Fixed ([4]byte) as an array",
}


@pytest.mark.parametrize("field_hex", list(UINT8_SPELLING_REJECTS), ids=list(UINT8_SPELLING_REJECTS.values()))
def test_go_and_strict_python_reject_uint8_containers_as_bin_and_byte_ones_as_arrays(
        go_peer: GoPeer, field_hex: str) -> None:
    deep = bytes.fromhex("82ffa444656570") + bytes.fromhex(field_hex)
    zid = int(field_hex[:2], 16)
    with pytest.raises(GoRejected, match=f"zid {zid}:"):
        go_peer.roundtrip("deep", "Deep", deep)
    with pytest.raises(zebrapack.DecodeError):
        golden_schema("deep").decode(deep, type="Deep", strict=True)


# Python -> Go -> Python


def encode(schema: zebrapack.Schema, value: Any, structnames: bool) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # S2.P is deprecated
        return schema.encode(value, structnames=structnames)


def python_reencoding(record: dict[str, Any]) -> tuple[Any, bytes]:
    """The golden record decoded by zebrapack, and encoded again as it was written."""
    schema = golden_schema(record["pkg"])
    value = schema.decode(golden_bytes(record), type=record["type"])
    return value, encode(schema, value, record["structnames_on_wire"])


@pytest.mark.parametrize("record", RECORDS, ids=record_id)
def test_go_reads_python_reencoding_of_golden_record_as_the_reference_did(
        go_peer: GoPeer, record: dict[str, Any]) -> None:
    value, written = python_reencoding(record)
    tree = read_by_go(go_peer, record, written)
    assert as_expected(tree) == as_expected(record["expect"])
    assert_go_types_are_the_references(record, tree)


@pytest.mark.parametrize("record", RECORDS, ids=record_id)
def test_golden_record_comes_back_from_go_through_python(go_peer: GoPeer, record: dict[str, Any]) -> None:
    value, written = python_reencoding(record)
    rewritten = go_peer.roundtrip(record["pkg"], record["type"], written)
    if record["byte_exact"]:
        assert rewritten == golden_bytes(record)
    same_go_value(golden_schema(record["pkg"]).decode(rewritten, type=record["type"]), value)


#: Whether each golden schema's writer puts the -1 struct name on the wire.
STRUCTNAMES = {"my": True, "my2": False, "deep": True, "headerplus": True}
PEER_TYPES = [(pkg, name) for pkg in PEER_SCHEMAS for name in sorted(golden_schema(pkg).structs)]
EXAMPLES = 60
ROUND_TRIP_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_STRATEGIES: dict[tuple[str, str], st.SearchStrategy[Any]] = {}


def values_of(pkg: str, name: str) -> st.SearchStrategy[Any]:
    if (pkg, name) not in _STRATEGIES:
        _STRATEGIES[pkg, name] = struct_values(golden_schema(pkg), name)
    return _STRATEGIES[pkg, name]


def assert_go_read_the_python_types(pkg: str, type_ref: TypeRef, value: Any, node: dict[str, Any],
                                    path: str = "$") -> None:
    """Go's typed tree `node` of `value` holds, in every interface, the Go type the
    Python value names (go_type_of)."""
    schema = golden_schema(pkg)
    kind = type_ref.kind
    if kind == Kind.INTF:
        assert_go_read_the_dynamic_types(value, node, path)
    elif kind == Kind.IDENT_IFACE:
        assert node.get("go") == (None if value is None else f"*{pkg}.{type(value).__name__}"), path
    elif value is None:  # a nil pointer or a zero time: no interface below
        return
    elif kind == Kind.STRUCT:
        for f in schema.structs[type_ref.name].wire_fields:
            assert f.type is not None
            assert_go_read_the_python_types(pkg, f.type, getattr(value, f.attr), node["f"][f.go_name],
                                            f"{path}.{f.go_name}")
    elif kind == Kind.POINTER:
        assert_go_read_the_python_types(pkg, type_ref.elem_type, value, node, path)
    elif kind in (Kind.SLICE, Kind.ARRAY) and node["t"] == "list":
        for index, (item, item_node) in enumerate(zip(value, node["v"], strict=True)):
            assert_go_read_the_python_types(pkg, type_ref.elem_type, item, item_node, f"{path}[{index}]")
    elif kind == Kind.MAP:
        entries = {key["v"]: item for key, item in node["v"]}
        for key, item in value.items():
            assert_go_read_the_python_types(pkg, type_ref.elem_type, item, entries[key], f"{path}[{key!r}]")


def assert_go_read_the_dynamic_types(value: Any, node: dict[str, Any], path: str) -> None:
    expected = go_type_of(value)
    if expected is None:
        assert node == {"t": "nil"}, path
        return
    assert node.get("go") == expected, f"{path}: Go read {node.get('go')} from {value!r}"
    if isinstance(value, list):
        for index, (item, item_node) in enumerate(zip(value, node["v"], strict=True)):
            assert_go_read_the_dynamic_types(item, item_node, f"{path}[{index}]")
    elif isinstance(value, dict):
        entries = {key["v"]: item for key, item in node["v"]}
        for key, item in value.items():
            assert_go_read_the_dynamic_types(item, entries[key], f"{path}[{key!r}]")


def python_go_python(peer: GoPeer, pkg: str, name: str, value: Any) -> None:
    """`value` written by zebrapack, read and written again by Go, read by zebrapack:
    it comes back as Go holds it, Go read the Go types it names, and Go's bytes are
    zebrapack's wherever no map has two or more entries."""
    schema, structnames = golden_schema(pkg), STRUCTNAMES[pkg]
    written = encode(schema, value, structnames)
    rewritten = peer.roundtrip(pkg, name, written)
    as_go = as_go_holds_it(schema, TypeRef(Kind.STRUCT, name), value)
    same_go_value(schema.decode(rewritten, type=name), as_go)
    if not has_map_of_two_or_more(value):
        assert rewritten == encode(schema, as_go, structnames)
    (tree,) = peer.dump(pkg, name, written)
    assert_go_read_the_python_types(pkg, TypeRef(Kind.STRUCT, name), value, tree)


@pytest.mark.parametrize(("pkg", "name"), PEER_TYPES, ids=[f"{pkg}/{name}" for pkg, name in PEER_TYPES])
@ROUND_TRIP_SETTINGS
@given(data=st.data())
def test_go_reads_and_rewrites_python_values_of_golden_types(go_peer: GoPeer, pkg: str, name: str,
                                                             data: st.DataObject) -> None:
    python_go_python(go_peer, pkg, name, data.draw(values_of(pkg, name), label=name))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_go_reads_every_go_type_python_puts_in_an_interface(go_peer: GoPeer, data: st.DataObject) -> None:
    python_go_python(go_peer, "my", "Sys", data.draw(values_of("my", "Sys"), label="Sys"))


#: A Python value of an interface{} -> the Go type Go reads it as, and its bytes.
CHOSEN_GO_TYPES = [
    (zebrapack.GoFloat32(1.5), "float32", "ca3fc00000"),
    (1.5, "float64", "cb3ff8000000000000"),
    (zebrapack.GoUint64(403), "uint64", "cd0193"),
    (403, "int64", "d10193"),
    (zebrapack.GoUint64(5), "int64", "05"),  # a positive fixint: Go reads an int64
    (2**64 - 1, "uint64", "cfffffffffffffffff"),
    (zebrapack.GoComplex64(1, 2), "complex64", "d7033f80000040000000"),
    (complex(1, 2), "complex128", "d8043ff00000000000004000000000000000"),
    (datetime(1970, 1, 1, 0, 0, 1, tzinfo=timezone.utc), "time.Time", "c70c05000000000000000100000000"),
    (zebrapack.GoTime(2**40, 5), "time.Time", "c70c050000010000000000" + "00000005"),
    (zebrapack.Ext(-1, bytes.fromhex("00000001")), "*msgp.RawExtension", "c704ff00000001"),
    ([zebrapack.GoFloat32(-0.0), zebrapack.GoUint64(200)], "[]interface {}", "92ca80000000ccc8"),
    ({"k": zebrapack.GoComplex64(0, -1)}, "map[string]interface {}", "81a16bd70300000000bf800000"),
]


@pytest.mark.parametrize(("value", "go_type", "value_hex"), CHOSEN_GO_TYPES,
                         ids=[f"{go_type}:{value_hex}" for _, go_type, value_hex in CHOSEN_GO_TYPES])
def test_python_value_chooses_the_go_type_go_reads(go_peer: GoPeer, value: Any, go_type: str,
                                                   value_hex: str) -> None:
    schema = golden_schema("my")
    written = schema.encode(schema.types.Sys(F=value))
    assert written == sys_record(value_hex)
    (tree,) = go_peer.dump("my", "Sys", written)
    assert tree["f"]["F"]["go"] == go_type
    assert_go_read_the_dynamic_types(value, tree["f"]["F"], "F")
    rewritten = go_peer.roundtrip("my", "Sys", written)
    assert rewritten == written
    same_go_value(schema.decode(rewritten, type="Sys").F, as_go_holds_it(schema, TypeRef(Kind.INTF), value))


#: Where zebrapack writes an interface{} value back otherwise than Go, on purpose
#: (docs/go-values.md, "Exts and maps inside interface{}"): it keeps a bin map key as bytes and
#: writes it as bin, where Go reads it as a string and writes a str. Go reads both
#: encodings as the same map[string]interface{}.
PYTHON_WRITES_OTHERWISE = {"81c4016b01": "81c4016b01"}
@pytest.mark.parametrize(("value_hex", "go_type", "written_hex"), [
    pytest.param(value, go_type, PYTHON_WRITES_OTHERWISE.get(value, written), id=value)
    for value, (go_type, written) in INTERFACE_FAMILIES.items()])
def test_python_reads_interface_value_as_go_and_writes_it_back_in_its_family(
        go_peer: GoPeer, value_hex: str, go_type: str, written_hex: str) -> None:
    schema = golden_schema("my")
    value = schema.decode(sys_record(value_hex), type="Sys", strict=True)
    assert go_type_named(value.F) == go_type
    written = schema.encode(value)
    assert written == sys_record(written_hex)
    rewritten_by_go = go_peer.roundtrip("my", "Sys", sys_record(value_hex))
    assert go_peer.dump("my", "Sys", written) == go_peer.dump("my", "Sys", rewritten_by_go)


@pytest.mark.parametrize("placed", [str, in_the_middle], ids=["ending_the_record", "in_the_middle"])
@pytest.mark.parametrize("value_hex", list(INTERFACE_REJECTS), ids=list(INTERFACE_REJECTS.values()))
def test_python_strict_reader_rejects_interface_value_go_rejects(go_peer: GoPeer, value_hex: str, placed: Any) -> None:
    record = sys_record(placed(value_hex))
    with pytest.raises(GoRejected):
        go_peer.roundtrip("my", "Sys", record)
    with pytest.raises(zebrapack.DecodeError):
        golden_schema("my").decode(record, type="Sys", strict=True)


@pytest.mark.parametrize(("when_hex", "written_hex"), [
    ("c70c050000000000000001ffffffff", "c70c0500000000000000003b9ac9ff"),
    ("c70c0500000000000000013b9aca00", "c70c05000000000000000200000000"),
], ids=["minus_one_nanosecond", "a_whole_second_of_nanoseconds"])
def test_go_and_python_normalize_a_time_field_nanoseconds_alike(go_peer: GoPeer, when_hex: str,
                                                                 written_hex: str) -> None:
    # Go reads the nanoseconds as a signed int32 and time.Unix normalizes them
    leaf = bytes.fromhex("82ffa44c65616603") + bytes.fromhex(when_hex)
    normalized = bytes.fromhex("82ffa44c65616603") + bytes.fromhex(written_hex)
    schema = golden_schema("deep")
    assert go_peer.roundtrip("deep", "Leaf", leaf) == normalized
    assert schema.encode(schema.decode(leaf, type="Leaf", strict=True)) == normalized
