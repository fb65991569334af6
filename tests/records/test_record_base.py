"""User dataclasses deriving from ``zebrapack.Record`` (or ``FrozenRecord``): the decoder
leaves their records that hold no containers untracked by the garbage collector, as
it does for the generated classes, and that never leaks a cycle: storing a
container tracks the record again first, and a class that could store one unseen is
refused (at its definition or at load) or decoded into tracked records."""

from __future__ import annotations

import copy
import dataclasses
import gc
import pickle
import sys
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Annotated, Any, Generic, Optional, TypeVar

import msgpack
import pytest

import zebrapack
from zebrapack import FrozenRecord, Record, SchemaError, Zid
from zebrapack.schema.document import schema_document

BDAY = datetime(2001, 2, 3, 4, 5, 6, tzinfo=timezone.utc)


@dataclass(slots=True)
class Person(Record):
    Name: Annotated[str, Zid(0)] = ""
    Bday: Annotated[Optional[datetime], Zid(1)] = None
    GPA: Annotated[float, Zid(2)] = 0.0
    Sibs: Annotated[int, Zid(3)] = 0
    Friend: Annotated[bool, Zid(4)] = False
    Notes: Annotated[Any, Zid(5)] = None


@dataclass(slots=True, weakref_slot=True)
class Node(Record):
    Label: Annotated[str, Zid(0)] = ""
    Next: Annotated[Optional[Node], Zid(1)] = None
    Any_: Annotated[Any, Zid(2)] = None


@dataclass(slots=True, frozen=True)
class Point(FrozenRecord):
    X: Annotated[int, Zid(0)] = 0
    Y: Annotated[str, Zid(1)] = ""


@pytest.fixture(scope="module")
def people() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(Person, package="people")


def roundtrip(value: Any) -> Any:
    schema = zebrapack.schema_from_dataclasses(type(value), package="t")
    return schema.decode(schema.encode(value))


class Sentinel:
    pass


# -- what the base buys --------------------------------------------------------

def test_user_records_decoded_with_only_scalars_are_untracked(people):
    person = Person(Name="n", Bday=BDAY, GPA=3.5, Sibs=2, Friend=True)
    decoded = people.decode(people.encode(person))
    assert decoded == person and type(decoded) is Person and isinstance(decoded, Record)
    assert not gc.is_tracked(decoded)
    records = people.decode_all(people.encode(person) * 3)
    assert records == [person] * 3 and not any(gc.is_tracked(r) for r in records)


def test_user_records_holding_a_container_or_a_record_stay_tracked(people):
    for notes in ([], {"a": 1}):
        assert gc.is_tracked(people.decode(people.encode(Person(Name="n", Notes=notes))))
    chain = roundtrip(Node(Label="a", Next=Node(Label="b")))
    assert gc.is_tracked(chain) and not gc.is_tracked(chain.Next)


def test_constructed_records_are_tracked_as_any_object():
    assert gc.is_tracked(Node(Label="a"))


@pytest.mark.parametrize("value", [[], {}, set(), (1, []), Node(), Sentinel()])
def test_assigning_a_value_the_collector_knows_tracks_the_record(value):
    node = roundtrip(Node(Label="a"))
    node.Label = "still atomic"
    assert not gc.is_tracked(node)
    node.Any_ = value
    assert gc.is_tracked(node)


def test_assigning_an_untracked_record_tracks_the_holder():
    holder, held = roundtrip(Node(Label="a")), roundtrip(Node(Label="b"))
    holder.Next = held
    assert gc.is_tracked(holder) and not gc.is_tracked(held)


class DelProbe:
    """Records, when it is released, whether the record it was stored in was tracked then."""

    def __init__(self, record: Node, seen: list[bool]) -> None:
        self.record, self.seen = record, seen

    def __del__(self) -> None:
        self.seen.append(gc.is_tracked(self.record))


def test_the_record_is_tracked_before_the_container_is_stored():
    # Storing releases the old value, whose __del__ runs arbitrary code (a collection,
    # say) after the new value is in place: by then the record must already be tracked.
    node = roundtrip(Node(Label="a"))
    seen: list[bool] = []
    Node.Any_.__set__(node, DelProbe(node, seen))    # the documented bypass: stays untracked
    assert not gc.is_tracked(node)
    node.Any_ = [node]
    assert seen == [True]
    node.Any_ = None


def test_a_cycle_built_through_a_decoded_record_is_collected():
    node = roundtrip(Node(Label="a"))
    assert not gc.is_tracked(node)
    probe = weakref.ref(node)
    node.Any_ = [node]                  # node -> list -> node
    del node
    gc.collect()
    assert probe() is None


