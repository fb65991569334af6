"""The vectors' typed JSON (tests/vectors/README.md) as Python values, and a strict
comparison of decoded values (types, NaN, the sign of zero, nanoseconds)."""

from __future__ import annotations

import dataclasses
import math
import re
from datetime import datetime, timezone
from typing import Any

import zebrapack
from zebrapack import Kind, TypeRef

_TIME = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z$")


def parse_time(text: str) -> datetime:
    """RFC 3339 UTC with up to nine fraction digits -> datetime, or Timestamp below the microsecond."""
    match = _TIME.match(text)
    assert match, text
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    nanos = int((match.group(7) or "").ljust(9, "0"))
    if nanos % 1000 == 0:
        return datetime(year, month, day, hour, minute, second, nanos // 1000, tzinfo=timezone.utc)
    return zebrapack.Timestamp(year, month, day, hour, minute, second, nanos // 1000,
                               timezone.utc, nanosecond=nanos % 1000)


def _float(value: Any) -> float:
    if isinstance(value, dict):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0}[value["$float"]]
    return float(value)


def dynamic(value: Any, schema: zebrapack.Schema) -> Any:
    """An interface{} value: the JSON shape alone says the Python type."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, list):
        return [dynamic(item, schema) for item in value]
    assert isinstance(value, dict), value
    if "$type" in value:
        return struct(value, schema)
    if "$map" in value:
        return {dynamic(k, schema): dynamic(v, schema) for k, v in value["$map"]}
    if "$bytes" in value:
        return bytes.fromhex(value["$bytes"])
    if "$time" in value:
        return parse_time(value["$time"])
    if "$complex" in value:
        real, imag = value["$complex"]
        return complex(_float(real), _float(imag))
    if "$float" in value:
        return _float(value)
    raise AssertionError(f"unknown typed JSON {value!r}")


def typed(value: Any, type_ref: TypeRef, schema: zebrapack.Schema, field_level: bool = False) -> Any:
    """A value of a declared type, under the mapping rules of docs/mapping.md."""
    kind = type_ref.kind
    if kind == Kind.TIME:
        moment = parse_time(value["$time"])
        zero = moment == datetime(1, 1, 1, tzinfo=timezone.utc)
        return None if field_level and zero else moment
    if kind in (Kind.FLOAT32, Kind.FLOAT64):
        return _float(value)
    if kind in (Kind.INTF,):
        return dynamic(value, schema)
    if value is None:
        return None
    if kind == Kind.POINTER:
        return typed(value, type_ref.elem_type, schema)
    if kind == Kind.IDENT_IFACE or kind == Kind.STRUCT:
        return struct(value, schema)
    if kind in (Kind.SLICE, Kind.ARRAY):
        if isinstance(value, dict):          # [N]byte
            return bytes.fromhex(value["$bytes"])
        return [typed(item, type_ref.elem_type, schema) for item in value]
    if kind == Kind.MAP:
        assert type_ref.key is not None
        return {typed(k, type_ref.key, schema): typed(v, type_ref.elem_type, schema) for k, v in value["$map"]}
    return dynamic(value, schema)


def struct(value: dict[str, Any], schema: zebrapack.Schema) -> Any:
    name = value["$type"]
    definition = schema.structs[name]
    kwargs = {}
    for f in definition.wire_fields:
        assert f.type is not None
        assert f.go_name in value, (name, f.go_name)
        kwargs[f.attr] = typed(value[f.go_name], f.type, schema, field_level=True)
    extra = set(value) - {"$type"} - {f.go_name for f in definition.wire_fields}
    assert not extra, (name, extra)
    return schema.types[name](**kwargs)


def expected_value(case: dict[str, Any], schema: zebrapack.Schema) -> Any:
    if "count" in case:
        return [struct(item, schema) for item in case["expect"]]
    return struct(case["expect"], schema)


#: The Go number types of interface{} values, and the plain type the vectors' typed JSON
#: gives them (it carries no Go type): tests/golden/test_golden.py checks those types.
_GO_NUMBERS = {zebrapack.GoFloat32: float, zebrapack.GoUint64: int, zebrapack.GoComplex64: complex}


def same(actual: Any, expected: Any, path: str = "$") -> None:
    """Assert equal values of equal types; NaN equals NaN, -0.0 differs from 0.0."""
    if type(actual) in _GO_NUMBERS and type(expected) in (type(actual), _GO_NUMBERS[type(actual)]):
        plain = _GO_NUMBERS[type(actual)]
        actual, expected = plain(actual), plain(expected)
    if isinstance(expected, float) or isinstance(actual, float):
        assert type(actual) is float and type(expected) is float, f"{path}: {actual!r} vs {expected!r}"
        if math.isnan(expected):
            assert math.isnan(actual), f"{path}: {actual!r} is not NaN"
        else:
            assert actual == expected and math.copysign(1, actual) == math.copysign(1, expected), \
                f"{path}: {actual!r} != {expected!r}"
        return
    if isinstance(expected, complex):
        assert type(actual) is complex, f"{path}: {actual!r} is not complex"
        same(actual.real, expected.real, path + ".real")
        same(actual.imag, expected.imag, path + ".imag")
        return
    assert type(actual) is type(expected), f"{path}: {type(actual).__name__} {actual!r} vs {type(expected).__name__} {expected!r}"
    if isinstance(expected, list):
        assert len(actual) == len(expected), f"{path}: {len(actual)} items vs {len(expected)}"
        for index, (a, e) in enumerate(zip(actual, expected)):
            same(a, e, f"{path}[{index}]")
    elif isinstance(expected, dict):
        assert actual.keys() == expected.keys(), f"{path}: keys {list(actual)} vs {list(expected)}"
        for key in expected:
            same(actual[key], expected[key], f"{path}[{key!r}]")
    elif dataclasses.is_dataclass(expected):
        for f in dataclasses.fields(expected):
            same(getattr(actual, f.name), getattr(expected, f.name), f"{path}.{f.name}")
    elif isinstance(expected, datetime):
        assert actual == expected and actual.tzinfo is not None, f"{path}: {actual!r} != {expected!r}"
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"
