"""Your own dataclasses are built as msgspec builds them: not through ``__init__`` (which
takes the fields as keywords and sets them one by one in Python) but made by
``object.__new__``, every field set as ``object.__setattr__`` sets it (a frozen one
too), absent fields at their Go zero, then ``__post_init__`` once. Slots dataclasses
have their member slots filled; the others (an instance ``__dict__``) have each field
set as the record is read. A class whose ``__post_init__`` takes init-only values
(``InitVar``) or whose ``__new__`` is its own is still called with the fields. Every way
gives the same record as the call would."""

from __future__ import annotations

import dataclasses
import gc
import sys
import weakref
from dataclasses import InitVar, dataclass, field
from datetime import datetime, timezone
from typing import Any, Optional

import msgpack
import pytest

import zebrapack
from zebrapack import DecodeError


def z(n: int, **kwargs: Any) -> Any:
    return field(metadata={"zid": n}, **kwargs)


@dataclass
class Plain:
    Name: str = z(0, default="")
    At: Optional[datetime] = z(1, default=None)
    Count: int = z(2, default=0)
    Tags: list[str] = z(3, default_factory=list)
    Score: float = z(4, default=0.0)


@dataclass
class Counted:
    Name: str = z(0, default="")
    Count: int = z(1, default=0)
    runs: Any = field(default=None, init=False, repr=False, compare=False, metadata={"zid": -2})

    def __post_init__(self) -> None:
        self.runs = (self.runs or 0) + 1 if isinstance(self.runs, int) else 1


@dataclass(frozen=True)
class Frozen:
    Name: str = z(0, default="")
    Count: int = z(1, default=0)


@dataclass
class Outer:
    Inner: Plain = z(0, default_factory=Plain)
    Items: list[Plain] = z(1, default_factory=list)
    Maybe: Optional[Plain] = z(2, default=None)


@dataclass
class WithInitVar:
    Name: str = z(0, default="")
    scale: InitVar[int] = 2
    Count: int = z(1, default=0)

    def __post_init__(self, scale: int) -> None:
        self.Count = self.Count * scale


def schema_of(*classes: type) -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(*classes, package="userbuild")


def test_a_dict_dataclass_decodes_to_what_its_init_makes() -> None:
    schema = schema_of(Plain)
    when = datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=timezone.utc)
    for value in (Plain("ann", when, 3, ["a", "b"], 1.5), Plain(), Plain(Name="x"), Plain(Tags=["only"])):
        got = schema.decode(schema.encode(value))
        assert type(got) is Plain and got == value
        assert vars(got) == vars(value)           # every field in the instance dict
    # in the order they were read, the absent ones after (as msgspec sets them)
    got = schema.decode(msgpack.packb({3: ["t"], 0: "n"}), "Plain")
    assert list(vars(got)) == ["Tags", "Name", "At", "Count", "Score"]


def test_absent_fields_get_their_zero_not_the_class_default() -> None:
    @dataclass
    class Defaults:
        Name: str = z(0, default="unset")
        Count: int = z(1, default=7)
        Tags: list[str] = z(2, default_factory=lambda: ["d"])

    schema = schema_of(Defaults)
    got = schema.decode(msgpack.packb({1: 5}), "Defaults")
    # the class attributes (the defaults) are not taken for fields that were read
    assert vars(got) == {"Name": "", "Count": 5, "Tags": []}
    assert schema.decode(msgpack.packb({}), "Defaults") == Defaults(Name="", Count=0, Tags=[])


def test_keys_in_any_order_and_repeated_give_every_field_once() -> None:
    schema = schema_of(Plain)
    data = msgpack.packb({4: 2.5, 2: 1, 0: "a", 2: 9})         # noqa: F601 (a repeated key on purpose)
    assert msgpack.unpackb(data, strict_map_key=False) == {4: 2.5, 2: 9, 0: "a"}
    raw = b"\x84\x04\xcb" + msgpack.packb(2.5)[1:] + b"\x02\x01\x00\xa1a\x02\x09"    # zid 2 twice
    got = schema.decode(raw, "Plain")
    assert got == Plain(Name="a", At=None, Count=9, Tags=[], Score=2.5)


def test_post_init_runs_once_after_every_field_is_set() -> None:
    seen: list[dict[str, Any]] = []

    @dataclass
    class Checked:
        Name: str = z(0, default="")
        Count: int = z(1, default=0)

        def __post_init__(self) -> None:
            seen.append(dict(vars(self)))
            if self.Count < 0:
                raise ValueError("Count must not be negative")

    schema = schema_of(Checked)
    assert schema.decode(schema.encode(Checked("a", 3))) == Checked("a", 3)
    seen.clear()
    schema.decode(msgpack.packb({0: "b"}), "Checked")
    assert seen == [{"Name": "b", "Count": 0}]
    with pytest.raises((DecodeError, ValueError), match="must not be negative"):
        schema.decode(msgpack.packb({0: "c", 1: -1}), "Checked")