def test_a_cycle_between_two_decoded_records_is_collected():
    first, second = roundtrip(Node(Label="a")), roundtrip(Node(Label="b"))
    probes = weakref.ref(first), weakref.ref(second)
    first.Next, second.Next = second, first
    del first, second
    gc.collect()
    assert [p() for p in probes] == [None, None]


def test_a_cycle_through_a_record_without_a_weakref_slot_is_collected(people):
    person = people.decode(people.encode(Person(Name="n", Bday=BDAY, GPA=3.5)))
    assert not gc.is_tracked(person)
    sentinel = Sentinel()               # no weakref slot: the cycle carries a probe
    probe = weakref.ref(sentinel)
    person.Notes = [sentinel, person]
    del person, sentinel
    gc.collect()
    assert probe() is None


# -- frozen dataclasses ---------------------------------------------------------

def test_frozen_records_derive_from_frozen_record_and_decode_untracked():
    point = roundtrip(Point(X=1, Y="y"))
    assert point == Point(1, "y") and not gc.is_tracked(point)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.X = []  # type: ignore[misc]
    assert not gc.is_tracked(point)
    assert hash(point) == hash(Point(1, "y"))


def test_frozen_records_copy_pickle_and_replace():
    point = roundtrip(Point(X=1, Y="y"))
    for twin in (copy.copy(point), copy.deepcopy(point), pickle.loads(pickle.dumps(point)),
                 dataclasses.replace(point)):
        assert twin == point and twin is not point
    assert dataclasses.replace(point, X=2) == Point(2, "y")


def test_a_frozen_dataclass_on_record_is_refused_where_it_is_defined():
    with pytest.raises(TypeError, match="is a frozen dataclass: derive it from zebrapack.FrozenRecord"):
        @dataclass(slots=True, frozen=True)
        class Frozen(Record):
            X: Annotated[int, Zid(0)] = 0


def test_a_mutable_dataclass_on_frozen_record_is_refused_where_it_is_defined():
    with pytest.raises(TypeError, match="is not a frozen dataclass: derive it from zebrapack.Record"):
        @dataclass(slots=True)
        class Mutable(FrozenRecord):
            X: Annotated[int, Zid(0)] = 0


def test_a_class_on_both_bases_is_refused():
    with pytest.raises(TypeError, match="derives from both"):
        class Both(Record, FrozenRecord):
            __slots__ = ()


@pytest.mark.parametrize("frozen", [False, True])
def test_a_record_without_slots_is_refused_at_load(frozen):
    base = FrozenRecord if frozen else Record

    @dataclass(frozen=frozen)
    class Loose(base):  # type: ignore[valid-type,misc]
        X: Annotated[int, Zid(0)] = 0

    with pytest.raises(SchemaError, match=r"Loose: .*Loose derives from zebrapack\.\w+ but its instances "
                                          r"have a __dict__") as info:
        zebrapack.schema_from_dataclasses(Loose, package="t")
    assert info.value.struct == "Loose"
    document = msgpack.packb(schema_document(zebrapack.schema_from_dataclasses(Plain, package="t").model))
    with pytest.raises(SchemaError, match="have a __dict__"):
        zebrapack.load(document, types={"Plain": Loose})


@dataclass(slots=True)
class Plain:
    X: Annotated[int, Zid(0)] = 0


# -- classes the decoder leaves tracked -------------------------------------------

def test_a_post_init_keeps_decoded_records_tracked():
    calls = []

    @dataclass(slots=True)
    class Checked(Record):
        X: Annotated[int, Zid(0)] = 0

        def __post_init__(self) -> None:
            calls.append(self.X)

    record = roundtrip(Checked(X=5))
    assert calls == [5, 5] and gc.is_tracked(record)


def test_a_setattr_of_the_class_or_a_mixin_keeps_decoded_records_tracked():
    # It could store around Record's (object.__setattr__ does from Python 3.13).
    @dataclass(slots=True)
    class Guarded(Record):
        X: Annotated[int, Zid(0)] = 0

        def __setattr__(self, name: str, value: Any) -> None:
            Record.__setattr__(self, name, value)

    class Mixin:
        __slots__ = ()

        def __setattr__(self, name: str, value: Any) -> None:
            getattr(type(self), name).__set__(self, value)      # around Record's

    @dataclass(slots=True)
    class MixedIn(Mixin, Record):
        X: Annotated[int, Zid(0)] = 0

    for cls in (Guarded, MixedIn):
        record = roundtrip(cls(X=1))
        assert record == cls(X=1) and gc.is_tracked(record)


