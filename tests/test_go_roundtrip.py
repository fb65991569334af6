"""Python -> Go -> Python: generated values of every type the Go peer knows.

hypothesis draws values across each type's whole range: every integer width
to its limits, any unicode, NaN, infinities, -0.0, times with nanoseconds from
year 1 to 9999 (before 1970 and after 2262 included), nested and recursive
values, empty and large lists. zebrapack encodes a value, the peer decodes it
strictly and encodes it again, and zebrapack decodes Go's bytes: the value
must come back, and Go's bytes must be zebrapack's wherever no map has two or
more entries (Go writes map entries in random order).

The one known difference between the writers is spelled out in
``as_go_holds_it`` rather than hidden: Go's emptiness test for numbers is
``== 0``, so a Go writer leaves out a float or complex field holding -0.0,
which zebrapack writes (only +0.0 is empty). Go reads the -0.0 and writes
nothing, so the value comes back as +0.0.
"""

from __future__ import annotations

import dataclasses
import warnings
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from conftest import vector_schema
from go_peer import GoPeer, go_peer  # noqa: F401  (go_peer is a fixture)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import INTEGER_RANGES
from typed_json import same

import zebrapack
from zebrapack import Kind, TypeRef

EXAMPLES = 120
# Deep records take a while to generate on a slow CI machine: that is expected.
ROUND_TRIP_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
GO_ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
FIRST_NANOSECOND = (GO_ZERO_TIME - EPOCH) // _MICROSECOND * 1000
LAST_NANOSECOND = (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC) - EPOCH) // _MICROSECOND * 1000 + 999
#: Where nanoseconds since 1970 stop fitting an int64 (2262-04-11): Go's time
#: keeps seconds and nanoseconds apart, so times after it must work too.
INT64_NANOSECONDS_END = 2**63


def instant(nanoseconds: int) -> datetime:
    """The UTC time `nanoseconds` after 1970, as zebrapack decodes it (a Timestamp
    below the microsecond, else a datetime)."""
    microseconds, nanosecond = divmod(nanoseconds, 1000)
    moment = EPOCH + microseconds * _MICROSECOND
    return zebrapack.Timestamp.from_datetime(moment, nanosecond) if nanosecond else moment


TIMES = st.one_of(
    st.integers(FIRST_NANOSECOND, -1),
    st.integers(0, INT64_NANOSECONDS_END - 1),
    st.integers(INT64_NANOSECONDS_END, LAST_NANOSECOND),
).map(instant)
STRINGS = st.text(max_size=20) | st.text(min_size=100, max_size=300)  # str8 and str16 too
BINARIES = st.binary(max_size=20) | st.binary(min_size=256, max_size=300)  # bin16 too
# Ext codes 3, 4 and 5 are complex64, complex128 and time, and -1 the msgpack
# timestamp, which zebrapack reads as a time. Some payloads straddle 255 bytes,
# where the msgp runtime (and zebrapack) switch from ext8 to ext16.
EXTS = st.builds(zebrapack.Ext, st.integers(-128, 127).filter(lambda code: code not in (-1, 3, 4, 5)),
                 st.binary(max_size=64) | st.binary(min_size=253, max_size=257))
#: What an interface{} holds and Go writes back as it read it: no struct
#: (Go's interface{} reader takes only string-keyed maps), no float32 (Python has none).
DYNAMIC_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | STRINGS | BINARIES
    | TIMES | st.builds(complex, st.floats(), st.floats()) | EXTS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
#: The strategy of each kind that holds no other type.
SCALARS: dict[Kind, st.SearchStrategy[Any]] = {
    **{kind: st.integers(low, high) for kind, (low, high) in INTEGER_RANGES.items()},
    Kind.STRING: STRINGS, Kind.BYTES: BINARIES, Kind.BOOL: st.booleans(),
    Kind.FLOAT32: st.floats(width=32), Kind.FLOAT64: st.floats(),
    Kind.COMPLEX64: st.builds(complex, st.floats(width=32), st.floats(width=32)),
    Kind.COMPLEX128: st.builds(complex, st.floats(), st.floats()),
    Kind.INTF: DYNAMIC_VALUES, Kind.TIME: TIMES,
}
#: Nesting of struct values; at the bottom, recursive types get empty slices and nil pointers.
STRUCT_DEPTH = 3