def test_a_frozen_dict_dataclass_is_built_past_its_setattr() -> None:
    schema = schema_of(Frozen)
    got = schema.decode(schema.encode(Frozen("f", 2)))
    assert got == Frozen("f", 2) and hash(got) == hash(Frozen("f", 2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.Count = 3  # type: ignore[misc]


def test_nested_dict_dataclasses_in_fields_lists_and_pointers() -> None:
    schema = schema_of(Outer, Plain)
    value = Outer(Plain("in", None, 1, ["t"], 0.5), [Plain("a"), Plain(Count=2)], Plain(Score=1.0))
    assert schema.decode(schema.encode(value)) == value
    assert schema.decode(schema.encode(Outer())) == Outer()
    absent = schema.decode(msgpack.packb({}), "Outer")      # the nested struct's zero, built too
    assert absent == Outer() and type(absent.Inner) is Plain and list(vars(absent.Inner)) == [
        "Name", "At", "Count", "Tags", "Score"]


def test_init_only_values_keep_the_call() -> None:
    schema = schema_of(WithInitVar)
    got = schema.decode(msgpack.packb({0: "w", 1: 4}), "WithInitVar")
    assert got.Count == 8                           # __init__ ran, with scale's default


def test_a_class_with_its_own_new_keeps_the_call() -> None:
    made: list[str] = []

    @dataclass
    class Counted:
        Name: str = z(0, default="")

        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            made.append("new")
            return super().__new__(cls)

    schema = schema_of(Counted)
    assert schema.decode(msgpack.packb({0: "n"}), "Counted") == Counted("n")
    assert made == ["new", "new"]


def test_a_wide_dict_dataclass_beyond_64_fields() -> None:
    fields = [(f"F{i}", int, z(i, default=0)) for i in range(70)]
    Wide = dataclasses.make_dataclass("Wide", fields)
    schema = schema_of(Wide)
    value = Wide(**{f"F{i}": i * 3 for i in range(70)})
    assert schema.decode(schema.encode(value)) == value
    partial = schema.decode(msgpack.packb({65: 1, 3: 2}), "Wide")
    assert partial == Wide(F65=1, F3=2) and len(vars(partial)) == 70
    Narrow = dataclasses.make_dataclass("Narrow", fields[:64])
    schema = schema_of(Narrow)
    got = schema.decode(msgpack.packb({63: 1, 0: 2}), "Narrow")
    assert got == Narrow(F63=1, F0=2) and len(vars(got)) == 64


def test_msgp_mode_keys_set_the_right_fields() -> None:
    schema = schema_of(Plain)
    value = Plain("m", None, 4, ["x"], 2.0)
    data = schema.encode(value, mode="msgp")
    assert schema.decode(data, "Plain") == value
    reordered = msgpack.packb({"Score": 2.0, "Tags": ["x"], "Name": "m"})
    assert schema.decode(reordered, "Plain") == Plain("m", None, 0, ["x"], 2.0)


def test_a_record_that_fails_half_read_leaves_nothing_behind() -> None:
    schema = schema_of(Plain)
    data = schema.encode(Plain("abc", None, 5, ["t"] * 3, 1.0))
    gc.collect()
    before = sum(1 for o in gc.get_objects() if type(o) is Plain)
    for cut in range(1, len(data)):
        with pytest.raises(DecodeError):
            schema.decode(data[:cut], "Plain")
    gc.collect()
    assert sum(1 for o in gc.get_objects() if type(o) is Plain) == before
    if hasattr(sys, "getrefcount"):
        assert sys.getrefcount(Plain) < 100


def test_preserved_unknown_entries_on_a_dict_dataclass() -> None:
    @dataclass
    class Kept:
        Name: str = z(0, default="")
        zebrapack_unknown: Optional[dict[Any, bytes]] = field(default=None, metadata={"zid": -2})

    try:
        schema = zebrapack.schema_from_dataclasses(Kept, package="userbuild", preserve_unknown=True)
    except (TypeError, zebrapack.SchemaError):
        pytest.skip("preserve_unknown does not take this class")
    got = schema.decode(msgpack.packb({0: "k", 9: [1, 2]}), "Kept")
    assert got.Name == "k" and got.zebrapack_unknown == {9: msgpack.packb([1, 2])}
    assert schema.decode(schema.encode(got), "Kept") == got
    assert schema.decode(msgpack.packb({0: "k"}), "Kept").zebrapack_unknown is None


def test_records_are_collected() -> None:
    schema = schema_of(Plain)
    got = schema.decode(schema.encode(Plain("r", Tags=["a"])))
    ref = weakref.ref(got) if hasattr(got, "__weakref__") else None
    del got
    gc.collect()
    assert ref is None or ref() is None


@pytest.mark.parametrize("slots", [False, True])
def test_init_is_not_called_slots_or_not(slots: bool) -> None:
    calls: list[tuple[Any, ...]] = []

    def own_init(self: Any, Name: str = "", Count: int = 0) -> None:
        calls.append((Name, Count))
        object.__setattr__(self, "Name", Name)
        object.__setattr__(self, "Count", Count)

    namespace = {"__init__": own_init, "__annotations__": {"Name": str, "Count": int},
                 "Name": z(0, default=""), "Count": z(1, default=0)}
    cls = dataclass(slots=slots)(type("Own", (), namespace))
    schema = schema_of(cls)
    data = schema.encode(cls("o", 2))
    calls.clear()
    got = schema.decode(data)
    assert (got.Name, got.Count) == ("o", 2) and calls == []
