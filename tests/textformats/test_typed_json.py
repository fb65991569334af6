"""Typed JSON <-> Python values by declared type (zebrapack.textformats.typed_json)."""

from __future__ import annotations

import json
import math
import struct
from datetime import datetime, timezone
from typing import Any

import pytest
from support.expected_values import same

import zebrapack
from zebrapack.textformats.typed_json import (
    TypedJson,
    TypedJsonError,
    format_time,
    json_reader,
    json_writer,
    parse_time,
)

UTC = timezone.utc


def through_text(converter: TypedJson, record: Any) -> Any:
    """record -> typed JSON text -> record."""
    text = json_writer()(converter.to_json(record))
    return converter.from_json(json_reader()(text))


def nan_with_payload(payload: int) -> float:
    value: float = struct.unpack(">d", struct.pack(">Q", 0x7FF8000000000000 | payload))[0]
    return value


def float_bits(value: float) -> int:
    bits: int = struct.unpack(">Q", struct.pack(">d", value))[0]
    return bits


def test_struct_object_lists_every_serialized_field_by_go_name_with_type_first(zp: zebrapack.Schema) -> None:
    document = TypedJson(zp).to_json(zp.types.Compound())
    fields = [f.go_name for f in zp.structs["Compound"].fields if not f.skip]
    assert list(document) == ["$type", *fields]
    assert document["$type"] == "Compound" and "Gone" not in document and "UMap" not in document


@pytest.mark.parametrize(("value", "expected"), [
    (math.inf, {"$float": "inf"}),
    (-math.inf, {"$float": "-inf"}),
    (-0.0, {"$float": "-0"}),
    (math.nan, {"$float": "nan"}),
    (nan_with_payload(1), {"$float": "nan", "$bits": "7ff8000000000001"}),
    (1.5, 1.5),
])
def test_special_floats_are_float_objects_and_nan_payloads_keep_their_bits(
        zp: zebrapack.Schema, value: float, expected: Any) -> None:
    converter = TypedJson(zp)
    document = converter.to_json(zp.types.Prims(F64=value))
    assert document["F64"] == expected
    back = through_text(converter, zp.types.Prims(F64=value)).F64
    assert float_bits(back) == float_bits(value)


def test_float32_field_takes_exact_integers_and_rounds_fractions_as_the_encoder_does(zp: zebrapack.Schema) -> None:
    converter = TypedJson(zp)
    assert converter.from_json({"$type": "Prims", "F32": 16777216}).F32 == 16777216.0
    with pytest.raises(TypedJsonError, match=r"^Prims\.F32: 16777217 is not exactly a float32$"):
        converter.from_json({"$type": "Prims", "F32": 16777217})
    rounded = converter.from_json({"$type": "Prims", "F32": 0.1})
    assert zp.decode(zp.encode(rounded)).F32 == struct.unpack(">f", struct.pack(">f", 0.1))[0]


def test_interface_float_keeps_its_fraction_so_it_reads_back_as_a_float(zp: zebrapack.Schema) -> None:
    converter = TypedJson(zp)
    text = json_writer()(converter.to_json(zp.types.Prims(Any=[2.0, 2, 1e300, True])))
    assert '"Any": [2.0, 2, 1e+300, true]' in text
    same(converter.from_json(json_reader()(text)).Any, [2.0, 2, 1e300, True])


def test_interface_values_of_every_kind_round_trip_with_their_types(zp: zebrapack.Schema) -> None:
    converter = TypedJson(zp)
    moment = zebrapack.Timestamp(2017, 2, 16, 10, 0, 0, 500000, UTC, nanosecond=7)
    value = [None, False, -3, 18446744073709551615, 0.5, "s", b"\x00\xff", moment, 1.5 - 2j,
             zebrapack.Ext(42, b"\x01"), {"k": [1, {"n": None}]}, {7: "int key", b"b": "bytes key"},
             zp.types.Inner(X=1, Y="in")]
    back = through_text(converter, zp.types.Prims(Any=value)).Any
    same(back, value)
    assert back[7].nanosecond == 7


def test_times_print_as_go_does_and_read_back_to_the_nanosecond() -> None:
    cases = {
        datetime(1990, 12, 20, tzinfo=UTC): "1990-12-20T00:00:00Z",
        datetime(2017, 2, 16, 10, 0, 0, 500000, tzinfo=UTC): "2017-02-16T10:00:00.5Z",
        zebrapack.Timestamp(1969, 7, 20, 20, 17, 40, 123456, UTC, nanosecond=789): "1969-07-20T20:17:40.123456789Z",
        zebrapack.Timestamp(1, 1, 1, tzinfo=UTC, nanosecond=1): "0001-01-01T00:00:00.000000001Z",
    }
    for moment, text in cases.items():
        assert format_time(moment) == text
        same(parse_time(text), moment)


def test_go_zero_time_is_none_in_a_field_and_a_datetime_inside_a_container(zp: zebrapack.Schema) -> None:
    converter = TypedJson(zp)
    zero = {"$time": "0001-01-01T00:00:00Z"}
    record = converter.from_json({"$type": "Compound", "Times": [zero]})
    assert record.Times == [datetime(1, 1, 1, tzinfo=UTC)]
    assert converter.from_json({"$type": "A", "Bday": zero}).Bday is None
    assert converter.to_json(zp.types.A())["Bday"] == zero