def struct_values(schema: zebrapack.Schema, name: str, depth: int = STRUCT_DEPTH) -> st.SearchStrategy[Any]:
    fields = {f.attr: type_values(schema, f.type, depth, field_level=True)
              for f in schema.structs[name].wire_fields if f.type is not None}
    return st.builds(schema.types[name], **fields)


def type_values(schema: zebrapack.Schema, type_ref: TypeRef, depth: int,
                field_level: bool = False) -> st.SearchStrategy[Any]:
    kind = type_ref.kind
    if kind == Kind.TIME and field_level:
        return st.none() | TIMES  # a time field holds None for Go's zero time
    if kind in SCALARS:
        return SCALARS[kind]
    if kind == Kind.STRUCT:
        return struct_values(schema, type_ref.name, depth - 1)
    if kind == Kind.ARRAY:
        if type_ref.elem_type.kind == Kind.BYTE:      # [N]uint8 is an array of integers
            return st.binary(min_size=type_ref.length, max_size=type_ref.length)
        elems = type_values(schema, type_ref.elem_type, depth)
        return st.lists(elems, min_size=type_ref.length, max_size=type_ref.length)
    if depth <= 0:  # only recursive types get this deep
        return {Kind.POINTER: st.none(), Kind.SLICE: st.builds(list), Kind.MAP: st.builds(dict)}[kind]
    if kind == Kind.POINTER:
        return st.none() | type_values(schema, type_ref.elem_type, depth)
    if kind == Kind.SLICE:
        elems = type_values(schema, type_ref.elem_type, depth)
        if type_ref.elem_type.kind in SCALARS:  # long ones too, for the array16 header
            return st.lists(elems, max_size=5) | st.lists(elems, min_size=16, max_size=20)
        return st.lists(elems, max_size=3)
    if kind == Kind.MAP:
        assert type_ref.key is not None
        keys = type_values(schema, type_ref.key, depth)
        items = type_values(schema, type_ref.elem_type, depth)
        # one entry at most keeps the record byte-exact; more exercise Go's random order
        return st.dictionaries(keys, items, max_size=1) | st.dictionaries(keys, items, min_size=2, max_size=4)
    raise AssertionError(f"no strategy for {type_ref}")


def as_go_holds_it(schema: zebrapack.Schema, type_ref: TypeRef, value: Any, field_level: bool = False) -> Any:
    """The value a Go program reading `value` writes back: float and complex fields
    holding -0.0 are empty to Go (`== 0`) and come back +0.0; a time field at Go's
    zero instant is empty to both writers and comes back None."""
    kind = type_ref.kind
    if field_level and kind in (Kind.FLOAT32, Kind.FLOAT64) and value == 0:
        return 0.0
    if field_level and kind in (Kind.COMPLEX64, Kind.COMPLEX128) and value == 0:
        return 0j
    if field_level and kind == Kind.TIME and value == GO_ZERO_TIME:
        return None
    if value is None or isinstance(value, bytes):
        return value
    if kind == Kind.STRUCT:
        return dataclasses.replace(value, **{
            f.attr: as_go_holds_it(schema, f.type, getattr(value, f.attr), field_level=True)
            for f in schema.structs[type_ref.name].wire_fields if f.type is not None})
    if kind == Kind.POINTER:
        return as_go_holds_it(schema, type_ref.elem_type, value)
    if kind in (Kind.SLICE, Kind.ARRAY):
        return [as_go_holds_it(schema, type_ref.elem_type, item) for item in value]
    if kind == Kind.MAP:
        return {key: as_go_holds_it(schema, type_ref.elem_type, item) for key, item in value.items()}
    return value


def encode(schema: zebrapack.Schema, value: Any, structnames: bool) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Compound.Old is deprecated
        return schema.encode(value, structnames=structnames)


def has_map_of_two_or_more(value: Any) -> bool:
    if isinstance(value, dict):
        return len(value) >= 2 or any(has_map_of_two_or_more(item) for item in value.values())
    if isinstance(value, list):
        return any(has_map_of_two_or_more(item) for item in value)
    if dataclasses.is_dataclass(value):
        return any(has_map_of_two_or_more(getattr(value, f.name)) for f in dataclasses.fields(value))
    return False


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
    same(schema.decode(rewritten, type=name), as_go)
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
    same(read_schema.decode(rewritten, type="Person"), as_read)
    assert rewritten == read_schema.encode(as_read)
    # and what Go wrote with its version, Python reads with the other one
    same(written_schema.decode(rewritten, type="Person"), in_version(as_read, read_schema, written_schema, "Person"))


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
