"""Decoded records that hold no containers are not tracked by the garbage collector
(as msgspec's Structs), and become tracked again as soon as a container is stored in
them, so that no reference cycle through them is ever leaked."""

from __future__ import annotations

import copy
import dataclasses
import gc
import pickle
import sys
import weakref
from datetime import datetime, timezone
from pathlib import Path

import pytest

import zebrapack
from zebrapack._core import RecordBase

SCHEMAS = Path(__file__).parent.parent / "vectors" / "schemas"
BDAY = datetime(2001, 2, 3, 4, 5, 6, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def schema() -> zebrapack.Schema:
    return zebrapack.load(SCHEMAS / "zp.z")


class Sentinel:
    pass


def decoded_a(schema: zebrapack.Schema):
    A = schema.types["A"]
    return schema.decode(schema.encode(A(Name="n", Bday=BDAY, Phone="p", Sibs=2, GPA=3.5, Friend=True)))


def test_decoded_record_of_atomic_values_is_untracked(schema):
    record = decoded_a(schema)
    assert isinstance(record, RecordBase)
    assert not gc.is_tracked(record)
    assert all(not gc.is_tracked(r) for r in schema.decode_all(schema.encode(record) * 3))


def test_storing_a_list_tracks_the_record_again(schema):
    record = decoded_a(schema)
    record.Name = "still atomic"
    assert not gc.is_tracked(record)
    record.Name = []
    assert gc.is_tracked(record)


@pytest.mark.parametrize("value", [{}, set(), [1], (1, []), object.__new__(type("Plain", (), {}))])
def test_any_value_the_collector_knows_tracks_the_record(schema, value):
    record = decoded_a(schema)
    record.Phone = value
    assert gc.is_tracked(record)


def test_cycle_through_an_untracked_record_is_collected(schema):
    record = decoded_a(schema)
    assert not gc.is_tracked(record)
    sentinel = Sentinel()           # records have no weakref slot: the cycle carries a probe
    probe = weakref.ref(sentinel)
    record.Name = [record, sentinel]    # record -> list -> record
    del record, sentinel
    gc.collect()
    assert probe() is None


def test_cycle_through_an_untracked_child_record_is_collected(schema):
    # The parent holds a nested record, so it stays tracked; the child record may be
    # untracked until something refers back to the parent from it.
    compound = schema.types["Compound"]
    data = schema.encode(compound(Nested=schema.types["Inner"](X=1, Y="y")))
    parent = schema.decode(data)
    assert gc.is_tracked(parent)
    child = parent.Nested
    assert not gc.is_tracked(child)
    sentinel = Sentinel()
    probe = weakref.ref(sentinel)
    child.Y = [parent, sentinel]
    assert gc.is_tracked(child)
    del parent, child, sentinel
    gc.collect()
    assert probe() is None


def test_records_holding_containers_stay_tracked(schema):
    compound = schema.types["Compound"]
    record = schema.decode(schema.encode(compound(Ints=[1, 2])))
    assert gc.is_tracked(record)
    tree = schema.types["Tree"]
    assert gc.is_tracked(schema.decode(schema.encode(tree(Label="x", Kids=[tree(Label="y")]))))


def test_user_classes_stay_tracked():
    @dataclasses.dataclass(slots=True)
    class Inner:
        X: int = 0
        Y: str = ""

    user = zebrapack.load(SCHEMAS / "zp.z", types={"Inner": Inner})
    record = user.decode(user.encode(Inner(1, "a")))
    assert type(record) is Inner and gc.is_tracked(record)


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="Python 3.13's object.__setattr__ no longer refuses it")
def test_object_setattr_is_refused_so_it_cannot_bypass_the_tracking(schema):
    record = decoded_a(schema)
    with pytest.raises(TypeError):
        object.__setattr__(record, "Name", [])
    assert not gc.is_tracked(record)


@pytest.mark.skipif(sys.version_info < (3, 13), reason="refused before Python 3.13")
def test_object_setattr_bypasses_the_tracking_from_python_3_13_as_documented(schema):
    # Python 3.13 lets object.__setattr__ through a C-level __setattr__ of a base class:
    # like the member descriptor's __set__ below, it stores without re-tracking.
    record = decoded_a(schema)
    object.__setattr__(record, "Name", [])
    assert not gc.is_tracked(record)
    record.Name = ""


def test_member_descriptor_bypass_is_the_documented_caveat(schema):
    # type(record).field.__set__ stores without the base's __setattr__: the record stays
    # untracked (documented in docs/performance.md, as msgspec documents it).
    record = decoded_a(schema)
    type(record).Name.__set__(record, [])
    assert not gc.is_tracked(record)
    record.Name = ""


def test_delete_copy_and_pickle_still_work(schema):
    record = decoded_a(schema)
    for twin in (copy.copy(record), copy.deepcopy(record), pickle.loads(pickle.dumps(record))):
        assert twin == record
    del record.Phone
    with pytest.raises(AttributeError):
        record.Phone
    with pytest.raises(AttributeError):
        record.NoSuchField = 1
