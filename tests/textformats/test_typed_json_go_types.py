"""Typed JSON keeps Go's dynamic types (``$f32``, ``$uint``, ``$complex64``) and times
beyond datetime's years (``$gotime``), so that ``zebrapack dump | zebrapack encode``
gives back every byte-exact golden record."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from support.cli import call_main
from support.golden import GOLDEN, GOLDEN_RECORDS, golden_bytes, golden_schema

import zebrapack
from zebrapack import GoComplex64, GoFloat32, GoTime, GoUint64
from zebrapack.textformats.typed_json import TypedJson, TypedJsonError

MY = zebrapack.load(GOLDEN / "schemas" / "my.z")
DEEP = zebrapack.load(GOLDEN / "schemas" / "deep.z")


def sys_json(value: Any) -> Any:
    return TypedJson(MY).to_json(MY.types.Sys(F=value))["F"]


@pytest.mark.parametrize(("value", "typed"), [
    (GoUint64(403), {"$uint": 403}),
    (GoFloat32(1.5), {"$f32": 1.5}),
    (GoFloat32(-0.0), {"$f32": {"$float": "-0"}}),
    (GoFloat32(math.inf), {"$f32": {"$float": "inf"}}),
    (GoComplex64(1.5, -2), {"$complex64": [1.5, -2.0]}),
    (GoTime(-62135596801, 5), {"$gotime": [-62135596801, 5]}),
    (403, 403),
    (1.5, 1.5),
    (complex(1.5, -2), {"$complex": [1.5, -2.0]}),
    (zebrapack.Ext(-1, b"\x01\x02\x03\x04"), {"$ext": [-1, "01020304"]}),
], ids=repr)
def test_interface_values_keep_their_go_type_in_typed_json(value: Any, typed: Any) -> None:
    assert sys_json(value) == typed
    back = TypedJson(MY).from_json({"$type": "Sys", "F": typed}).F
    assert type(back) is type(value) and repr(back) == repr(value)


def test_go_times_in_time_fields_are_gotime_objects() -> None:
    deep = DEEP.types["Deep"](Times=[GoTime(253402300800)])
    leaf = DEEP.types["Leaf"](When=GoTime(-62135596801))
    converter = TypedJson(DEEP)
    assert converter.to_json(deep)["Times"] == [{"$gotime": [253402300800, 0]}]
    assert converter.to_json(leaf)["When"] == {"$gotime": [-62135596801, 0]}
    assert converter.from_json(converter.to_json(deep)) == deep
    assert converter.from_json(converter.to_json(leaf)) == leaf


@pytest.mark.parametrize(("typed", "message"), [
    ({"$uint": -1}, "GoUint64: -1 is outside the range of uint64"),
    ({"$uint": 1.5}, r"\$uint must be an integer"),
    ({"$f32": 1e300}, "GoFloat32: 1e\\+300 overflows float32"),
    ({"$complex64": [1]}, r"\$complex must be \[real, imag\]"),
    ({"$gotime": [1]}, r"\$gotime must be \[unix_seconds, nanoseconds\]"),
    ({"$gotime": [1, 10**9]}, "nanoseconds 1000000000 is outside"),
    ({"$uint": 1, "$f32": 1.0}, "one of the keys"),
])
def test_bad_go_type_markers_are_typed_json_errors(typed: Any, message: str) -> None:
    with pytest.raises(TypedJsonError, match=message):
        TypedJson(MY).from_json({"$type": "Sys", "F": typed})


def _cli_args(record: dict[str, Any]) -> tuple[list[str], list[str]]:
    schema = str(GOLDEN / record["schema"])
    dump = ["dump", "-s", schema, "--type", record["type"]]
    encode = ["encode", "--schema", schema]
    if not record["structnames_on_wire"]:
        encode += ["--type", record["type"]]
        if record["mode"] == "zebrapack":
            encode.append("--no-structnames")
    if record["mode"] == "msgp":
        encode.append("--msgp")
    return dump, encode


EXACT = [record for record in GOLDEN_RECORDS if record["byte_exact"]]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("record", EXACT, ids=[record["id"] for record in EXACT])
def test_dump_then_encode_reproduces_the_golden_record(monkeypatch: pytest.MonkeyPatch,
                                                       record: dict[str, Any]) -> None:
    dump_args, encode_args = _cli_args(record)
    status, typed_json, error = call_main(monkeypatch, *dump_args, GOLDEN / record["file"])
    assert status == 0, error
    status, data, error = call_main(monkeypatch, *encode_args, stdin=typed_json)
    assert status == 0, error
    assert data.hex() == golden_bytes(record).hex()


def test_the_golden_float32_interfaces_are_dumped_as_f32() -> None:
    record = next(r for r in GOLDEN_RECORDS if r["id"] == "my/Sys_004")
    schema = golden_schema(record)
    value = schema.decode(golden_bytes(record))
    assert json.loads(json.dumps(TypedJson(schema).to_json(value))) == {"$type": "Sys", "F": {"$f32": float(value.F)}}