def test_maps_are_sorted_by_key_text_unless_kept_in_wire_order(zp: zebrapack.Schema) -> None:
    record = zp.types.Compound(IMap={9: "nine", 10: "ten", -1: "minus"}, SMap={"b": 1, "a": 2})
    sorted_json = TypedJson(zp).to_json(record)
    assert sorted_json["IMap"] == {"$map": [[-1, "minus"], [10, "ten"], [9, "nine"]]}
    assert sorted_json["SMap"] == {"$map": [["a", 2], ["b", 1]]}
    wire_json = TypedJson(zp, sort_maps=False).to_json(record)
    assert wire_json["IMap"] == {"$map": [[9, "nine"], [10, "ten"], [-1, "minus"]]}
    assert list(TypedJson(zp).from_json(wire_json).IMap) == [9, 10, -1]


def test_extension_values_are_ext_objects(zp: zebrapack.Schema) -> None:
    schema = zebrapack.load({"Structs": {"E": {"StructName": "E", "Fields": [
        {"Zid": 0, "FieldGoName": "X", "FieldTypeStr": "msgp.Extension", "FieldCategory": 23,
         "FieldPrimitive": 21, "FieldFullType": {"Kind": 21, "Str": "Ext"}}]}}})
    converter = TypedJson(schema)
    record = schema.types.E(X=zebrapack.Ext(-3, b"\xab"))
    assert converter.to_json(record) == {"$type": "E", "X": {"$ext": [-3, "ab"]}}
    assert through_text(converter, record) == record
    assert converter.from_json({"$type": "E", "X": None}).X is None


@pytest.mark.parametrize(("document", "message"), [
    ({"$type": "A", "Sibs": "3"}, 'A.Sibs: expected int, found string "3"'),
    ({"$type": "A", "Sibs": True}, "A.Sibs: expected int, found true"),
    ({"$type": "A", "Sibs": 3.0}, "A.Sibs: expected int, found number 3.0"),
    ({"$type": "A", "Friend": 1}, "A.Friend: expected bool, found number 1"),
    ({"$type": "A", "GPA": "1"}, 'A.GPA: expected a number or {"$float": ...}, found string "1"'),
    ({"$type": "A", "Nickname": ""}, "A: struct A has no field 'Nickname'"),
    ({"$type": "A", "Bday": "1990-12-20"}, 'A.Bday: expected {"$time": ...}, found string "1990-12-20"'),
    ({"$type": "A", "Bday": {"$time": "1990-12-20T00:00:00+01:00"}}, "A.Bday: $time must be RFC 3339 UTC"),
    ({"$type": "A", "Bday": {"$time": "1990-13-20T00:00:00Z"}}, "A.Bday: $time '1990-13-20T00:00:00Z': month"),
    ({"$type": "Compound", "Inners": [{}, {"X": "1"}]}, 'Compound.Inners[1].X: expected int32, found string "1"'),
    ({"$type": "Compound", "Nested": {"$type": "Tree"}}, "Compound.Nested: $type 'Tree' where struct Inner is"),
    ({"$type": "Compound", "SMap": {"$map": [["a", 1], ["a", 2]]}}, "Compound.SMap['a']: the key appears twice"),
    ({"$type": "Compound", "SMap": {"$map": [[1, 1]]}}, "Compound.SMap[<key>]: expected string, found number 1"),
    ({"$type": "Compound", "SMap": {"a": 1}}, 'Compound.SMap: expected {"$map": ...}, found an object'),
    ({"$type": "Compound", "Strs": None}, "Compound.Strs: expected []string (an array), found null"),
    ({"$type": "Compound", "ByteArr": {"$bytes": "0"}}, "Compound.ByteArr: $bytes must be hex digits in pairs"),
    ({"$type": "Compound", "Anys": [{"k": 1}]}, "Compound.Anys[0]: an interface{} object has one of the keys"),
    ({"$type": "Compound", "Anys": [{"$map": [[[1], 2]]}]}, "Compound.Anys[0][<key>]: an array cannot be a map key"),
    ({"$type": "Prims", "F64": {"$float": "nan", "$bits": "0000000000000001"}}, "Prims.F64: $bits 0000000000000001 is not a NaN"),
    ({"$type": "Prims", "C64": {"$complex": [1]}}, "Prims.C64: $complex must be [real, imag]"),
    ({"$type": "Nope"}, "$: the schema has no struct 'Nope'"),
    ({"Name": "x"}, '$: the record has no "$type" naming its struct'),
])
def test_reading_rejects_json_that_does_not_fit_the_type_with_the_field_path(
        zp: zebrapack.Schema, document: dict[str, Any], message: str) -> None:
    with pytest.raises(TypedJsonError) as caught:
        TypedJson(zp).from_json(document)
    assert str(caught.value).startswith(message), str(caught.value)


def test_declared_record_type_must_match_the_records_own(zp: zebrapack.Schema) -> None:
    converter = TypedJson(zp)
    assert isinstance(converter.from_json({"Name": "x"}, "A"), zp.types.A)
    with pytest.raises(TypedJsonError, match=r"^A: the record is a 'Tree', expected 'A'$"):
        converter.from_json({"$type": "Tree"}, "A")


@pytest.mark.parametrize(("text", "message"), [
    ('{"GPA": NaN}', 'NaN is not JSON; typed JSON writes {"$float": ...}'),
    ('{"GPA": -Infinity}', "-Infinity is not JSON"),
    ('{"GPA": 1e999}', "number 1e999 is beyond float64"),
    ('{"Name": "a", "Name": "b"}', "key 'Name' appears twice in an object"),
])
def test_json_text_is_read_strictly(text: str, message: str) -> None:
    with pytest.raises(TypedJsonError) as caught:
        json_reader()(text)
    assert str(caught.value).startswith(message)


def test_json_writer_indents_with_pretty() -> None:
    document = {"$type": "A", "Name": "Ünï"}
    assert json_writer()(document) == '{"$type": "A", "Name": "Ünï"}'
    assert json.loads(json_writer(pretty=True)(document)) == document
    assert json_writer(pretty=True)(document).count("\n") == 3
