"""The encoder takes values of exactly a built-in type on fast paths (inline fields,
list runs, map entries, interface{} atoms: cython/_packer.pxi) and leaves every other
value to the general path (write_value). A subclass of int, float, str, bytes or
datetime is never taken by a fast path, so a record holding the same values disguised
as subclasses is written by the general path: both must give the same bytes, or the
same error (message, field path, byte offset), for every value."""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, Optional

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import EncodeError, Record, Zid, float32, float64, int8, int16, int32, int64, uint8, uint32, uint64


@dataclass(slots=True)
class Everything(Record):
    S: Annotated[str, Zid(0)] = ""
    Bin: Annotated[bytes, Zid(1)] = b""
    F32: Annotated[float32, Zid(2)] = 0.0
    F64: Annotated[float64, Zid(3)] = 0.0
    I64: Annotated[int64, Zid(4)] = 0
    U64: Annotated[uint64, Zid(5)] = 0
    I8: Annotated[int8, Zid(6)] = 0
    U32: Annotated[uint32, Zid(7)] = 0
    T: Annotated[Optional[datetime], Zid(8)] = None
    PI: Annotated[Optional[int64], Zid(9)] = None
    PS: Annotated[Optional[str], Zid(10)] = None
    PF: Annotated[Optional[float64], Zid(11)] = None
    PB: Annotated[Optional[bool], Zid(12)] = None
    PF32: Annotated[Optional[float32], Zid(13)] = None
    PU: Annotated[Optional[uint32], Zid(14)] = None
    Strs: Annotated[list[str], Zid(15)] = field(default_factory=list)
    Bins: Annotated[list[bytes], Zid(16)] = field(default_factory=list)
    F32s: Annotated[list[float32], Zid(17)] = field(default_factory=list)
    F64s: Annotated[list[float64], Zid(18)] = field(default_factory=list)
    I64s: Annotated[list[int64], Zid(19)] = field(default_factory=list)
    U64s: Annotated[list[uint64], Zid(20)] = field(default_factory=list)
    I16s: Annotated[list[int16], Zid(21)] = field(default_factory=list)
    PInts: Annotated[list[Optional[int64]], Zid(22)] = field(default_factory=list)
    PF32s: Annotated[list[Optional[float32]], Zid(23)] = field(default_factory=list)
    PStrs: Annotated[list[Optional[str]], Zid(24)] = field(default_factory=list)
    Times: Annotated[list[datetime], Zid(25)] = field(default_factory=list)
    SMap: Annotated[dict[str, int64], Zid(26)] = field(default_factory=dict)
    FMap: Annotated[dict[str, float64], Zid(27)] = field(default_factory=dict)
    IMap: Annotated[dict[int64, str], Zid(28)] = field(default_factory=dict)
    Any_: Annotated[Any, Zid(29)] = None
    Tail: Annotated[int64, Zid(30)] = 0
    Bools: Annotated[list[bool], Zid(31)] = field(default_factory=list)
    PBools: Annotated[list[Optional[bool]], Zid(32)] = field(default_factory=list)


SCHEMA = zebrapack.schema_from_dataclasses(Everything, package="exact")
Generated = SCHEMA.types["Everything"]


class IntSub(int):
    pass


class FloatSub(float):
    pass


class StrSub(str):
    pass


class BytesSub(bytes):
    pass


class DatetimeSub(datetime):
    pass


