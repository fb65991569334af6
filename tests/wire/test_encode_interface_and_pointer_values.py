"""The items of a ``[]interface{}`` and the values of a ``map[K]interface{}`` are written
as an interface{} value inside another one is (its atoms in line, a dict or list by the
interface writers straight away, anything else by write_any), the values of a
``map[K]*T`` as a ``[]*T``'s items are (nil, or the value as T), and an empty list or
map inside a container by its header alone: the bytes are the general path's (the same
values in subclasses, which only it takes, give the same bytes), every error the same
message at the same path, and an empty container still counts as a level of nesting."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Optional

import msgpack
import pytest

import zebrapack
from zebrapack import DecodeError, EncodeError, GoFloat32, GoUint64


def _zid(n: int, factory: Any) -> Any:
    return field(default_factory=factory, metadata={"zid": n})


@dataclass(slots=True)
class Holder:
    AL: list[Any] = _zid(0, list)
    AM: dict[str, Any] = _zid(1, dict)
    AI: dict[int, Any] = _zid(2, dict)
    PM: dict[str, Optional[int]] = _zid(3, dict)
    PS: dict[str, Optional[str]] = _zid(4, dict)
    PT: dict[str, Optional[datetime]] = _zid(5, dict)
    LL: list[list[int]] = _zid(6, list)
    LM: list[dict[str, int]] = _zid(7, list)
    ML: dict[str, list[str]] = _zid(8, dict)


class List(list):  # type: ignore[type-arg]
    pass


class Dict(dict):  # type: ignore[type-arg]
    pass


class Opaque:
    def __repr__(self) -> str:
        return "Opaque()"


@pytest.fixture(scope="module")
def schema() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(Holder, package="ifaces")


WHEN = datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
ATOMS = [0, -1, 127, 128, -(2**63), 2**64 - 1, 1.5, "", "word", "é" * 40, b"", b"\x00" * 40, True, False, None, WHEN,
         GoFloat32(2.5), GoUint64(700)]


def _general(value: Any) -> Any:
    if isinstance(value, dict):
        return Dict({k: _general(v) for k, v in value.items()})
    if isinstance(value, list):
        return List(_general(v) for v in value)
    return value


def _values() -> Holder:
    nested = {"a": 1, "b": [True, None, {"c": "d"}], "e": {}, "f": []}
    return Holder(AL=ATOMS + [nested, [1, [2, [3]]], [], {}],
                  AM={f"k{i}": v for i, v in enumerate(ATOMS + [nested, [], {}])},
                  AI={i - 3: v for i, v in enumerate(ATOMS)},
                  PM={"none": None, "zero": 0, "big": 2**63 - 1, "neg": -5},
                  PS={"none": None, "s": "text", "e": ""},
                  PT={"none": None, "t": WHEN},
                  LL=[[], [1], [], [2, 3], []], LM=[{}, {"x": 1}, {}], ML={"empty": [], "one": ["a"]})


def test_the_bytes_are_the_general_paths(schema: zebrapack.Schema) -> None:
    value = _values()
    fast = schema.encode(value)
    slow = schema.encode(Holder(**{name: _general(getattr(value, name)) for name in Holder.__dataclass_fields__}))
    assert fast == slow
    back = schema.decode(fast)
    assert back == value
    # each atom comes back as the Go type it was written as (an int past int64 a uint64)
    assert [type(x) for x in back.AL[:len(ATOMS)]] == [
        GoUint64 if type(x) is int and x > 2**63 - 1 else type(x) for x in ATOMS]


def test_empty_containers_are_their_header(schema: zebrapack.Schema) -> None:
    data = schema.encode(Holder(LL=[[], []], LM=[{}], ML={"e": []}), structnames=False)
    assert msgpack.unpackb(data, strict_map_key=False) == {6: [[], []], 7: [{}], 8: {"e": []}}
    assert b"\x92\x90\x90" in data and b"\x91\x80" in data


@pytest.mark.parametrize("field_name, value, path", [
    ("AL", [1, Opaque()], "Holder.AL[1]"),
    ("AL", [1, {"k": [Opaque()]}], "Holder.AL[1]['k'][0]"),
    ("AM", {"a": 1, "b": Opaque()}, "Holder.AM['b']"),
    ("AM", {"a": {"b": Opaque()}}, "Holder.AM['a']['b']"),
    ("AI", {5: Opaque()}, "Holder.AI[5]"),
    ("PM", {"x": "not an int"}, "Holder.PM['x']"),
    ("PM", {"x": 2**63}, "Holder.PM['x']"),
    ("PS", {"x": 5}, "Holder.PS['x']"),
    ("LL", [[], [1, "x"]], "Holder.LL[1][1]"),
])
def test_errors_keep_their_message_and_path(schema: zebrapack.Schema, field_name: str, value: Any, path: str) -> None:
    with pytest.raises(EncodeError) as fast:
        schema.encode(Holder(**{field_name: value}))
    with pytest.raises(EncodeError) as slow:
        schema.encode(Holder(**{field_name: _general(value)}))
    assert fast.value.path == path == slow.value.path
    assert str(fast.value) == str(slow.value)


def test_an_empty_container_counts_as_a_level(schema: zebrapack.Schema) -> None:
    data = schema.encode(Holder(LL=[[]]))
    shallow = zebrapack.schema_from_dataclasses(Holder, package="ifaces", max_depth=2)
    with pytest.raises(DecodeError, match="deep"):
        shallow.decode(data)
    with pytest.raises(EncodeError, match="deep"):
        shallow.encode(Holder(LL=[[]]))
    assert zebrapack.schema_from_dataclasses(Holder, package="ifaces", max_depth=3).decode(data) == Holder(LL=[[]])
