"""The memory of dropped records is kept for the next decoded records (cython/zp_freelist.h):
a record from that memory is in every way a fresh one, nothing is kept alive by it, and
it is bounded and given back at full collections."""

from __future__ import annotations

import gc
import sys
import sysconfig
import weakref
from dataclasses import dataclass
from pathlib import Path
from datetime import datetime, timezone
from typing import Annotated, Any, Optional

import pytest

import zebrapack
from zebrapack import FrozenRecord, Record, Zid
from zebrapack._core import RECORD_FREELIST, _free_records

BDAY = datetime(2001, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
GIL_BUILD = not sysconfig.get_config_var("Py_GIL_DISABLED")

pytestmark = pytest.mark.skipif(not RECORD_FREELIST, reason="no record freelist on this Python")


@dataclass(slots=True)
class Three(Record):
    X: Annotated[int, Zid(0)] = 0
    Y: Annotated[str, Zid(1)] = ""
    Z: Annotated[Any, Zid(2)] = None


@dataclass(slots=True)
class OtherThree(Record):
    A: Annotated[float, Zid(0)] = 0.0
    B: Annotated[Optional[datetime], Zid(1)] = None
    C: Annotated[bool, Zid(2)] = False


@dataclass(slots=True, frozen=True)
class FrozenThree(FrozenRecord):
    X: Annotated[int, Zid(0)] = 0
    Y: Annotated[str, Zid(1)] = ""
    Z: Annotated[int, Zid(2)] = 0


@dataclass(slots=True, weakref_slot=True)
class Weak(Record):
    X: Annotated[int, Zid(0)] = 0


@dataclass(slots=True)
class Plain:                      # not a Record: its memory is not ours to keep
    X: Annotated[int, Zid(0)] = 0
    Y: Annotated[str, Zid(1)] = ""
    Z: Annotated[Any, Zid(2)] = None


def schema_of(*classes: type) -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(*classes, package="freelist")


@pytest.fixture(autouse=True)
def only_these_records():
    """An empty freelist, and only the test's own records going into it: no garbage of
    earlier tests left for a collection to free meanwhile, no automatic collection."""
    gc.collect()
    _free_records()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        _free_records()


def test_the_freelist_is_on_for_every_python_it_was_written_for():
    assert RECORD_FREELIST == (GIL_BUILD and (3, 11) <= sys.version_info[:2] <= (3, 13))


def test_a_dropped_record_leaves_its_memory_to_the_next_decoded_record():
    schema = schema_of(Three)
    data = schema.encode(Three(X=1, Y="y"))
    first = schema.decode(data)
    address = id(first)
    del first
    assert _free_records() == 1
    first = schema.decode(data)
    address = id(first)
    del first
    second = schema.decode(data)
    assert id(second) == address
    assert second == Three(X=1, Y="y")


def test_a_record_from_the_freelist_is_a_fresh_record():
    schema = schema_of(Three)
    holding_a_list = schema.encode(Three(X=2, Y="y", Z=[1, 2]))
    atomic = schema.encode(Three(X=3))
    type_references = sys.getrefcount(Three)
    for _ in range(3):
        tracked = schema.decode(holding_a_list)
        untracked = schema.decode(atomic)
        assert (type(tracked), tracked) == (Three, Three(X=2, Y="y", Z=[1, 2]))
        assert (type(untracked), untracked) == (Three, Three(X=3))
        assert gc.is_tracked(tracked) and not gc.is_tracked(untracked)
        assert sys.getrefcount(tracked) == sys.getrefcount(untracked) == 2
        del tracked, untracked
    assert sys.getrefcount(Three) == type_references


def test_records_of_other_classes_with_as_many_slots_share_the_memory():
    schema = schema_of(Three, OtherThree, FrozenThree)
    expected = [Three(X=1, Y="a", Z={"k": 1}), OtherThree(A=1.5, B=BDAY, C=True), FrozenThree(X=7, Y="f", Z=9)]
    data = [schema.encode(value) for value in expected]
    three = schema.decode(data[0])
    address = id(three)
    del three
    other = schema.decode(data[1])
    assert _free_records() == 0             # the block three left was taken
    assert id(other) == address and type(other) is OtherThree and other == expected[1]
    del other
    frozen = schema.decode(data[2])
    assert _free_records() == 0
    assert id(frozen) == address and frozen == expected[2]
    with pytest.raises(AttributeError):
        frozen.X = 1        # type: ignore[misc]


def test_constructed_records_give_their_memory_to_decoded_ones():
    schema = schema_of(Three)
    data = schema.encode(Three(X=6))
    _free_records()                 # the argument Three(X=6) left its memory there
    made = Three(X=5)
    address = id(made)
    del made
    decoded = schema.decode(data)
    assert _free_records() == 0     # the block made left was taken
    assert id(decoded) == address and decoded == Three(X=6)


def test_absent_fields_of_a_reused_record_get_their_zero_values():
    schema = schema_of(Three)
    full = schema.decode(schema.encode(Three(X=1, Y="full", Z=[1])))
    del full
    empty = schema.decode(b"\x81\xff\xa5Three")
    assert empty == Three() and empty.Z is None and not gc.is_tracked(empty)


def test_a_weakly_referenced_record_is_not_referenced_by_the_next_one():
    schema = schema_of(Weak)
    data = schema.encode(Weak(X=1))
    record = schema.decode(data)
    probe = weakref.ref(record)
    del record
    assert probe() is None
    again = schema.decode(data)
    assert weakref.getweakrefcount(again) == 0
    assert weakref.ref(again)() is again


def test_a_finalizer_runs_once_and_a_resurrected_record_keeps_its_memory():
    kept: list[Any] = []
    finalized: list[int] = []
    resurrect = [False]

    @dataclass(slots=True)
    class Phoenix(Record):
        X: Annotated[int, Zid(0)] = 0
        Y: Annotated[str, Zid(1)] = ""
        Z: Annotated[Any, Zid(2)] = None

        def __del__(self) -> None:
            finalized.append(self.X)
            if resurrect[0] and self.X == 1:
                kept.append(self)           # resurrected: its memory is not released

    schema = schema_of(Phoenix)
    risen, other = schema.encode(Phoenix(X=1, Y="risen")), schema.encode(Phoenix(X=2))
    finalized.clear()
    resurrect[0] = True
    schema.decode(risen)
    assert finalized == [1] and kept[0].Y == "risen"
    others = [schema.decode(other) for _ in range(50)]
    assert (kept[0].X, kept[0].Y, kept[0].Z) == (1, "risen", None)
    assert all(id(record) != id(kept[0]) for record in others)
    del others
    assert finalized == [1] + [2] * 50
    kept.clear()                            # a finalizer runs once: now it is only freed
    assert finalized == [1] + [2] * 50


def test_classes_and_schemas_are_not_kept_alive_by_the_freelist():
    def decode_and_drop() -> weakref.ref[type]:
        @dataclass(slots=True)
        class Gone(Record):
            X: Annotated[int, Zid(0)] = 0

        schema = schema_of(Gone)
        schema.decode(schema.encode(Gone(X=1)))
        return weakref.ref(Gone)

    probe = decode_and_drop()
    gc.collect()
    assert probe() is None


def test_a_full_collection_gives_the_memory_back():
    schema = schema_of(Three)
    records = schema.decode_all(schema.encode(Three(X=1)) * 100)
    del records
    gc.collect(0)
    assert _free_records() == 100
    records = schema.decode_all(schema.encode(Three(X=1)) * 100)
    del records
    gc.collect()
    assert _free_records() == 0


def test_the_memory_kept_is_bounded_per_slot_count():
    schema = schema_of(Three)
    records = schema.decode_all(schema.encode(Three(X=1)) * 20_000)
    del records
    block = 2 * 8 + object.__basicsize__ + 3 * 8     # collector header, object header, 3 slots
    assert _free_records() == 65536 // block


def test_classes_that_are_not_records_keep_their_own_allocation():
    schema = schema_of(Plain, Three)
    plain_data, three_data = schema.encode(Plain(X=2)), schema.encode(Three(X=1))
    _free_records()                 # the argument Three(X=1) left its memory there
    schema.decode(plain_data)
    assert _free_records() == 0                     # Plain's memory went back to Python
    schema.decode(three_data)
    plain = schema.decode(plain_data)
    assert plain == Plain(X=2)
    assert _free_records() == 1                     # Three's block was not taken by Plain


def test_generated_records_reuse_memory():
    schema = zebrapack.load(Path(__file__).parent.parent / "vectors" / "schemas" / "zp.z")
    a = schema.types["A"](Name="n", Bday=BDAY, Phone="p", Sibs=2, GPA=3.5, Friend=True)
    data = schema.encode(a)
    _free_records()
    schema.decode(data)
    assert _free_records() == 1             # the dropped record's memory was kept
    schema.decode(data)
    record = schema.decode(data)
    assert _free_records() == 0 and record == a     # and taken by the next one


def test_a_reused_record_is_tracked_before_its_post_init_runs():
    seen: list[bool] = []
    decoding = [False]

    class Probe:
        pass

    @dataclass(slots=True)
    class Checked(Record):
        X: Annotated[int, Zid(0)] = 0
        Y: Annotated[str, Zid(1)] = ""
        Z: Annotated[Any, Zid(2)] = None

        def __post_init__(self) -> None:
            if decoding[0]:
                seen.append(gc.is_tracked(self))
                self.Z = [self, Probe()]    # a cycle, stored where the collector can see it

    schema = schema_of(Checked, Three)
    data, drop = schema.encode(Checked(X=1)), schema.encode(Three(X=1))
    decoding[0] = True
    _free_records()
    schema.decode(drop)                     # leaves a block of three slots
    record = schema.decode(data)
    assert seen == [True] and gc.is_tracked(record)
    probe = weakref.ref(record.Z[1])        # in the cycle
    del record
    gc.collect()
    assert probe() is None


def test_zero_values_of_absent_nested_records_come_tracked_from_reused_memory():
    @dataclass(slots=True)
    class Outer(Record):
        In: Annotated[Three, Zid(0)] = None     # type: ignore[assignment]

    schema = schema_of(Outer, Three)
    drop = schema.encode(Three(X=1))
    _free_records()
    schema.decode(drop)
    outer = schema.decode(b"\x81\xff\xa5Outer")
    assert _free_records() == 0                 # the zero Three took the block
    assert outer.In == Three() and gc.is_tracked(outer.In) and gc.is_tracked(outer)