def disguised(value: Any) -> Any:
    """The same value, every int, float, str, bytes and datetime in it a subclass."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return IntSub(value)
    if isinstance(value, float):
        return FloatSub(value)
    if isinstance(value, str):
        return StrSub(value)
    if isinstance(value, bytes):
        return BytesSub(value)
    if isinstance(value, datetime):
        return DatetimeSub(value.year, value.month, value.day, value.hour, value.minute, value.second,
                           value.microsecond, tzinfo=value.tzinfo, fold=value.fold)
    if isinstance(value, list):
        return [disguised(item) for item in value]
    if isinstance(value, dict):
        return {disguised(key): disguised(item) for key, item in value.items()}
    raise AssertionError(type(value))


NAMES = {"DatetimeSub(": "datetime.datetime(", "IntSub": "int", "FloatSub": "float", "StrSub": "str",
         "BytesSub": "bytes", "DatetimeSub": "datetime"}


def outcome(encode: Any) -> Any:
    try:
        return encode()
    except EncodeError as error:
        message = str(error)
        for sub, base in NAMES.items():
            message = message.replace(sub, base)
        return ("error", message, error.path, error.offset)


def assert_general_path_agrees(fields: dict[str, Any], **options: Any) -> Any:
    exact = Generated(**fields)
    general = Generated(**{name: disguised(value) for name, value in fields.items()})
    got = outcome(lambda: SCHEMA.encode(exact, **options))
    assert got == outcome(lambda: SCHEMA.encode(general, **options))
    if isinstance(got, bytes):
        buffer = bytearray(b"head")
        SCHEMA.encode_into(exact, buffer, -1, **options)
        assert bytes(buffer) == b"head" + got
    return got


# Both sides of every wire width and of CPython's digit boundaries (30-bit digits).
EDGES = sorted({sign * (edge + delta) for edge in (0, 32, 128, 256, 2**15, 2**16, 2**30, 2**31, 2**32, 2**60,
                                                   2**62, 2**63, 2**64, 2**90)
                for delta in (-1, 0, 1) for sign in (1, -1)})
ints = st.one_of(st.sampled_from(EDGES), st.integers(-2**65, 2**65), st.integers(-300, 300))
floats = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from([0.0, -0.0, 3.4028234663852886e38, 3.4028235677973366e38, 1e39, -1e39, 1.5e-45]))
texts = st.one_of(st.text(max_size=20), st.text(alphabet="é中😀a\udc80", max_size=8),
                  st.sampled_from(["", "a" * 31, "é" * 16, "中" * 11, "😀" * 8, "x\udc80"]))
blobs = st.binary(max_size=40)
zones = st.sampled_from([timezone.utc, timezone(timedelta(hours=-5)), timezone(timedelta(minutes=90))])
times = st.builds(lambda t, z: t.replace(tzinfo=z),
                  st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)), zones)
times = st.one_of(times, st.just(datetime(1, 1, 1, tzinfo=timezone.utc)))
atoms = st.one_of(ints, floats, texts, blobs, st.booleans(), st.none(), times)
anys = st.recursive(atoms, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                   st.dictionaries(st.one_of(texts, ints), inner, max_size=5)),
                    max_leaves=20)

FIELDS = {
    "S": texts, "Bin": blobs, "F32": floats, "F64": floats, "I64": ints, "U64": ints, "I8": ints, "U32": ints,
    "T": st.one_of(st.none(), times), "PI": st.one_of(st.none(), ints), "PS": st.one_of(st.none(), texts),
    "PF": st.one_of(st.none(), floats), "PB": st.one_of(st.none(), st.booleans()),
    "PF32": st.one_of(st.none(), floats), "PU": st.one_of(st.none(), ints),
    "Strs": st.lists(texts, max_size=6), "Bins": st.lists(blobs, max_size=6), "F32s": st.lists(floats, max_size=6),
    "F64s": st.lists(floats, max_size=6), "I64s": st.lists(ints, max_size=6), "U64s": st.lists(ints, max_size=6),
    "I16s": st.lists(ints, max_size=6), "PInts": st.lists(st.one_of(st.none(), ints), max_size=6),
    "PF32s": st.lists(st.one_of(st.none(), floats), max_size=6),
    "PStrs": st.lists(st.one_of(st.none(), texts), max_size=6), "Times": st.lists(times, max_size=4),
    "SMap": st.dictionaries(texts, ints, max_size=4), "FMap": st.dictionaries(texts, floats, max_size=4),
    "IMap": st.dictionaries(ints, texts, max_size=4), "Any_": anys, "Tail": ints,
    "Bools": st.lists(st.booleans(), max_size=6), "PBools": st.lists(st.one_of(st.none(), st.booleans()), max_size=6),
}


@settings(max_examples=600, deadline=None)
@given(st.fixed_dictionaries({}, optional=FIELDS), st.sampled_from(["zebrapack", "msgp"]))
def test_exact_values_encode_as_the_general_path_encodes_them(fields: dict[str, Any], mode: str) -> None:
    assert_general_path_agrees(fields, mode=mode)


def test_a_value_that_leaves_a_run_is_reported_at_its_index() -> None:
    cases = {
        "U64s": ([2**64 - 1, 2**63, 0, 2**64], r"U64s\[3\]", "outside the range of uint64"),
        "I64s": ([1, -2**63, 2**63 - 1, 2**63], r"I64s\[3\]", "outside the range of int64"),
        "I16s": ([-2**15, 2**15 - 1, 2**15], r"I16s\[2\]", "outside the range of int16"),
        "F32s": ([1.5, 3.4028234663852886e38, 1e39], r"F32s\[2\]", "overflows float32"),
        "PInts": ([None, 5, None, "x"], r"PInts\[3\]", "expected int64"),
        "PF32s": ([None, 1.0, -1e39], r"PF32s\[2\]", "overflows float32"),
        "Strs": (["é", "中", "ok\udc80"], r"Strs\[2\]", "UTF-8"),
        "Strs ": (["a", "b" * 300, None], r"Strs\[2\]", "None"),
        "PStrs": ([None, "😀", "\udc80"], r"PStrs\[2\]", "UTF-8"),
        "Times": ([datetime(2020, 1, 1, tzinfo=timezone.utc), datetime(2020, 1, 1)], r"Times\[1\]", "naive"),
        "Bools": ([True, False, 1], r"Bools\[2\]", "expected bool"),
        "Bools ": ([False, None], r"Bools\[1\]", "None"),
        "PBools": ([None, True, None, 0], r"PBools\[3\]", "expected bool"),
    }
    for name, (values, path, reason) in cases.items():
        error = assert_general_path_agrees({name.strip(): values})
        assert error[0] == "error" and reason in error[1], (name, error)
        assert re.search(path, error[2]), (name, error)


def test_bool_runs_are_msgpack_bools_past_the_buffers_first_size() -> None:
    """A []bool or []*bool run (write_number_run, one byte an item) writes 0xc3 / 0xc2 /
    0xc0 as msgpack does, for lists longer than the writer's first buffer and than a
    block of the run (1024 items), into a fresh buffer and after bytes already there."""
    for n in (1, 7, 1023, 1024, 1025, 5000):
        bools = [(i * 7) % 3 == 0 for i in range(n)]
        pointers = [None if i % 5 == 0 else bool(i % 2) for i in range(n)]
        data = assert_general_path_agrees({"Bools": bools, "PBools": pointers})
        assert isinstance(data, bytes)
        assert msgpack.packb(bools) in data and msgpack.packb(pointers) in data
        decoded = SCHEMA.decode(data)
        assert decoded.Bools == bools and decoded.PBools == pointers


def test_tuples_are_written_as_the_same_lists_are() -> None:
    """A tuple given for a slice takes the runs a list takes: the same bytes, and the same
    error at the same index where an item does not fit."""
    fields = {"I64s": [1, -2, 2**40, -2**63], "U64s": [0, 2**64 - 1], "F64s": [0.5, -1e300],
              "F32s": [1.5, -2.25], "I16s": [-2**15, 7], "PInts": [None, 3], "Strs": ["a", "é" * 3, ""],
              "PStrs": [None, "b"], "Bools": [True, False], "PBools": [None, False]}
    as_lists = SCHEMA.encode(Generated(**fields))
    assert SCHEMA.encode(Generated(**{name: tuple(value) for name, value in fields.items()})) == as_lists
    for name, values, path in (("I64s", (1, 2**63), r"I64s\[1\]"), ("Bools", (True, 2), r"Bools\[1\]"),
                               ("F32s", (1.0, 1e39), r"F32s\[1\]"), ("Strs", ("a", 5), r"Strs\[1\]")):
        with pytest.raises(EncodeError) as from_tuple:
            SCHEMA.encode(Generated(**{name: values}))
        with pytest.raises(EncodeError) as from_list:
            SCHEMA.encode(Generated(**{name: list(values)}))
        assert re.search(path, from_tuple.value.path)
        assert (str(from_tuple.value), from_tuple.value.offset) == (str(from_list.value), from_list.value.offset)


def test_string_runs_cross_every_header_width_and_grow_the_buffer() -> None:
    """A []string run (write_str_run) stores each str's header and bytes itself: both
    sides of fixstr, str8, str16 and str32, many strings past the buffer's first size,
    and runs that stop at a non-ASCII str whose UTF-8 CPython has not cached (the
    general loop encodes it and goes on from there), first, inside and last."""
    widths = [0, 31, 32, 255, 256, 65535, 65536]
    values = ["x" * n for n in widths] + ["y" * 1000] * 300
    for strs in (values, ["é" * 40 + str(n) for n in range(3)] + values, [*values, "中" * 20 + "z"],
                 values[:3] + ["\u00e9" * 3 + "w"] + values[3:]):
        data = assert_general_path_agrees({"Strs": strs, "PStrs": [None, *strs[:5], None]})
        assert isinstance(data, bytes)
        decoded = SCHEMA.decode(data)
        assert decoded.Strs == strs and decoded.PStrs == [None, *strs[:5], None]


def test_interface_atoms_and_entries_keep_their_errors_and_paths() -> None:
    for value, path in (([1, "a\udc80"], r"\[1\]"), ({"k\udc80": 1}, r"\['k\\udc80'\]"),
                        ({"k": [2**64]}, r"\['k'\]\[0\]"), ({1: 2}, r"\[1\]")):
        error = assert_general_path_agrees({"Any_": value})
        assert error[0] == "error", value
        assert re.search(path, error[2]), (value, error)


def test_pointer_fields_write_their_zero_values_and_leave_out_nil() -> None:
    data = assert_general_path_agrees({"PI": 0, "PS": "", "PF": 0.0, "PB": False, "PF32": -0.0, "PU": 0})
    assert isinstance(data, bytes)
    back = SCHEMA.decode(data)
    assert (back.PI, back.PS, back.PF, back.PB, back.PF32, back.PU) == (0, "", 0.0, False, -0.0, 0)
    empty = SCHEMA.encode(Generated())
    assert set(msgpack.unpackb(empty, strict_map_key=False)) == {-1, 29}     # a nil interface{} is written


@pytest.mark.parametrize("text", ["é" * 3, "中" * 100, "😀" * 20_000, "é" * 40_000])
def test_non_ascii_strs_of_every_width_are_their_utf8(text: str) -> None:
    data = assert_general_path_agrees({"S": text, "Strs": [text, text], "PS": text, "Any_": {text: text}})
    decoded = msgpack.unpackb(data, strict_map_key=False)
    assert decoded[0] == text and decoded[15] == [text, text] and decoded[10] == text
    assert decoded[29] == {text: text}


def test_time_fields_lists_and_atoms_are_the_reference_ext() -> None:
    utc = datetime(2024, 2, 29, 23, 59, 58, 999_999, tzinfo=timezone.utc)
    data = assert_general_path_agrees({"T": utc, "Times": [utc], "Any_": [utc]})
    ext = b"\xc7\x0c\x05" + int(utc.timestamp()).to_bytes(8, "big", signed=True) + (999_999_000).to_bytes(4, "big")
    assert data.count(ext) == 3
    zero = datetime(1, 1, 1, tzinfo=timezone.utc)     # Go's zero instant: an empty field, but written in a list
    data = assert_general_path_agrees({"T": zero, "Times": [zero]})
    assert 8 not in msgpack.unpackb(data, strict_map_key=False, ext_hook=lambda code, raw: raw)


@pytest.mark.parametrize("sizes", [[0, 500, 10_000, 20, 100_000, 1_000, 480, 497, 512, 530, 100_000],
                                   [70_000, 60_000, 30_000, 10, 65_535, 65_536, 255, 256]])
def test_records_of_changing_sizes_are_written_whole(sizes: list[int]) -> None:
    """Each record sizes the next one's buffer: larger ones grow it, smaller ones leave
    room; every record must come out whole whatever the one before it was."""
    for size in sizes:
        fields = {"S": "é" * (size // 2) + "x" * (size % 2), "Bin": bytes(range(256)) * (size // 256),
                  "I64s": list(range(size // 50)), "Tail": -2**63}
        data = assert_general_path_agrees(fields)
        decoded = msgpack.unpackb(data, strict_map_key=False)
        assert decoded.get(0, "") == fields["S"] and decoded[30] == -2**63
        assert decoded.get(19, []) == fields["I64s"]
        assert decoded.get(1, b"") == fields["Bin"]
        assert len(data) == len(bytes(data)) and hash(data) == hash(bytes(data)) and data[-9:] == data[len(data) - 9:]
        assert sys.getsizeof(data) >= len(data)


def test_float32_fields_and_lists_round_to_float32() -> None:
    values = [0.1, -0.0, math.inf, -math.inf, 3.4028235e38, 1.401298464324817e-45]
    data = assert_general_path_agrees({"F32": 0.1, "F32s": values, "PF32s": [None, *values]})
    back = SCHEMA.decode(data)
    assert back.F32s[0] == back.F32 != 0.1
    assert [math.copysign(1, v) for v in back.F32s[1:2]] == [-1.0]


# -- flat records holding lists, maps and structs --------------------------------
#
# A record whose fields are all inline values, lists of numbers, bools or strings (or of
# pointers to them), maps of strings or integers to numbers, bools, times or strings, or structs of such
# records, is
# written in one pass by write_flat_record (at the root, and as a list's item) and
# handed whole to write_struct when anything in it is not an exact value it takes.


@dataclass(slots=True)
class FlatInner(Record):
    X: Annotated[int64, Zid(0)] = 0
    Tags: Annotated[list[str], Zid(1)] = field(default_factory=list)


@dataclass(slots=True)
class FlatMid(Record):
    In: Annotated[FlatInner, Zid(0)] = field(default_factory=FlatInner)
    F: Annotated[float64, Zid(1)] = 0.0


@dataclass(slots=True)
class FlatHolder(Record):
    S: Annotated[str, Zid(0)] = ""
    Strs: Annotated[list[str], Zid(1)] = field(default_factory=list)
    PStrs: Annotated[list[Optional[str]], Zid(2)] = field(default_factory=list)
    F64s: Annotated[list[float64], Zid(3)] = field(default_factory=list)
    F32s: Annotated[list[float32], Zid(4)] = field(default_factory=list)
    I16s: Annotated[list[int16], Zid(5)] = field(default_factory=list)
    U64s: Annotated[list[uint64], Zid(6)] = field(default_factory=list)
    PInts: Annotated[list[Optional[int64]], Zid(7)] = field(default_factory=list)
    Bools: Annotated[list[bool], Zid(8)] = field(default_factory=list)
    PBools: Annotated[list[Optional[bool]], Zid(9)] = field(default_factory=list)
    SMap: Annotated[dict[str, int64], Zid(10)] = field(default_factory=dict)
    UMap: Annotated[dict[str, uint32], Zid(11)] = field(default_factory=dict)
    FMap: Annotated[dict[str, float64], Zid(12)] = field(default_factory=dict)
    Mid: Annotated[FlatMid, Zid(13)] = field(default_factory=FlatMid)
    Tail: Annotated[int64, Zid(14)] = 0
    IMap: Annotated[dict[int64, str], Zid(15)] = field(default_factory=dict)
    I32Map: Annotated[dict[int32, float32], Zid(16)] = field(default_factory=dict)
    BIMap: Annotated[dict[int32, bool], Zid(17)] = field(default_factory=dict)
    SSMap: Annotated[dict[str, str], Zid(18)] = field(default_factory=dict)
    BMap: Annotated[dict[str, bool], Zid(19)] = field(default_factory=dict)
    UVMap: Annotated[dict[int64, uint8], Zid(20)] = field(default_factory=dict)
    Times: Annotated[list[datetime], Zid(21)] = field(default_factory=list)
    PTimes: Annotated[list[Optional[datetime]], Zid(22)] = field(default_factory=list)
    TMap: Annotated[dict[int64, datetime], Zid(23)] = field(default_factory=dict)


@dataclass(slots=True)
class FlatList(Record):
    Items: Annotated[list[FlatHolder], Zid(0)] = field(default_factory=list)


FLAT_SCHEMA = zebrapack.schema_from_dataclasses(FlatHolder, FlatList, package="flat")
FlatTypes = FLAT_SCHEMA.types

FLAT_FIELDS = {
    "S": texts, "Strs": st.lists(texts, max_size=6), "PStrs": st.lists(st.one_of(st.none(), texts), max_size=6),
    "F64s": st.lists(floats, max_size=6), "F32s": st.lists(floats, max_size=6), "I16s": st.lists(ints, max_size=6),
    "U64s": st.lists(ints, max_size=6), "PInts": st.lists(st.one_of(st.none(), ints), max_size=6),
    "Bools": st.lists(st.booleans(), max_size=6), "PBools": st.lists(st.one_of(st.none(), st.booleans()), max_size=6),
    "SMap": st.dictionaries(texts, ints, max_size=4), "UMap": st.dictionaries(texts, ints, max_size=4),
    "FMap": st.dictionaries(texts, floats, max_size=4), "Tail": ints,
    "IMap": st.dictionaries(ints, texts, max_size=4), "I32Map": st.dictionaries(ints, floats, max_size=4),
    "BIMap": st.dictionaries(ints, st.one_of(st.booleans(), st.just(1)), max_size=4),
    "SSMap": st.dictionaries(texts, texts, max_size=4), "BMap": st.dictionaries(texts, st.booleans(), max_size=4),
    "UVMap": st.dictionaries(ints, ints, max_size=4),
    "Times": st.lists(st.one_of(times, st.datetimes()), max_size=4),
    "PTimes": st.lists(st.one_of(st.none(), times), max_size=4),
    "TMap": st.dictionaries(ints, st.one_of(times, st.datetimes(), st.none()), max_size=4),
    "Mid": st.fixed_dictionaries({}, optional={"F": floats, "In": st.fixed_dictionaries(
        {}, optional={"X": ints, "Tags": st.lists(texts, max_size=4)})}),
}


def flat_record(fields: dict[str, Any], disguise: bool, schema: Any = FLAT_SCHEMA) -> Any:
    """A FlatHolder of the schema's classes (its Mid and Mid.In from dicts), every value
    in it a subclass when disguised (written by write_struct)."""
    types = schema.types
    convert = disguised if disguise else (lambda value: value)
    values = {name: convert(value) for name, value in fields.items() if name != "Mid"}
    if "Mid" in fields:
        mid = dict(fields["Mid"])
        inner = {name: convert(value) for name, value in mid.pop("In", {}).items()}
        values["Mid"] = types["FlatMid"](In=types["FlatInner"](**inner),
                                         **{name: convert(value) for name, value in mid.items()})
    return types["FlatHolder"](**values)


def assert_flat_agrees_with_general(fields: dict[str, Any], schema: Any = FLAT_SCHEMA) -> Any:
    exact, general = flat_record(fields, False, schema), flat_record(fields, True, schema)
    got = outcome(lambda: schema.encode(exact))
    assert got == outcome(lambda: schema.encode(general))
    listed = outcome(lambda: schema.encode(schema.types["FlatList"](Items=[exact, exact])))
    assert listed == outcome(lambda: schema.encode(schema.types["FlatList"](Items=[general, general])))
    assert (outcome(lambda: schema.encode(exact, structnames=False))
            == outcome(lambda: schema.encode(general, structnames=False)))
    if isinstance(got, bytes):
        buffer = bytearray(b"head")
        schema.encode_into(exact, buffer, -1)
        assert bytes(buffer) == b"head" + got
    return got


@settings(max_examples=600, deadline=None)
@given(st.fixed_dictionaries({}, optional=FLAT_FIELDS))
def test_flat_records_with_lists_maps_and_structs_encode_as_the_general_path(fields: dict[str, Any]) -> None:
    assert_flat_agrees_with_general(fields)


def test_flat_records_keep_the_general_paths_errors_and_paths() -> None:
    cases = [
        ({"Strs": ["a", "b\udc80"]}, r"Strs\[1\]", "UTF-8"),
        ({"I16s": [1, 2**15]}, r"I16s\[1\]", "outside the range of int16"),
        ({"PBools": [None, 0]}, r"PBools\[1\]", "expected bool"),
        ({"SMap": {"a": 1, "b": 2**63}}, r"SMap\['b'\]", "outside the range of int64"),
        ({"UMap": {"a": -1}}, r"UMap\['a'\]", "outside the range of uint32"),
        ({"FMap": {"a": "x"}}, r"FMap\[.a.\]", "expected float64"),
        ({"IMap": {1: "a", 2**63: "b"}}, r"IMap", "outside the range of int64"),
        ({"I32Map": {1: 0.5, -2**31 - 1: 1.5}}, r"I32Map", "outside the range of int32"),
        ({"I32Map": {1: 1e39}}, r"I32Map\[1\]", "float32"),
        ({"BIMap": {1: True, 2: 1}}, r"BIMap\[2\]", "expected bool"),
        ({"SSMap": {"a": "b", "c": "\udc80"}}, r"SSMap\['c'\]", "UTF-8"),
        ({"SSMap": {"a": "b", "c": None}}, r"SSMap\['c'\]", "None"),
        ({"BMap": {"a": 0}}, r"BMap\['a'\]", "expected bool"),
        ({"UVMap": {1: 256}}, r"UVMap\[1\]", "outside the range of uint8"),
        ({"UVMap": {1: -1}}, r"UVMap\[1\]", "outside the range of uint8"),
        ({"Times": [datetime(2020, 1, 1, tzinfo=timezone.utc), datetime(2020, 1, 1)]}, r"Times\[1\]", "naive"),
        ({"PTimes": [None, "2020"]}, r"PTimes\[1\]", "expected time.Time"),
        ({"TMap": {1: datetime(2020, 1, 1)}}, r"TMap\[1\]", "naive"),
        ({"Mid": {"In": {"Tags": ["x", None]}}}, r"Mid\.In\.Tags\[1\]", "None"),
        ({"Mid": {"In": {"X": 2**63}}}, r"Mid\.In\.X", "outside the range of int64"),
    ]
    for fields, path, reason in cases:
        error = assert_flat_agrees_with_general(fields)
        assert error[0] == "error" and reason in error[1], (fields, error)
        assert re.search(path, error[2]), (fields, error)
    record = flat_record({"Strs": ["a"]}, False)
    record.Mid = None
    with pytest.raises(EncodeError, match="expected FlatMid"):
        FLAT_SCHEMA.encode(record)


def test_flat_records_of_every_size_are_written_whole() -> None:
    """Lists, maps and nested records past the stack buffer and the record's first size:
    the budget the fields' data share, checked and not, is what they take."""
    for n in (0, 1, 15, 16, 60, 500, 3000):
        fields = {"S": "s" * n, "Strs": ["x" * (n % 40)] * n, "F64s": [0.5] * n, "U64s": [2**64 - 1] * n,
                  "PInts": [None, -2**63] * (n // 2), "Bools": [True] * n, "SMap": {f"k{i}": -i for i in range(n)},
                  "FMap": {"f" * n: 1.5}, "Mid": {"In": {"X": n, "Tags": ["t" * n] * 3}, "F": -0.0}, "Tail": n}
        data = assert_flat_agrees_with_general(fields)
        assert isinstance(data, bytes)
        back = FLAT_SCHEMA.decode(data)
        assert back.Strs == fields["Strs"] and back.SMap == fields["SMap"] and back.Mid.In.Tags == ["t" * n] * 3


def test_flat_records_respect_max_depth() -> None:
    """A record's lists and structs are levels (max_depth): a schema whose max_depth the
    record passes refuses it as it did, at the root and as a list's item."""
    value = {"Mid": {"In": {"Tags": ["a"]}}}
    # FlatHolder, Mid, In, Tags: 4 levels; in FlatList.Items: 6
    for depth in range(1, 8):
        root_fails, item_fails = depth < 4, depth < 6
        schema = zebrapack.schema_from_dataclasses(FlatHolder, FlatList, package="flat", max_depth=depth)
        record = flat_record(value, False, schema)
        got = outcome(lambda: schema.encode(record))
        assert (got[0] == "error" and "max_depth" in got[1]) == root_fails, (depth, got)
        assert got == outcome(lambda: schema.encode(flat_record(value, True, schema)))
        listed = outcome(lambda: schema.encode(schema.types["FlatList"](Items=[record])))
        assert (listed[0] == "error" and "max_depth" in listed[1]) == item_fails, (depth, listed)
        # a record whose empty list is left out takes a level less: Items, FlatHolder, Mid, In
        for disguise in (False, True):
            shallow = outcome(lambda: schema.encode(schema.types["FlatList"](
                Items=[flat_record({"S": "a"}, disguise, schema)])))
            assert (shallow[0] == "error") == (depth < 5), (depth, shallow)


def test_flat_records_about_the_stack_buffers_size_encode_as_the_general_path() -> None:
    """A record of a flat plan about the size of encode's stack buffer (512 bytes), each
    size encoded after one of its own size and after a small one (the size hint the
    buffer and write_flat_record's room test go by): the same bytes as the general path."""
    for n in range(300, 640, 7):
        fields = {"S": "s" * (n % 13), "TMap": {i: datetime(2020, 1, 1 + i, tzinfo=timezone.utc) for i in range(8)},
                  "SSMap": {"key": "v" * (n - 260)}, "IMap": {-i: "x" * (i % 5) for i in range(6)}}
        for before in ({"S": "small"}, fields):
            FLAT_SCHEMA.encode(flat_record(before, False))
            data = assert_flat_agrees_with_general(fields)
            assert isinstance(data, bytes)
            assert FLAT_SCHEMA.decode(data).SSMap == fields["SSMap"]
