"""zpa.write of every schema kind: each check compares the bytes written from Arrow
with schema.encode of the Python records the same values are (docs/arrow.md)."""

from __future__ import annotations

import math
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import zebrapack
from zebrapack import examples

from support.engines import engine
from .writing import encoded, interface_bytes, table_of, written, zebrapack_zero

pa = engine("pyarrow")

UTC = timezone.utc

KINDS_GO = '''package kinds

import (
	"time"

	"github.com/glycerine/zebrapack/msgp"
)

type Pet interface {
	msgp.Encodable
}

type Dog struct {
	Nm    string `zid:"0"`
	Barks int64  `zid:"1"`
}

type Leaf struct {
	N int16  `zid:"0"`
	S string `zid:"1"`
}

type Kinds struct {
	Ext     msgp.Extension    `zid:"0"`
	Pet     Pet               `msg:",iface" zid:"1"`
	Pets    []Pet             `msg:",iface" zid:"2"`
	PP      **Leaf            `zid:"3"`
	PStr    *string           `zid:"4"`
	PTime   *time.Time        `zid:"5"`
	U8s     []uint8           `zid:"6"`
	U8Arr   [3]uint8          `zid:"7"`
	Bytes   []byte            `zid:"8"`
	F32s    []float32         `zid:"9"`
	Leaves  map[string]Leaf   `zid:"10"`
	ByNum   map[int32]*Leaf   `zid:"11"`
	Grid    [2][2]int8        `zid:"12"`
	Stamps  []time.Time       `zid:"13"`
	Anys    []interface{}     `zid:"14"`
	Any     interface{}       `zid:"15"`
	C64     complex64         `zid:"16"`
	Exts    []msgp.Extension  `zid:"17"`
	Tagged  string            `zid:"18" msg:"tagged,omitempty"`
	Sized   [2]byte           `zid:"19"`
	When    time.Time         `zid:"20"`
	Dog     Dog               `zid:"21"`
}
'''


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return zebrapack.load(examples.SCHEMA)


