"""The Go peer against golden set 2 (tests/golden2), Go -> Go and Python -> Go -> Python,
and msgp.Raw / msgp.Number (tests/schemas/rawnum.go) Python -> Go -> Python.

The peer mirrors ``acct`` (named Go types, zebrapack mode: tests/go/acct) and every ``def``
type golden set 2 has records of (the reference's ``_generated/def.go`` generated with
``-msgp``: tests/go/def, string keys, no struct names, inlined structs written with every
field, extensions with the ext8 header of the reference's MarshalMsg). Its strict reader
must read each golden record as the reference did (its typed tree is the manifest's
``expect``) and its writer write the reference's bytes where the manifest says
``byte_exact``. zebrapack's encoding of each record, and of hypothesis values of every
peer type, must read in Go as the value it holds and come back the same.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from support.vectors import TESTS
from support.go_peer import GoPeer, go_peer  # noqa: F401  (go_peer is a fixture)
from support.go_values import (as_expected, as_go_holds_it, expected_go_type, has_map_of_two_or_more, held_in_interfaces,
                       same_go_value, struct_values)
from support.golden import GOLDEN2_RECORDS, encode_like, golden_bytes, golden_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import Kind, TypeRef

BYTE_EXACT = [record for record in GOLDEN2_RECORDS if record["byte_exact"]]
#: The one type of the msgp.RawExtension fields of each schema (Go's generated reader
#: reads only the type already in the field: the peer is given it, as the reference was).
EXT_TYPES = {"def": 9}
#: The def types the peer mirrors: those with golden records, and the ones they hold.
DEF_TYPES = ("X", "Fixed", "PreviouslyAnon", "SimpleTestType", "AliasContainer", "FastAlias", "TestHidden",
             "Embedded", "Things", "TestObj", "TestOmitEmpty", "TopNester", "Rocky", "Bunny", "Moose",
             "OmitEmptyInside1", "OmitEmptyInside2", "OmitSimple", "Wrapper", "Tree")
RAWNUM = zebrapack.schema_from_go(TESTS / "schemas" / "rawnum.go")


def record_id(record: dict[str, Any]) -> str:
    return str(record["id"])


def read_by_go(peer: GoPeer, record: dict[str, Any], data: bytes) -> dict[str, Any]:
    (tree,) = peer.dump(record["pkg"], record["type"], data)
    return tree


def assert_read_as_the_reference_did(record: dict[str, Any], tree: dict[str, Any]) -> None:
    assert as_expected(tree) == as_expected(record["expect"])
    for path, go_type, node in held_in_interfaces(tree):
        assert go_type == expected_go_type(record["pkg"], node), f"{record['id']}{path}"


@pytest.mark.parametrize("record", GOLDEN2_RECORDS, ids=record_id)
def test_go_peer_reads_golden2_record_as_the_reference_did(go_peer: GoPeer, record: dict[str, Any]) -> None:
    assert_read_as_the_reference_did(record, read_by_go(go_peer, record, golden_bytes(record)))


@pytest.mark.parametrize("record", GOLDEN2_RECORDS, ids=record_id)
def test_go_peer_rewrites_golden2_record_as_the_reference_wrote_it(go_peer: GoPeer, record: dict[str, Any]) -> None:
    rewritten = go_peer.roundtrip(record["pkg"], record["type"], golden_bytes(record))
    if record["byte_exact"]:
        assert rewritten.hex() == golden_bytes(record).hex()
    assert_read_as_the_reference_did(record, read_by_go(go_peer, record, rewritten))


@pytest.mark.parametrize("record", GOLDEN2_RECORDS, ids=record_id)
def test_go_reads_python_reencoding_of_golden2_record_and_writes_it_back(go_peer: GoPeer,
                                                                          record: dict[str, Any]) -> None:
    schema = golden_schema(record)
    value = schema.decode(golden_bytes(record), type=record["type"], strict=True)
    written = encode_like(schema, value, record)
    assert_read_as_the_reference_did(record, read_by_go(go_peer, record, written))
    rewritten = go_peer.roundtrip(record["pkg"], record["type"], written)
    if record["byte_exact"]:
        assert rewritten.hex() == golden_bytes(record).hex()
    same_go_value(schema.decode(rewritten, type=record["type"], strict=True), value)


# Python -> Go -> Python on hypothesis values of every type the peer has

def golden2_schema(pkg: str) -> zebrapack.Schema:
    return golden_schema(next(record for record in GOLDEN2_RECORDS if record["pkg"] == pkg))


PEER_TYPES = [("acct", name, "zebrapack") for name in sorted(golden2_schema("acct").structs)] + \
    [("def", name, "msgp") for name in DEF_TYPES]
_STRATEGIES: dict[tuple[str, str], st.SearchStrategy[Any]] = {}


def values_of(schema: zebrapack.Schema, pkg: str, name: str) -> st.SearchStrategy[Any]:
    if (pkg, name) not in _STRATEGIES:
        _STRATEGIES[pkg, name] = struct_values(schema, name, ext_type=EXT_TYPES.get(pkg))
    return _STRATEGIES[pkg, name]


def python_go_python(peer: GoPeer, schema: zebrapack.Schema, pkg: str, name: str, value: Any, mode: str) -> None:
    """`value` written by zebrapack, read and written again by Go, read by zebrapack: it
    comes back as Go holds it, in Go's bytes where no map has two or more entries."""
    msgp = mode == "msgp"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # Account.LegacyID is deprecated
        written = schema.encode(value, mode=mode)
        rewritten = peer.roundtrip(pkg, name, written)
        as_go = as_go_holds_it(schema, TypeRef(Kind.STRUCT, name), value, msgp=msgp, ext_type=EXT_TYPES.get(pkg))
        same_go_value(schema.decode(rewritten, type=name, strict=True), as_go)
        if not has_map_of_two_or_more(value):
            assert rewritten.hex() == schema.encode(as_go, mode=mode).hex()


