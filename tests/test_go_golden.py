"""The Go peer against the golden records of the reference (tests/golden), Go -> Go.

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
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import TESTS
from go_peer import GoPeer, GoRejected, go_peer  # noqa: F401  (go_peer is a fixture)

GOLDEN = TESTS / "golden"
GOLDEN_RECORDS: list[dict[str, Any]] = json.loads((GOLDEN / "manifest.json").read_text())["records"]
#: The golden schemas the peer has Go structs for (every struct of each).
PEER_SCHEMAS = ("my", "my2", "deep", "headerplus")
RECORDS = [record for record in GOLDEN_RECORDS if record["pkg"] in PEER_SCHEMAS]
BYTE_EXACT = [record for record in RECORDS if record["byte_exact"]]
INEXACT = [record for record in RECORDS if not record["byte_exact"]]

#: The Go type (fmt's %T) of a value of each typed-tree node held in an interface.
GO_TYPE_OF_NODE = {
    "int": "int64", "uint": "uint64", "f32": "float32", "f64": "float64",
    "c64": "complex64", "c128": "complex128", "str": "string", "bool": "bool", "bytes": "[]uint8",
    "time": "time.Time", "ext": "*msgp.RawExtension",
    "list": "[]interface {}", "map": "map[string]interface {}",
}


def record_id(record: dict[str, Any]) -> str:
    return str(record["id"])


def golden_bytes(record: dict[str, Any]) -> bytes:
    return (GOLDEN / record["file"]).read_bytes()


def as_expected(tree: Any) -> Any:
    """A typed tree in the manifest's form: without the peer's Go types, and with
    map entries sorted by the key's JSON (the peer gives Go's random order)."""
    if isinstance(tree, list):
        return [as_expected(item) for item in tree]
    if not isinstance(tree, dict):
        return tree
    node = {key: as_expected(value) for key, value in tree.items() if key != "go"}
    if node.get("t") == "map":
        node["v"] = sorted(node["v"], key=lambda entry: json.dumps(entry[0], sort_keys=True))
    return node


def held_in_interfaces(tree: Any, path: str = "") -> list[tuple[str, str, dict[str, Any]]]:
    """(path, Go type, node) of every value the peer found in an interface."""
    found = []
    if isinstance(tree, dict):
        if "go" in tree:
            found.append((path, tree["go"], tree))
        for key, value in tree.items():
            found += held_in_interfaces(value, f"{path}.{key}")
    elif isinstance(tree, list):
        for index, item in enumerate(tree):
            found += held_in_interfaces(item, f"{path}[{index}]")
    return found


def expected_go_type(pkg: str, node: dict[str, Any]) -> str:
    if node["t"] == "struct":  # an interface-typed field holds a pointer to its struct
        return f"*{pkg}.{node['name']}"
    return GO_TYPE_OF_NODE[node["t"]]


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
    "d6ff00000001": ("*msgp.RawExtension", "d6ff00000001"),  # the msgpack timestamp: a raw ext to Go
    "d40701": ("*msgp.RawExtension", "d40701"),
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


@pytest.mark.parametrize("value_hex", list(INTERFACE_REJECTS), ids=list(INTERFACE_REJECTS.values()))
def test_go_rejects_interface_value_the_reference_rejects(go_peer: GoPeer, value_hex: str) -> None:
    with pytest.raises(GoRejected):
        go_peer.roundtrip("my", "Sys", sys_record(value_hex))


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


@pytest.mark.parametrize(("field_hex", "why"), [
    ("15c403010203", "U8s ([]uint8) as bin"),
    ("0393c4020102c4020102c4020102", "Grid rows ([2]uint8) as bin"),
    ("1694010203ff", "U8Arr ([4]uint8) holding a negative fixint"),
    ("099401020304", "Fixed ([4]byte) as an array"),
])
def test_go_rejects_uint8_containers_as_bin_and_byte_ones_as_arrays(go_peer: GoPeer, field_hex: str, why: str) -> None:
    deep = bytes.fromhex("82ffa444656570") + bytes.fromhex(field_hex)
    with pytest.raises(GoRejected):
        go_peer.roundtrip("deep", "Deep", deep)