@pytest.fixture(scope="module")
def kinds(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    path = tmp_path_factory.mktemp("kinds") / "kinds.go"
    path.write_text(KINDS_GO)
    return zebrapack.schema_from_go(path)


def check(schema: zebrapack.Schema, records: list[Any], type: Any = None, time_unit: str = "ns",
          **options: Any) -> bytes:
    """Written from Arrow == encoded from Python, with the same deprecation warnings."""
    table = table_of(pa, schema, records, type, time_unit=time_unit, **options)
    with warnings.catch_warnings(record=True) as written_warnings:
        warnings.simplefilter("always")
        data = written(table, schema, type, **options)
    with warnings.catch_warnings(record=True) as encoded_warnings:
        warnings.simplefilter("always")
        assert data == encoded(schema, records, **options)
    assert {str(w.message) for w in written_warnings} == {str(w.message) for w in encoded_warnings}
    return data


MODES = [{}, {"structnames": False}, {"mode": "msgp"}]


@pytest.mark.parametrize("options", MODES, ids=["zebrapack", "no-structnames", "msgp"])
def test_example_records_of_every_struct_write_as_encode_writes_them(zp: zebrapack.Schema,
                                                                   options: dict[str, Any]) -> None:
    A, Prims, Inner, Compound = zp.types.A, zp.types.Prims, zp.types.Inner, zp.types.Compound
    moment = datetime(2021, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
    check(zp, [A("x", moment, "555", 3, 2.5, True), zebrapack_zero(zp, "A"),
               A("", datetime(1, 1, 1, tzinfo=UTC), "", 0, -0.0, False)], "A", **options)
    prims = zebrapack_zero(zp, "Prims")
    full = Prims(S="s", Bin=b"\x00\x01", F32=1.5, F64=-2.25, C64=1 + 2j, C128=-3.5j, U=2**64 - 1, U8=255,
                 U16=65535, U32=2**32 - 1, U64=2**63, By=7, I=-2**63, I8=-128, I16=-32768, I32=-2**31,
                 I64=2**63 - 1, B=True, T=moment, Any={"k": [1, "two", None, 3.5]})
    check(zp, [prims, full], "Prims", **options)
    compound = zebrapack_zero(zp, "Compound")
    for name, value in dict(Ints=[1, -2, 300], Strs=["a", ""], Arr=[1.0, 0.0, -0.0], ByteArr=b"abcd",
                            SMap={"z": 1, "a": 0}, IMap={-5: "neg", 7: ""}, Nested=Inner(3, "in"), Ptr=None,
                            Inners=[Inner(0, ""), Inner(1, "b")], PInners=[None, Inner(2, "c")],
                            MInner={"p": None, "q": Inner(4, "")}, Matrix=[[1], [], [2, 3]], Shown=0, PInt=0,
                            Renamed="r", Anys=[None, 1, "s", [True]],
                            Times=[moment, datetime(1, 1, 1, tzinfo=UTC)]).items():
        setattr(compound, name, value)
    check(zp, [compound, zebrapack_zero(zp, "Compound")], "Compound", time_unit="us", **options)


@pytest.mark.parametrize("options", MODES, ids=["zebrapack", "no-structnames", "msgp"])
def test_every_other_kind_writes_as_encode_writes_it(kinds: zebrapack.Schema, options: dict[str, Any]) -> None:
    T = kinds.types
    moment = datetime(1999, 12, 31, 23, 59, 59, 5, tzinfo=UTC)
    full = T.Kinds(
        Ext=zebrapack.Ext(7, b"\x01\x02\x03"), Pet=T.Dog("rex", 3), Pets=[T.Dog("a", 1), None, T.Dog("", 0)],
        PP=T.Leaf(-3, "pp"), PStr="", PTime=datetime(1, 1, 1, tzinfo=UTC), U8s=[0, 255], U8Arr=[1, 2, 3],
        Bytes=b"\xff" * 300, F32s=[1.5, -0.0, math.inf], Leaves={"a": T.Leaf(1, "x"), "": T.Leaf(0, "")},
        ByNum={3: None, -4: T.Leaf(2, "")}, Grid=[[1, -1], [127, -128]], Stamps=[moment],
        Anys=[{"m": {"n": [1, 2]}}, b"bin", -7], Any=None, C64=0.5 - 0.25j,
        Exts=[zebrapack.Ext(-1, b"\x00" * 12), zebrapack.Ext(100, b"x" * 300)], Tagged="t", Sized=b"hi",
        When=moment, Dog=T.Dog("d", -1))
    empty = zebrapack_zero(kinds, "Kinds")
    check(kinds, [full, empty], "Kinds", time_unit="us", **options)


def test_struct_names_and_modes_change_the_bytes_as_they_change_encode(zp: zebrapack.Schema) -> None:
    record = zp.types.A("n", datetime(2000, 1, 1, tzinfo=UTC), "", 0, 0.0, False)
    table = table_of(pa, zp, [record], "A")
    assert written(table, zp, "A").startswith(b"\x83\xff\xa1A")             # name, Name, Bday
    assert written(table, zp, "A", structnames=False) == zp.encode(record, structnames=False)
    assert written(table, zp, "A", mode="msgp") == zp.encode(record, mode="msgp")


def test_the_go_records_of_the_examples_write_back_byte_for_byte(zp: zebrapack.Schema) -> None:
    data = Path(examples.RECORDS).read_bytes()
    records = zp.decode_all(data)
    assert written(table_of(pa, zp, records, "A"), zp, "A") == data


def test_timestamps_of_every_unit_and_zone_write_the_same_instant(zp: zebrapack.Schema) -> None:
    moment = datetime(2020, 2, 29, 12, 0, 1, 250000, tzinfo=UTC)
    expected = zp.encode(zp.types.A("", moment, "", 0, 0.0, False))
    seconds = int(moment.timestamp())
    for unit, value in [("s", None), ("ms", seconds * 1000 + 250), ("us", seconds * 10**6 + 250000),
                        ("ns", seconds * 10**9 + 250000000)]:
        for zone in ["UTC", "Europe/Paris", "+05:30"]:
            if value is None:
                continue
            table = pa.table({"Bday": pa.array([value], pa.timestamp(unit, zone))})
            assert written(table, zp, "A") == expected, (unit, zone)
    whole = zp.encode(zp.types.A("", moment.replace(microsecond=0), "", 0, 0.0, False))
    assert written(pa.table({"Bday": pa.array([seconds], pa.timestamp("s", "UTC"))}), zp, "A") == whole


def test_a_time_with_nanoseconds_is_written_with_them(zp: zebrapack.Schema) -> None:
    nanos = 1_600_000_000_123_456_789
    stamp = zebrapack.Timestamp.from_datetime(datetime(2020, 9, 13, 12, 26, 40, 123456, tzinfo=UTC), 789)
    table = pa.table({"Bday": pa.array([nanos], pa.timestamp("ns", "UTC"))})
    assert written(table, zp, "A") == zp.encode(zp.types.A("", stamp, "", 0, 0.0, False))


def test_times_before_1970_and_far_away_write_as_go_does(zp: zebrapack.Schema) -> None:
    for moment in [datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), datetime(1, 1, 1, 0, 0, 1, tzinfo=UTC),
                   datetime(9999, 12, 31, tzinfo=UTC)]:
        micros = (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
        table = pa.table({"Bday": pa.array([micros], pa.timestamp("us", "UTC"))})
        assert written(table, zp, "A") == zp.encode(zp.types.A("", moment, "", 0, 0.0, False))
    beyond = zebrapack.GoTime(2**62, 5)
    table = pa.table({"T": pa.array([2**62], pa.timestamp("s", "UTC"))})
    prims = zebrapack_zero(zp, "Prims")
    prims.T = zebrapack.GoTime(2**62, 0)
    assert written(table, zp, "Prims") == zp.encode(prims)
    assert beyond.seconds == 2**62


def test_go_zero_time_and_null_are_one_value_in_a_time_field(zp: zebrapack.Schema) -> None:
    zero = (datetime(1, 1, 1, tzinfo=UTC) - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(seconds=1)
    for column in [pa.array([zero], pa.timestamp("s", "UTC")), pa.array([None], pa.timestamp("us", "UTC")),
                   pa.nulls(1)]:
        table = pa.table({"Bday": column})
        for options in MODES:
            assert written(table, zp, "A", **options) == zp.encode(zebrapack_zero(zp, "A"), **options)


def test_missing_columns_are_the_fields_zero_values(zp: zebrapack.Schema) -> None:
    table = pa.table({"Name": ["only"]})
    record = zp.types.A("only", None, "", 0, 0.0, False)
    for options in MODES:
        assert written(table, zp, "A", **options) == zp.encode(record, **options)
    compound = zebrapack_zero(zp, "Compound")
    compound.Renamed = "r"
    table = pa.table({"Renamed": ["r"]})
    for options in MODES[:2]:
        assert written(table, zp, "Compound", **options) == zp.encode(compound, **options)
    # msgp mode writes the deprecated Old's zero: it warns, as encode does
    with pytest.warns(DeprecationWarning, match="Compound.Old"):
        data = written(table, zp, "Compound", mode="msgp")
    with pytest.warns(DeprecationWarning, match="Compound.Old"):
        assert data == zp.encode(compound, mode="msgp")


def test_interface_values_are_written_verbatim(zp: zebrapack.Schema) -> None:
    raw = interface_bytes(zp, {"a": [1, 2.5, None]})
    prims = zebrapack_zero(zp, "Prims")
    prims.Any = {"a": [1, 2.5, None]}
    table = pa.table({"Any": pa.array([raw, None], pa.binary())})
    assert written(table, zp, "Prims") == zp.encode(prims) + zp.encode(zebrapack_zero(zp, "Prims"))
    # bytes encode would not write (an int64 where the smallest form is one byte) go through unchanged
    odd = b"\xd3" + (5).to_bytes(8, "big")
    data = written(pa.table({"Any": pa.array([odd], pa.binary())}), zp, "Prims")
    assert data.endswith(b"\x13" + odd)
    assert zp.decode(data).Any == 5


@pytest.mark.parametrize("options", MODES, ids=["zebrapack", "no-structnames", "msgp"])
def test_a_recursive_struct_column_holds_its_values_own_bytes(zp: zebrapack.Schema, options: dict[str, Any]) -> None:
    Tree = zp.types.Tree
    leaf = Tree([], "leaf", 1.5, None)
    parent = Tree([leaf, zebrapack_zero(zp, "Tree")], "root", 0.0, leaf)
    check(zp, [parent, zebrapack_zero(zp, "Tree")], "Tree", **options)
    # a nil in the bytes of a struct value reads as its zero value: written as encode writes that
    kids = pa.array([[b"\xc0"]], pa.list_(pa.binary()))
    expected = zp.encode(Tree([zebrapack_zero(zp, "Tree")], "", 0.0, None), **options)
    assert written(pa.table({"Kids": kids}), zp, "Tree", **options) == expected
    assert zp.decode(expected, "Tree").Kids == [zebrapack_zero(zp, "Tree")]