@pytest.mark.parametrize(("pkg", "name", "mode"), PEER_TYPES, ids=[f"{pkg}/{name}" for pkg, name, _ in PEER_TYPES])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_go_reads_and_rewrites_python_values_of_golden2_types(go_peer: GoPeer, pkg: str, name: str, mode: str,
                                                              data: st.DataObject) -> None:
    schema = golden2_schema(pkg)
    python_go_python(go_peer, schema, pkg, name, data.draw(values_of(schema, pkg, name), label=name), mode)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_go_reads_and_rewrites_raw_and_number_values(go_peer: GoPeer, data: st.DataObject) -> None:
    value = data.draw(values_of(RAWNUM, "rawnum", "Holder"), label="Holder")
    python_go_python(go_peer, RAWNUM, "rawnum", "Holder", value, "zebrapack")
    (tree,) = go_peer.dump("rawnum", "Holder", RAWNUM.encode(value))
    numbers = [(value.Num, tree["f"]["Num"])] + list(zip(value.Nums, tree["f"]["Nums"]["v"], strict=True))
    for number, node in numbers:
        assert node["t"] == number_family(number), (number, node)


def number_family(number: int | float) -> str:
    """The typed-tree node Go's msgp.Number reads zebrapack's encoding of a number as: its
    wire family, which the Python type chooses (a GoUint64 below 128 is a positive fixint)."""
    if isinstance(number, zebrapack.GoFloat32):
        return "f32"
    if isinstance(number, float):
        return "f64"
    return "uint" if isinstance(number, zebrapack.GoUint64) and number >= 128 or number > 2**63 - 1 else "int"


#: A Holder with the given msgp.Number (zid 1) after its Raw (zid 0, nil), as zebrapack writes it.
def holder_with(number_hex: str) -> bytes:
    return bytes.fromhex("83ffa6486f6c64657200c001") + bytes.fromhex(number_hex)


@pytest.mark.parametrize(("number", "number_hex", "node"), [
    (5, "05", {"t": "int", "v": 5}),
    (-5, "fb", {"t": "int", "v": -5}),
    (zebrapack.GoUint64(200), "ccc8", {"t": "uint", "v": 200}),
    (2**64 - 1, "cfffffffffffffffff", {"t": "uint", "v": 2**64 - 1}),
    (zebrapack.GoFloat32(1.5), "ca3fc00000", {"t": "f32", "bits": "3fc00000"}),
    (-0.0, "cb8000000000000000", {"t": "f64", "bits": "8000000000000000"}),
], ids=repr)
def test_go_reads_a_number_in_the_family_python_wrote(go_peer: GoPeer, number: Any, number_hex: str,
                                                      node: dict[str, Any]) -> None:
    written = RAWNUM.encode(RAWNUM.types.Holder(Num=number))
    assert written == holder_with(number_hex)
    (tree,) = go_peer.dump("rawnum", "Holder", written)
    assert tree["f"]["Num"] == node
    assert go_peer.roundtrip("rawnum", "Holder", written) == written


def test_go_and_strict_python_reject_a_nil_number(go_peer: GoPeer) -> None:
    from support.go_peer import GoRejected
    record = holder_with("c0")
    with pytest.raises(GoRejected):
        go_peer.roundtrip("rawnum", "Holder", record)
    with pytest.raises(zebrapack.DecodeError, match=r"Holder\.Num: expected msgp\.Number \(strict\), found nil"):
        RAWNUM.decode(record, strict=True)
    assert RAWNUM.decode(record).Num == 0      # lenient reading: the zero value, as for any nil
