"""A map's value or a list's item that is itself a list of numbers, bools or strings, or
a map of strings or integers to numbers, bools or strings (or pointers to them), is stored
whole, as a field of that type is (header and items at once, no dispatch per value), and
an empty list or map of any item type in one byte: it writes exactly the bytes the
general path writes (the same values in list and dict subclasses, which only the general
path takes), and every value those runs do not take (another type, out of range, a str
without its UTF-8 at hand, too deep) still reaches the general path, which refuses it
with the same message at the same key path."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Optional

import msgpack
import pytest

import zebrapack
from zebrapack import EncodeError


def _zid(n: int, factory: Any) -> Any:
    return field(default_factory=factory, metadata={"zid": n})


@dataclass(slots=True)
class Rec:
    A: int = field(default=0, metadata={"zid": 0})


@dataclass(slots=True)
class Values:
    IL: dict[str, list[int]] = _zid(0, dict)
    SL: dict[str, list[str]] = _zid(1, dict)
    BL: dict[str, list[bool]] = _zid(2, dict)
    FL: dict[str, list[float]] = _zid(3, dict)
    F32L: dict[str, list[zebrapack.float32]] = _zid(4, dict)
    U8L: dict[str, list[zebrapack.uint8]] = _zid(5, dict)
    PL: dict[str, list[Optional[int]]] = _zid(6, dict)
    MM: dict[str, dict[str, int]] = _zid(7, dict)
    MF: dict[str, dict[str, float]] = _zid(8, dict)
    LL: list[list[int]] = _zid(9, list)
    LS: list[list[str]] = _zid(10, list)
    LM: list[dict[str, zebrapack.int16]] = _zid(11, list)
    TL: dict[int, list[int]] = _zid(12, dict)
    PS: dict[str, list[Optional[str]]] = _zid(13, dict)
    LMI: list[dict[int, str]] = _zid(14, list)
    LLM: list[list[dict[str, str]]] = _zid(15, list)        # lists of lists of maps, and of lists that
    LPL: list[Optional[list[Optional[int]]]] = _zid(16, list)   # take no runs: their writers, called straight
    MF32: dict[str, dict[str, zebrapack.float32]] = _zid(17, dict)
    LMF32: list[list[dict[str, zebrapack.float32]]] = _zid(18, list)
    MSS: dict[str, dict[str, str]] = _zid(19, dict)
    MIB: dict[str, dict[zebrapack.int32, bool]] = _zid(20, dict)
    LMU: list[dict[int, zebrapack.uint16]] = _zid(21, list)
    LMIF: list[dict[zebrapack.int32, float]] = _zid(22, list)
    MS: dict[str, str] = _zid(23, dict)                     # maps of scalars written entry by entry
    MIS: dict[int, str] = _zid(24, dict)
    TLL: list[list[datetime]] = _zid(25, list)
    MTL: dict[str, list[Optional[datetime]]] = _zid(26, dict)
    MMT: dict[str, dict[int, datetime]] = _zid(27, dict)
    MPB: dict[str, dict[str, Optional[bool]]] = _zid(28, dict)     # maps of pointers
    LMPI: list[dict[int, Optional[zebrapack.int32]]] = _zid(29, list)
    PB: dict[str, Optional[bool]] = _zid(30, dict)
    PIS: dict[zebrapack.int32, Optional[str]] = _zid(31, dict)
    PT: dict[str, Optional[datetime]] = _zid(32, dict)
    PF: dict[str, Optional[float]] = _zid(33, dict)
    LLR: list[list[Rec]] = _zid(34, list)                     # containers of records: empty ones in one byte
    MLR: dict[str, list[Rec]] = _zid(35, dict)
    LMR: list[dict[str, Rec]] = _zid(36, list)
    MMR: dict[int, dict[str, Rec]] = _zid(37, dict)
    LLLI: list[list[list[Any]]] = _zid(38, list)


class List(list):  # type: ignore[type-arg]
    """A list the run paths leave to the general path (not exactly a list)."""


class Dict(dict):  # type: ignore[type-arg]
    """A dict the run paths leave to the general path."""


def general(value: Any) -> Any:
    """value with every list and dict inside the fields' containers a subclass: the same
    values, written by the general path only."""
    if isinstance(value, dict):
        return Dict({k: general(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return List(general(v) for v in value)
    return value


class Str(str):
    """A str the run paths leave to the general path."""


class Int(int):
    """An int the run paths leave to the general path."""


def general_scalar(value: Any) -> Any:
    return Str(value) if type(value) is str else Int(value) if type(value) is int else value


#: Fields that are maps of scalars: their entries are what takes the runs.
SCALAR_MAPS = {"MS", "MIS", "PB", "PIS", "PT", "PF"}


def both(**fields: Any) -> tuple[Values, Values]:
    """The record of these fields, as given and through the general path only (each field's
    own container stays exact: only its values and items change, or a map of scalars'
    keys and values)."""
    slow: dict[str, Any] = {}
    for name, container in fields.items():
        if name in SCALAR_MAPS:
            slow[name] = {general_scalar(k): general_scalar(v) for k, v in container.items()}
        elif isinstance(container, dict):
            slow[name] = {k: general(v) for k, v in container.items()}
        else:
            slow[name] = [general(v) for v in container]
    return Values(**fields), Values(**slow)


@pytest.fixture(scope="module")
def schema() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(Values, package="runs")


LONG = "x" * 300
UTC_TIMES = [datetime(2024, 2, 29, 23, 59, 58, 999_999, tzinfo=timezone.utc),
             datetime(1, 1, 1, tzinfo=timezone.utc), datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=timezone.utc),
             datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=timezone.utc), datetime(1970, 1, 1, tzinfo=timezone.utc)]
VALUES: dict[str, Any] = {
    "IL": {"k0": [1, 2, 3, 4, 5], "k1": [], "k2": [-1, -33, 127, 128, 2**31, -(2**63), 2**63 - 1], "k3": (7, 8)},
    "SL": {"a": ["x", "", LONG, "y" * 40000], "b": [], "c": ("t", "u")},
    "BL": {"a": [True, False, True], "b": []},
    "FL": {"a": [0.0, -1.5, 1e300, float("inf")], "b": []},
    "F32L": {"a": [0.5, -2.0, 3.25], "b": []},
    "U8L": {"a": [0, 1, 255], "b": []},
    "PL": {"a": [None, 1, None, -5], "b": [None]},
    "MM": {"a": {"x": 1, "y": -2, "z": 2**40}, "b": {}, "c": {LONG: 3}},
    "MF": {"a": {"x": 1.5, "y": -0.0}, "b": {}},
    "LL": [[1, 2], [], (3,), [2**62] * 40],
    "LS": [["a", "b"], [], [LONG]],
    "LM": [{"a": 1, "b": -32768}, {}, {"c": 32767}],
    "TL": {1: [1, 2], -7: [], 2**40: [3]},
    "PS": {"a": [None, "x", LONG], "b": []},
    "LMI": [{1: "a", -2: "b"}, {}, {2**40: ""}, {}, {7: LONG}],
    "LLM": [[{"a": "b"}, {}], [], [{}], [{"c": "d", "e": ""}]],
    "LPL": [None, [1, None, 2], [], None, [None]],
    "MF32": {"a": {"x": 0.5, "y": -0.0, "z": 3.4028234663852886e38, "i": float("inf"), "t": 0.25}, "b": {}},
    "LMF32": [[{"a": -217.1470489501953, "b": 1.5}, {}], [], [{LONG: -1.401298464324817e-45}]],
    "MSS": {"a": {"x": "y", "": "", LONG: "z" * 70000}, "b": {}, "c": {"k": LONG}},
    "MIB": {"a": {1: True, -2**31: False, 2**31 - 1: True}, "b": {}},
    "LMU": [{0: 65535, -2**63: 0, 2**63 - 1: 7}, {}, {5: 255}],
    "LMIF": [{1: 0.5, -1: -0.0, 2: float("inf")}, {}, {3: 1e300}],
    "MS": {"a": "b", LONG: "", "c": "y" * 70000},
    "MIS": {1: "a", -2**63: LONG, 2**63 - 1: ""},
    "TLL": [[UTC_TIMES[0], UTC_TIMES[1]], [], UTC_TIMES * 300, (UTC_TIMES[2],)],
    "MTL": {"a": [None, *UTC_TIMES, None], "b": [], "c": [None]},
    "MMT": {"a": dict(enumerate(UTC_TIMES)), "b": {}, "c": {-2**63: UTC_TIMES[3]}},
    "MPB": {"a": {"x": True, "y": None, "z": False}, "b": {}, "c": {"n": None}, "d": {LONG: True}},
    "LMPI": [{1: None, -2**31: -2**31, 2**40: 2**31 - 1}, {}, {0: None}],
    "PB": {"a": True, "b": None, "c": False, LONG: None},
    "PIS": {0: None, 2**31 - 1: LONG, -2**31: "", 8: None},
    "PT": {"a": UTC_TIMES[0], "b": None, "c": UTC_TIMES[2]},
    "PF": {"a": None, "b": -0.0, "c": float("inf")},
    "LLR": [[], [], [Rec(1), Rec(-2)], [], [Rec()]],
    "MLR": {"a": [], "b": [Rec(5)], "c": []},
    "LMR": [{}, {"a": Rec(3)}, {}, {}],
    "MMR": {1: {}, -1: {"x": Rec(7)}, 2: {}},
    "LLLI": [[[], [1, "a"]], [], [[]]],
}


@pytest.mark.parametrize("name", list(VALUES))
def test_container_values_and_items_write_what_the_general_path_writes(schema: zebrapack.Schema, name: str) -> None:
    fast, slow = both(**{name: VALUES[name]})
    data = schema.encode(fast)
    assert data == schema.encode(slow)
    decoded = getattr(schema.decode(data), name)
    want = VALUES[name]
    assert decoded == ({k: list(v) if isinstance(v, tuple) else v for k, v in want.items()}
                       if isinstance(want, dict) else [list(v) if isinstance(v, tuple) else v for v in want])


def test_map_of_lists_as_the_benchmark_writes_it_matches_msgpack(schema: zebrapack.Schema) -> None:
    value = {f"k{i}": [(i * 7 + j) % 128 for j in range(5)] for i in range(100)}
    data = schema.encode(Values(IL=value))
    assert msgpack.unpackb(data, strict_map_key=False)[0] == value
    assert data == schema.encode(Values(IL={k: List(v) for k, v in value.items()}))


def test_many_container_values_grow_the_buffer_as_they_go(schema: zebrapack.Schema) -> None:
    value = {f"key{i}": [i] * (i % 50) for i in range(3000)}
    strs = {f"key{i}": [f"s{i}"] * (i % 20) for i in range(2000)}
    fast, slow = both(IL=value, SL=strs, LL=[[i] * (i % 30) for i in range(2000)])
    data = schema.encode(fast)
    assert data == schema.encode(slow)
    assert schema.decode(data).IL == value
    buffer = bytearray()
    schema.encode_into(fast, buffer)
    assert bytes(buffer) == data


REFUSED: list[dict[str, Any]] = [
    {"IL": {"a": [1, "2"]}},
    {"IL": {"a": [1, 2**63]}},
    {"IL": {"a": [1, 2.0]}},
    {"IL": {"a": None}},
    {"IL": {"a": {"b": 1}}},
    {"U8L": {"a": [1, 256]}},
    {"U8L": {"a": [-1]}},
    {"F32L": {"a": [1.0, 1e39]}},
    {"FL": {"a": [1.0, "x"]}},
    {"BL": {"a": [True, 1]}},
    {"SL": {"a": ["x", 3]}},
    {"SL": {"a": ["x", "\udc80"]}},
    {"PS": {"a": [None, b"x"]}},
    {"MM": {"a": {"b": "x"}}},
    {"MM": {"a": {1: 1}}},
    {"MM": {"a": {"b": 2**64}}},
    {"MF": {"a": {"b": "1"}}},
    {"IL": {"a": [1, True]}},
    {"LL": [[1], [2, "3"]]},
    {"LS": [["a"], [None]]},
    {"LM": [{"a": 1}, {"b": 32768}]},
    {"TL": {5: [1, None]}},
    {"LMI": [{1: "a"}, {"x": "b"}]},
    {"LMI": [{1: "a"}, {2: 3}]},
    {"LMI": [{}, [1]]},
    {"LMI": [{}, None]},
    {"LLM": [[{"a": "b"}], [{"a": 1}]]},
    {"LLM": [[], {"a": "b"}]},
    {"LPL": [[1], [2**63]]},
    {"MF32": {"a": {"x": 1.0, "y": 1e39}}},
    {"MF32": {"a": {"x": "1"}}},
    {"LMF32": [[{"a": 1.0}], [{"b": -3.5e38}]]},
    {"MSS": {"a": {"x": "y"}, "b": {"x": 1}}},
    {"MSS": {"a": {"x": "y"}, "b": {1: "x"}}},
    {"MSS": {"a": {"x": "\udc80"}}},
    {"MIB": {"a": {1: True, 2: 1}}},
    {"MIB": {"a": {2**31: True}}},
    {"MIB": {"a": {"1": True}}},
    {"MIB": {"a": {True: True}}},
    {"LMU": [{1: 1}, {2: 65536}]},
    {"LMU": [{1: 1}, {2**63: 1}]},
    {"LMU": [{1: -1}]},
    {"LMIF": [{1: 1.0}, {2: "x"}]},
    {"LMIF": [{1.0: 1.0}]},
    {"MS": {"a": "b", "c": None}},
    {"MS": {"a": "b", 1: "c"}},
    {"MIS": {1: "a", 2**63: "b"}},
    {"MIS": {1: "a", 2: b"b"}},
    {"TLL": [[UTC_TIMES[0]], [UTC_TIMES[1], datetime(2020, 1, 1)]]},
    {"TLL": [[UTC_TIMES[0], None]]},
    {"TLL": [[UTC_TIMES[0], "2020-01-01"]]},
    {"MTL": {"a": [None, datetime(2020, 1, 1)]}},
    {"MMT": {"a": {1: UTC_TIMES[0], 2: datetime(2020, 1, 1)}}},
    {"MMT": {"a": {1: None}}},
    {"MPB": {"a": {"x": None, "y": 1}}},
    {"MPB": {"a": {"x": None, 2: True}}},
    {"LMPI": [{1: None}, {2: 2**31}]},
    {"PB": {"a": None, "b": "x"}},
    {"PIS": {1: None, 2**31: "x"}},
    {"PIS": {1: None, 2: b"x"}},
    {"PT": {"a": None, "b": datetime(2020, 1, 1)}},
    {"PF": {"a": None, "b": "1.0"}},
    {"LLR": [[], [1]]},
    {"LLR": [[], {}]},
    {"LLR": [[], None]},
    {"MLR": {"a": [], "b": {}}},
    {"LMR": [{}, []]},
    {"LMR": [{}, {"a": 1}]},
    {"MMR": {1: {}, 2: []}},
    {"LLLI": [[[]], {}]},
]


@pytest.mark.parametrize("fields", REFUSED, ids=lambda f: repr(f)[:40])
def test_values_the_runs_do_not_take_are_refused_as_before_at_their_key_path(schema: zebrapack.Schema,
                                                                             fields: dict[str, Any]) -> None:
    fast, slow = both(**fields)
    with pytest.raises(EncodeError) as caught:
        schema.encode(fast)
    with pytest.raises(EncodeError) as want:
        schema.encode(slow)
    # (a container of the wrong type is named by its type: the subclass's, on the general path)
    assert str(caught.value) == str(want.value).replace("got Dict ", "got dict ").replace(
        "got List ", "got list ").replace("got Int ", "got int ").replace("got Str ", "got str ")
    assert (caught.value.path, caught.value.offset) == (want.value.path, want.value.offset)
    name = next(iter(fields))
    assert caught.value.path.startswith(f"Values.{name}[")


def test_values_the_runs_do_not_take_but_the_general_path_does_are_written(schema: zebrapack.Schema) -> None:
    # a non-ASCII str holds no UTF-8 until asked; an int is a float64's value: the general
    # path writes them
    written: list[dict[str, Any]] = [{"SL": {"a": ["grüß", "x"]}}, {"LS": [["日本"], ["a"]]},
                                     {"MF": {"a": {"b": 1, "c": 2.5}}}, {"FL": {"a": [1, 2.5]}},
                                     {"MF32": {"a": {"b": 1, "c": 2.5}}},
                                     {"MF32": {"a": {"t": 0.1, "s": -1e-45, "n": float("nan")}}},     # rounded
                                     # a time in another zone: its instant, written by the general path
                                     {"TLL": [[UTC_TIMES[0], datetime(2020, 1, 1, tzinfo=timezone(timedelta(hours=5)))]]},
                                     {"MMT": {"a": {1: datetime(2020, 1, 1, tzinfo=timezone(timedelta(hours=-3)))}}}]
    for fields in written:
        fast, slow = both(**fields)
        assert schema.encode(fast) == schema.encode(slow)


@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_a_container_value_one_level_too_deep_is_refused_as_before(max_depth: int) -> None:
    schema = zebrapack.schema_from_dataclasses(Values, package="runs", max_depth=max_depth)
    deep: list[dict[str, Any]] = [{"IL": {"a": [1]}}, {"MM": {"a": {"b": 1}}}, {"LL": [[1]]}, {"SL": {"a": []}},
                                  {"LMI": [{}]}, {"LMI": [{1: "a"}]}, {"LLM": [[{}]]}, {"LLM": [[]]},
                                  {"MM": {"a": {}}}, {"LPL": [[]]}, {"MSS": {"a": {"b": "c"}}},
                                  {"LMU": [{1: 2}]}, {"LMU": [{}]}, {"MS": {"a": "b"}},
                                  {"MPB": {"a": {"b": None}}}, {"LMPI": [{1: None}]}, {"PB": {"a": None}},
                                  {"LLR": [[]]}, {"LLR": [[], []]}, {"MLR": {"a": []}}, {"LMR": [{}]},
                                  {"MMR": {1: {}}}, {"LLLI": [[[]]]}, {"LLLI": [[]]}]
    for fields in deep:
        fast, slow = both(**fields)
        try:
            want = schema.encode(slow)
        except EncodeError as error:
            with pytest.raises(EncodeError) as caught:
                schema.encode(fast)
            assert (str(caught.value), caught.value.path) == (str(error), error.path)
            assert "max_depth" in str(error)
        else:
            assert schema.encode(fast) == want


def test_an_empty_map_in_a_list_counts_its_level_as_the_decoder_does() -> None:
    # the record is level 1, the list 2, the map in it 3: an empty map is written without
    # its entries' loop, but its level is still counted, as a map with entries and as the
    # decoder counts it
    deep = zebrapack.schema_from_dataclasses(Values, package="runs", max_depth=3)
    shallow = zebrapack.schema_from_dataclasses(Values, package="runs", max_depth=2)
    data = deep.encode(Values(LMI=[{}]))
    assert deep.decode(data).LMI == [{}]
    with pytest.raises(EncodeError, match="max_depth") as caught:
        shallow.encode(Values(LMI=[{}]))
    assert caught.value.path.startswith("Values.LMI[0]")
    with pytest.raises(zebrapack.DecodeError, match="max_depth"):
        shallow.decode(data)


@dataclass(slots=True)
class FlatPointers:
    """A record whose every field the in-line writer takes: maps of pointers among them."""
    N: int = field(default=0, metadata={"zid": 0})
    PB: dict[str, Optional[bool]] = _zid(1, dict)
    PI: dict[int, Optional[zebrapack.int16]] = _zid(2, dict)
    PS: dict[str, Optional[str]] = _zid(3, dict)


@pytest.mark.parametrize("entries", [0, 1, 2, 17, 5000])
def test_a_flat_record_s_maps_of_pointers_write_what_the_general_path_writes(entries: int) -> None:
    schema = zebrapack.schema_from_dataclasses(FlatPointers, package="runs")
    pb = {f"k{i}": None if i % 3 == 0 else bool(i % 2) for i in range(entries)}
    pi = {i - entries // 2: None if i % 4 == 1 else (i * 997) % 65536 - 32768 for i in range(entries)}
    ps = {f"s{i}": None if i % 2 else "v" * (i % 40) for i in range(entries)}
    fast = FlatPointers(N=7, PB=pb, PI=pi, PS=ps)
    slow = FlatPointers(N=7, PB=Dict(pb), PI=Dict(pi), PS=Dict(ps))
    data = schema.encode(fast)
    assert data == schema.encode(slow)
    assert schema.decode(data) == fast
    if entries:
        assert msgpack.unpackb(data, strict_map_key=False) == {-1: "FlatPointers", 0: 7, 1: pb, 2: pi, 3: ps}
    for bad in ({"PB": {"a": None, "b": 0}}, {"PI": {1: None, 2: 32768}}, {"PS": {"a": None, "b": 1}}):
        fields = {"N": 7, "PB": pb, "PI": pi, "PS": ps} | bad
        with pytest.raises(EncodeError) as caught:
            schema.encode(FlatPointers(**fields))
        with pytest.raises(EncodeError) as want:
            schema.encode(FlatPointers(**{k: Dict(v) if isinstance(v, dict) else v for k, v in fields.items()}))
        assert (str(caught.value), caught.value.path) == (str(want.value), want.value.path)