def test_fields_beyond_the_schema_and_preserved_unknown_keep_records_tracked():
    @dataclass(slots=True)
    class Wider(Record):
        X: int = 0
        Extra: int = 7

    document = msgpack.packb(schema_document(zebrapack.schema_from_dataclasses(Plain, package="t").model))
    wider = zebrapack.load(document, types={"Plain": Wider})
    record = wider.decode(wider.encode(Wider(X=1)))
    assert record == Wider(X=1, Extra=7) and gc.is_tracked(record)

    @dataclass(slots=True)
    class Keeping(Record):
        X: int = 0
        zebrapack_unknown: dict[Any, bytes] = field(default_factory=dict)

    keeping = zebrapack.load(document, types={"Plain": Keeping}, preserve_unknown=True)
    assert gc.is_tracked(keeping.decode(keeping.encode(Keeping(X=1))))


# -- the shapes a user class takes ------------------------------------------------

class Cached(Record):
    __slots__ = ("cache",)      # a slot that is no field: the decoder leaves it empty


@dataclass(slots=True)
class WithCache(Cached):
    X: Annotated[int, Zid(0)] = 0


def test_extra_slots_stay_empty_and_storing_a_container_in_one_tracks_the_record():
    record = roundtrip(WithCache(X=1))
    assert not gc.is_tracked(record)
    with pytest.raises(AttributeError):
        record.cache
    record.cache = {}
    assert gc.is_tracked(record)


@dataclass(slots=True)
class Base(Record):
    X: Annotated[int, Zid(0)] = 0


@dataclass(slots=True)
class Child(Base):
    Y: Annotated[str, Zid(1)] = ""


class Ordinary:
    pass


def test_inheritance_chains_of_slots_dataclasses_are_untracked_and_a_dict_on_the_way_is_refused():
    child = roundtrip(Child(X=1, Y="y"))
    assert child == Child(1, "y") and not gc.is_tracked(child)
    child.Y = [child]
    assert gc.is_tracked(child)

    @dataclass(slots=True)
    class Leaky(Ordinary, Record):     # Ordinary has no __slots__: its instances have a __dict__
        X: Annotated[int, Zid(0)] = 0

    with pytest.raises(SchemaError, match="have a __dict__"):
        zebrapack.schema_from_dataclasses(Leaky, package="t")


T = TypeVar("T")


class Describing:
    __slots__ = ()

    def describe(self) -> str:
        return f"<{type(self).__name__}>"


@dataclass(slots=True)
class Mixed(Describing, Record, Generic[T]):
    X: Annotated[int, Zid(0)] = 0


def test_slots_mixins_and_generic_bases_keep_records_untracked():
    record = roundtrip(Mixed(X=1))
    assert record.describe() == "<Mixed>" and not gc.is_tracked(record)


def test_user_records_copy_pickle_and_replace():
    node = roundtrip(Node(Label="a"))
    for twin in (copy.copy(node), copy.deepcopy(node), pickle.loads(pickle.dumps(node)),
                 dataclasses.replace(node)):
        assert twin == node and twin is not node
    changed = dataclasses.replace(node, Any_=[1])
    assert changed.Any_ == [1] and gc.is_tracked(changed)
    node.Next = node                    # a cycle: deepcopy and pickle keep it
    for twin in (copy.deepcopy(node), pickle.loads(pickle.dumps(node))):
        assert twin.Next is twin and gc.is_tracked(twin)


def test_weakref_slot_records_are_untracked_and_weakly_referenced():
    node = roundtrip(Node(Label="a"))
    probe = weakref.ref(node)
    assert probe() is node and not gc.is_tracked(node)
    del node
    assert probe() is None             # no cycle: freed by its reference count


# -- the documented ways around ----------------------------------------------------

def test_a_member_descriptor_set_bypasses_the_tracking_as_documented():
    node = roundtrip(Node(Label="a"))
    Node.Any_.__set__(node, [])
    assert not gc.is_tracked(node)
    Node.Any_.__set__(node, None)


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="Python 3.13 lets object.__setattr__ through")
def test_object_setattr_is_refused_on_a_record_before_python_3_13():
    node = roundtrip(Node(Label="a"))
    with pytest.raises(TypeError, match="can't apply this __setattr__"):
        object.__setattr__(node, "Any_", [])
    assert not gc.is_tracked(node)


@pytest.mark.skipif(sys.version_info < (3, 13), reason="refused before Python 3.13")
def test_object_setattr_bypasses_the_tracking_from_python_3_13_as_documented():
    node = roundtrip(Node(Label="a"))
    object.__setattr__(node, "Any_", [])
    assert not gc.is_tracked(node)
    node.Any_ = None


def test_object_setattr_bypasses_a_frozen_record_as_documented():
    point = roundtrip(Point(X=1))
    object.__setattr__(point, "Y", [])
    assert not gc.is_tracked(point)
    object.__setattr__(point, "Y", "")
