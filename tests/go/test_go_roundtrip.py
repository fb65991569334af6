"""Python -> Go -> Python: generated values of every type of the vector schemas the Go peer knows.

hypothesis draws values across each type's whole range (tests/go_values.py).
zebrapack encodes a value, the peer decodes it strictly and encodes it again,
and zebrapack decodes Go's bytes: the value must come back, and Go's bytes must
be zebrapack's wherever no map has two or more entries (Go writes map entries
in random order).

The known differences between the writers are spelled out in
``as_go_holds_it`` rather than hidden: Go's emptiness test for numbers is
``== 0``, so a Go writer leaves out a float or complex field holding -0.0,
which zebrapack writes (only +0.0 is empty): Go reads the -0.0 and writes
nothing, so the value comes back as +0.0. And Go reads an interface{} number
by its wire family: a ``GoUint64`` below 128 is a positive fixint, which Go
reads as an int64.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from support.vectors import vector_schema
from support.go_peer import GoPeer, go_peer  # noqa: F401  (go_peer is a fixture)
from support.go_values import as_go_holds_it, has_map_of_two_or_more, same_go_value, struct_values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import Kind, TypeRef

EXAMPLES = 120
# Deep records take a while to generate on a slow CI machine: that is expected.
ROUND_TRIP_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def encode(schema: zebrapack.Schema, value: Any, structnames: bool) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Compound.Old is deprecated
        return schema.encode(value, structnames=structnames)


ZP_TYPES = ("A", "Prims", "Inner", "Compound", "Tree")
_STRATEGIES: dict[tuple[str, str], st.SearchStrategy[Any]] = {}


def values_of(schema_file: str, name: str) -> st.SearchStrategy[Any]:
    """Values of a struct of a vector schema (instances of that schema's classes)."""
    if (schema_file, name) not in _STRATEGIES:
        _STRATEGIES[schema_file, name] = struct_values(vector_schema(schema_file), name)
    return _STRATEGIES[schema_file, name]


@pytest.mark.parametrize("structnames", [True, False], ids=["structnames", "no_structnames"])
@pytest.mark.parametrize("name", ZP_TYPES)
@ROUND_TRIP_SETTINGS
@given(data=st.data())
def test_go_reads_and_rewrites_python_values(go_peer: GoPeer, name: str, structnames: bool,
                                             data: st.DataObject) -> None:
    # zpn.z is zp.z generated without struct names on the wire
    schema_file, peer_schema = ("zp.z", "zp") if structnames else ("zpn.z", "zpn")
    schema = vector_schema(schema_file)
    value = data.draw(values_of(schema_file, name), label=name)
    rewritten = go_peer.roundtrip(peer_schema, name, encode(schema, value, structnames))
    as_go = as_go_holds_it(schema, TypeRef(Kind.STRUCT, name), value)
    same_go_value(schema.decode(rewritten, type=name), as_go)
    if not has_map_of_two_or_more(value):
        assert rewritten == encode(schema, as_go, structnames)


def in_version(value: Any, source: zebrapack.Schema, target: zebrapack.Schema, name: str) -> Any:
    """A record of one schema version as a reader of another sees it: the fields
    both versions have (same zid, same name) kept, the others zero."""
    known = {(f.zid, f.go_name): f.attr for f in target.structs[name].wire_fields}
    return target.types[name](**{known[f.zid, f.go_name]: getattr(value, f.attr)
                                 for f in source.structs[name].wire_fields if (f.zid, f.go_name) in known})


@pytest.mark.parametrize(("writer", "reader"), [("evo2", "evo1"), ("evo1", "evo2")],
                         ids=["python_evo2_go_evo1", "python_evo1_go_evo2"])
@ROUND_TRIP_SETTINGS
@given(data=st.data())
def test_go_reads_person_written_with_the_other_version(go_peer: GoPeer, writer: str, reader: str,
                                                        data: st.DataObject) -> None:
    written_schema, read_schema = vector_schema(f"{writer}.z"), vector_schema(f"{reader}.z")
    written = data.draw(values_of(f"{writer}.z", "Person"))
    rewritten = go_peer.roundtrip(reader, "Person", written_schema.encode(written))
    as_read = in_version(written, written_schema, read_schema, "Person")
    same_go_value(read_schema.decode(rewritten, type="Person"), as_read)
    assert rewritten == read_schema.encode(as_read)
    # and what Go wrote with its version, Python reads with the other one
    same_go_value(written_schema.decode(rewritten, type="Person"),
                  in_version(as_read, read_schema, written_schema, "Person"))


@pytest.mark.parametrize("python_names", [True, False], ids=["python_structnames", "python_no_structnames"])
@pytest.mark.parametrize("go_names", [True, False], ids=["go_structnames", "go_no_structnames"])
def test_go_reads_records_with_or_without_struct_names(go_peer: GoPeer, python_names: bool, go_names: bool) -> None:
    schema = vector_schema("zp.z")
    nested = schema.types.Compound(Nested=schema.types.Inner(X=-7, Y="in"), Ptr=schema.types.Inner(X=1),
                                   Inners=[schema.types.Inner(Y="a")], MInner={"k": None})
    rewritten = go_peer.roundtrip("zp" if go_names else "zpn", "Compound", encode(schema, nested, python_names))
    assert rewritten == encode(schema, nested, go_names)


def test_go_and_zebrapack_write_a_255_byte_ext_with_an_ext16_header(go_peer: GoPeer) -> None:
    # The msgp runtime picks ext8 only below 255 bytes (`l < math.MaxUint8`); zebrapack does the same.
    zp = vector_schema("zp.z")
    value = zp.types.Prims(Any=zebrapack.Ext(7, b"x" * 255))
    encoded = encode(zp, value, structnames=True)
    assert bytes.fromhex("13c800ff07") in encoded
    assert go_peer.roundtrip("zp", "Prims", encoded) == encoded
