"""Values for the Go round trips: hypothesis strategies of a schema's structs, and
the value a Go program gives back after reading one (tests/test_go_*.py).

The strategies draw across each type's whole range: every integer width to
its limits, any unicode, NaN, infinities, -0.0, times with nanoseconds from
year 1 to 9999 (before 1970 and after 2262 included) and Go times beyond what
a ``datetime`` holds (``GoTime``), nested and recursive values, empty and long
lists. ``interface{}`` values hold every Go dynamic type a Go reader gives
back, the ones Python users choose with ``GoFloat32``, ``GoUint64`` and
``GoComplex64`` included, and the msgpack timestamp (ext -1), which Go keeps
as a raw extension. ``msgp.Number`` values are numbers of those types, ``msgp.Raw``
values the msgpack bytes of JSON-like values (or b"", nil).

``as_expected`` and ``held_in_interfaces`` read the peer's typed trees (tests/go/typed).
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone
from typing import Any

import msgpack
from hypothesis import strategies as st
from support.strategies import INTEGER_RANGES
from support.expected_values import same

import zebrapack
from zebrapack import Kind, TypeRef

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
GO_ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
FIRST_NANOSECOND = (GO_ZERO_TIME - EPOCH) // _MICROSECOND * 1000
LAST_NANOSECOND = (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC) - EPOCH) // _MICROSECOND * 1000 + 999
#: Where nanoseconds since 1970 stop fitting an int64 (2262-04-11): Go's time
#: keeps seconds and nanoseconds apart, so times after it must work too.
INT64_NANOSECONDS_END = 2**63
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: Unix seconds of the first and the last second a datetime holds (years 1 and 9999).
DATETIME_FIRST_SECOND = (GO_ZERO_TIME - EPOCH) // timedelta(seconds=1)
DATETIME_LAST_SECOND = (datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC) - EPOCH) // timedelta(seconds=1)


def instant(nanoseconds: int) -> datetime:
    """The UTC time `nanoseconds` after 1970, as zebrapack decodes it (a Timestamp
    below the microsecond, else a datetime)."""
    microseconds, nanosecond = divmod(nanoseconds, 1000)
    moment = EPOCH + microseconds * _MICROSECOND
    return zebrapack.Timestamp.from_datetime(moment, nanosecond) if nanosecond else moment


DATETIMES = st.one_of(
    st.integers(FIRST_NANOSECOND, -1),
    st.integers(0, INT64_NANOSECONDS_END - 1),
    st.integers(INT64_NANOSECONDS_END, LAST_NANOSECOND),
).map(instant)
#: Valid Go times a datetime cannot hold: any int64 of seconds outside years 1-9999.
GO_TIMES = st.builds(
    zebrapack.GoTime,
    st.integers(INT64_MIN, DATETIME_FIRST_SECOND - 1) | st.integers(DATETIME_LAST_SECOND + 1, INT64_MAX),
    st.integers(0, 999_999_999),
)
TIMES = DATETIMES | GO_TIMES
STRINGS = st.text(max_size=20) | st.text(min_size=100, max_size=300)  # str8 and str16 too
BINARIES = st.binary(max_size=20) | st.binary(min_size=256, max_size=300)  # bin16 too
# Ext codes 3, 4 and 5 are complex64, complex128 and time. Some payloads
# straddle 255 bytes, where the msgp runtime (and zebrapack) switch from ext8
# to ext16. Ext -1, the msgpack timestamp, is a raw extension to Go.
EXTS = st.builds(zebrapack.Ext, st.integers(-128, 127).filter(lambda code: code not in (3, 4, 5)),
                 st.binary(max_size=64) | st.binary(min_size=253, max_size=257))
#: Numbers of the Go types that plain Python numbers do not name.
GO_NUMBERS = (
    st.builds(zebrapack.GoFloat32, st.floats(width=32))
    | st.builds(zebrapack.GoUint64, st.integers(0, 2**64 - 1))
    | st.builds(zebrapack.GoComplex64, st.floats(width=32), st.floats(width=32))
)
#: What an interface{} holds and Go writes back as it read it: no struct (Go's
#: interface{} reader takes only string-keyed maps).
DYNAMIC_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(INT64_MIN, 2**64 - 1) | st.floats() | GO_NUMBERS
    | STRINGS | BINARIES | TIMES | st.builds(complex, st.floats(), st.floats()) | EXTS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
#: msgp.Number: a number of any of the Go types an interface{} number has (not complex).
NUMBERS = st.integers(INT64_MIN, 2**64 - 1) | st.floats() | st.builds(zebrapack.GoFloat32, st.floats(width=32)) \
    | st.builds(zebrapack.GoUint64, st.integers(0, 2**64 - 1))
#: msgp.Raw: the bytes of one msgpack value (nil among them), or b"" (nil too).
RAWS = st.just(b"") | st.recursive(
    st.none() | st.booleans() | st.integers(INT64_MIN, 2**64 - 1) | st.floats() | STRINGS | BINARIES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
).map(lambda value: msgpack.packb(value, use_bin_type=True))
#: The strategy of each kind that holds no other type.
SCALARS: dict[Kind, st.SearchStrategy[Any]] = {
    **{kind: st.integers(low, high) for kind, (low, high) in INTEGER_RANGES.items()},
    Kind.STRING: STRINGS, Kind.BYTES: BINARIES, Kind.BOOL: st.booleans(),
    Kind.FLOAT32: st.floats(width=32), Kind.FLOAT64: st.floats(),
    Kind.COMPLEX64: st.builds(complex, st.floats(width=32), st.floats(width=32)),
    Kind.COMPLEX128: st.builds(complex, st.floats(), st.floats()),
    Kind.INTF: DYNAMIC_VALUES, Kind.TIME: TIMES, Kind.NUMBER: NUMBERS, Kind.RAW: RAWS,
}
#: The structs that implement each named interface of the peer's schemas
#: (the schema names the interface, Go's source says who implements it).
IMPLEMENTATIONS = {"Familiar": ("Dog", "Owl")}
#: Nesting of struct values; at the bottom, recursive types get empty slices and nil pointers.
STRUCT_DEPTH = 3


#: A struct with more fields than this (golden Deep has 25 containers) gets a few
#: of them set per example, the others zero: drawing every one overruns
#: hypothesis's budget of random data in most examples.
SPARSE_ABOVE = 20
SPARSE_FIELDS = 8


def struct_values(schema: zebrapack.Schema, name: str, depth: int = STRUCT_DEPTH,
                  ext_type: int | None = None) -> st.SearchStrategy[Any]:
    """Values of a struct; ``ext_type``: the one type its msgp.RawExtension fields hold (Go's
    generated reader reads only the type already in the field), else any."""
    fields = {f.attr: type_values(schema, f.type, depth, field_level=True, ext_type=ext_type)
              for f in schema.structs[name].wire_fields if f.type is not None}
    if len(fields) > SPARSE_ABOVE:
        return _some_fields(schema.types[name], fields)
    return st.builds(schema.types[name], **fields)


@st.composite
def _some_fields(draw: st.DrawFn, cls: type, fields: dict[str, st.SearchStrategy[Any]]) -> Any:
    chosen = draw(st.sets(st.sampled_from(sorted(fields)), max_size=SPARSE_FIELDS))
    return cls(**{attr: draw(fields[attr], label=attr) for attr in sorted(chosen)})


def type_values(schema: zebrapack.Schema, type_ref: TypeRef, depth: int, field_level: bool = False,
                ext_type: int | None = None) -> st.SearchStrategy[Any]:
    kind = type_ref.kind
    if kind == Kind.TIME and field_level:
        return st.none() | TIMES  # a time field holds None for Go's zero time
    if kind in SCALARS:
        return SCALARS[kind]
    if kind == Kind.EXT:
        return st.none() | (EXTS if ext_type is None else st.builds(zebrapack.Ext, st.just(ext_type), EXTS.map(
            lambda ext: ext.data)))
    if kind == Kind.STRUCT:
        return struct_values(schema, type_ref.name, depth - 1, ext_type)
    if kind == Kind.IDENT_IFACE:
        # Go's writer cannot write a nil element of a []Familiar (it calls a method on it)
        implementations = st.one_of([struct_values(schema, name, depth - 1, ext_type)
                                     for name in IMPLEMENTATIONS[type_ref.name]])
        return st.none() | implementations if field_level else implementations
    if kind == Kind.ARRAY:
        if type_ref.elem_type.kind == Kind.BYTE:  # [N]byte is bin; [N]uint8 a list of integers
            return st.binary(min_size=type_ref.length, max_size=type_ref.length)
        elems = type_values(schema, type_ref.elem_type, depth, ext_type=ext_type)
        return st.lists(elems, min_size=type_ref.length, max_size=type_ref.length)
    if depth <= 0:  # only recursive types get this deep
        return {Kind.POINTER: st.none(), Kind.SLICE: st.builds(list), Kind.MAP: st.builds(dict)}[kind]
    if kind == Kind.POINTER:
        return st.none() | type_values(schema, type_ref.elem_type, depth, ext_type=ext_type)
    if kind == Kind.SLICE:
        elems = type_values(schema, type_ref.elem_type, depth, ext_type=ext_type)
        if type_ref.elem_type.kind in SCALARS:  # long ones too, for the array16 header
            return st.lists(elems, max_size=5) | st.lists(elems, min_size=16, max_size=20)
        return st.lists(elems, max_size=3)
    if kind == Kind.MAP:
        assert type_ref.key is not None
        keys = type_values(schema, type_ref.key, depth)
        items = type_values(schema, type_ref.elem_type, depth, ext_type=ext_type)
        # one entry at most keeps the record byte-exact; more exercise Go's random order
        return st.dictionaries(keys, items, max_size=1) | st.dictionaries(keys, items, min_size=2, max_size=4)
    raise AssertionError(f"no strategy for {type_ref}")


def as_go_holds_it(schema: zebrapack.Schema, type_ref: TypeRef, value: Any, field_level: bool = False, *,
                   drops_zero: bool = True, msgp: bool = False, ext_type: int | None = None) -> Any:
    """The value a Go program reading `value` writes back: float and complex fields
    holding -0.0 are empty to Go (`== 0`) and come back +0.0 where Go leaves empty
    fields out (``drops_zero``: every field in zebrapack mode; in msgp mode, ``msgp``,
    the omitempty ones of a struct not inlined); a time field at Go's zero instant
    comes back None; interface{} values and msgp.Numbers come back in the Go type
    their wire family gives them (see `as_go_reads_it`); a msgp.Raw holding nil
    comes back empty; a nil extension field comes back an empty one of its type."""
    kind = type_ref.kind
    if field_level and drops_zero and kind in (Kind.FLOAT32, Kind.FLOAT64) and value == 0:
        return 0.0
    if field_level and drops_zero and kind in (Kind.COMPLEX64, Kind.COMPLEX128) and value == 0:
        return 0j
    if field_level and kind == Kind.TIME and value == GO_ZERO_TIME:
        return None
    if kind in (Kind.INTF, Kind.NUMBER):
        return as_go_reads_it(value)
    if kind == Kind.RAW:
        return b"" if value == b"\xc0" else value
    if kind == Kind.EXT and value is None and ext_type is not None:
        return zebrapack.Ext(ext_type, b"")
    if value is None or isinstance(value, bytes):
        return value
    if kind == Kind.STRUCT:
        return dataclasses.replace(value, **{
            f.attr: as_go_holds_it(schema, f.type, getattr(value, f.attr), field_level=True, msgp=msgp,
                                   drops_zero=not msgp or f.omit_empty and not type_ref.inlined, ext_type=ext_type)
            for f in schema.structs[type_ref.name].wire_fields if f.type is not None})
    options: dict[str, Any] = {"msgp": msgp, "ext_type": ext_type}
    if kind == Kind.POINTER:
        return as_go_holds_it(schema, type_ref.elem_type, value, **options)
    if kind in (Kind.SLICE, Kind.ARRAY):
        return [as_go_holds_it(schema, type_ref.elem_type, item, **options) for item in value]
    if kind == Kind.MAP:
        return {key: as_go_holds_it(schema, type_ref.elem_type, item, **options) for key, item in value.items()}
    return value


def as_go_reads_it(value: Any) -> Any:
    """An interface{} value after Go read it and wrote it back: Go reads by wire
    family, so a uint64 below 128 (a positive fixint) comes back an int64 (a plain
    int), and a plain int beyond int64 (the uint family) a uint64."""
    if isinstance(value, bool):
        return value
    if isinstance(value, zebrapack.GoUint64):
        return int(value) if value < 128 else value
    if isinstance(value, int) and value > INT64_MAX:
        return zebrapack.GoUint64(value)
    if isinstance(value, list):
        return [as_go_reads_it(item) for item in value]
    if isinstance(value, dict):
        return {key: as_go_reads_it(item) for key, item in value.items()}
    return value


def go_type_of(value: Any) -> str | None:
    """The Go type (fmt's %T) of an interface{} holding the Python `value` after Go
    read zebrapack's encoding of it, or None for a nil interface."""
    return go_type_named(as_go_reads_it(value))


def go_type_named(value: Any) -> str | None:
    """The Go type the Python `value` of an interface{} names: a plain int is an
    int64 (a uint64 beyond it), a float a float64, a complex a complex128, and
    GoUint64, GoFloat32 and GoComplex64 the types they are named after."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "uint64" if isinstance(value, zebrapack.GoUint64) or value > INT64_MAX else "int64"
    if isinstance(value, float):
        return "float32" if isinstance(value, zebrapack.GoFloat32) else "float64"
    if isinstance(value, complex):
        return "complex64" if isinstance(value, zebrapack.GoComplex64) else "complex128"
    if isinstance(value, (datetime, zebrapack.GoTime)):
        return "time.Time"
    if isinstance(value, zebrapack.Ext):
        return "*msgp.RawExtension"
    names: dict[type, str] = {str: "string", bytes: "[]uint8", list: "[]interface {}", dict: "map[string]interface {}"}
    return names[type(value)]


def go_types(value: Any) -> Any:
    """The Python types throughout `value`, as a tree that compares equal only where
    every number, key and element has the same type: a GoFloat32 is not a float."""
    if isinstance(value, list):
        return [go_types(item) for item in value]
    if isinstance(value, dict):
        return {(type(key).__name__, key): go_types(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: go_types(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return type(value).__name__


def same_go_value(actual: Any, expected: Any) -> None:
    """Equal values (typed_json.same) of the same types throughout (go_types)."""
    same(actual, expected)
    assert go_types(actual) == go_types(expected)


def has_map_of_two_or_more(value: Any) -> bool:
    if isinstance(value, dict):
        return len(value) >= 2 or any(has_map_of_two_or_more(item) for item in value.values())
    if isinstance(value, list):
        return any(has_map_of_two_or_more(item) for item in value)
    if dataclasses.is_dataclass(value):
        return any(has_map_of_two_or_more(getattr(value, f.name)) for f in dataclasses.fields(value))
    return False


# -- the peer's typed trees -------------------------------------------------------------

#: The Go type (fmt's %T) of a value of each typed-tree node held in an interface.
GO_TYPE_OF_NODE = {
    "int": "int64", "uint": "uint64", "f32": "float32", "f64": "float64",
    "c64": "complex64", "c128": "complex128", "str": "string", "bool": "bool", "bytes": "[]uint8",
    "time": "time.Time", "ext": "*msgp.RawExtension",
    "list": "[]interface {}", "map": "map[string]interface {}",
}


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
