"""A []T or map[K]V field whose items or entries take runs (numbers, bools, times,
strings; cython/_packer.pxi, ``store_run_field``) is stored whole by write_struct, in a
record the in-line writer does not take (here: one holding a ``[]interface{}``), as the
in-line writer stores it: exact lists and dicts whose every item fits its type. Anything
else (a list or dict subclass, an item out of range or of another type, an empty one
that msgp mode keeps, a level past max_depth) goes to write_sequence / write_map. Both
give the same bytes and errors in every mode: the same record with its containers as
subclasses, which only the general writers take, is the reference."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import EncodeError, int8, uint16

from support.encode_outcomes import encode_outcome


@dataclass(slots=True)
class Runs:
    Small: list[int8] = field(default_factory=list, metadata={"zid": 0})
    Words: list[str] = field(default_factory=list, metadata={"zid": 1})
    Counts: dict[str, uint16] = field(default_factory=dict, metadata={"zid": 2})
    Times: dict[int, datetime] = field(default_factory=dict, metadata={"zid": 3})
    Any_: list[Any] = field(default_factory=list, metadata={"zid": 4})     # not in line: write_struct
    Flags: list[bool] = field(default_factory=list, metadata={"zid": 5, "omitempty": True})


class List(list):  # type: ignore[type-arg]
    pass


class Dict(dict):  # type: ignore[type-arg]
    pass


SCHEMA = zebrapack.schema_from_dataclasses(Runs, package="runfields")
WHEN = datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=timezone.utc)

ints = st.one_of(st.integers(-130, 130), st.sampled_from([2**70, 1.5, "7", None, True]))
words = st.one_of(st.text(max_size=8), st.sampled_from(["\udc80", b"x", 3]))
counts = st.one_of(st.integers(-2, 70000), st.sampled_from([2**64, 2.0, None]))
times = st.one_of(st.just(WHEN), st.sampled_from([datetime(2024, 1, 1), None, 5]))
keys = st.one_of(st.integers(-2**63, 2**63 - 1), st.sampled_from([2**64, "k", 1.0]))


def as_subclasses(record: Runs) -> Runs:
    return Runs(Small=List(record.Small), Words=List(record.Words), Counts=Dict(record.Counts),
                Times=Dict(record.Times), Any_=record.Any_, Flags=List(record.Flags))


def assert_same(schema: zebrapack.Schema, record: Runs) -> Any:
    """The record's outcome, the same with its containers as subclasses, in every mode."""
    for options in ({}, {"structnames": False}, {"mode": "msgp"}):
        mine = encode_outcome(lambda: schema.encode(record, **options))
        assert mine == encode_outcome(lambda: schema.encode(as_subclasses(record), **options)), options
    return encode_outcome(lambda: schema.encode(record))


@settings(max_examples=400, deadline=None)
@given(st.lists(ints, max_size=6), st.lists(words, max_size=6), st.dictionaries(st.text(max_size=4), counts,
       max_size=4), st.dictionaries(keys, times, max_size=3), st.lists(st.integers(), max_size=2),
       st.lists(st.booleans(), max_size=3))
def test_run_fields_encode_as_the_general_writers_do(small: list[Any], words_: list[Any], counts_: dict[str, Any],
                                                     times_: dict[Any, Any], any_: list[Any],
                                                     flags: list[Any]) -> None:
    record = Runs(Small=small, Words=words_, Counts=counts_, Times=times_, Any_=any_, Flags=flags)
    data = assert_same(SCHEMA, record)
    if isinstance(data, bytes):
        assert SCHEMA.encode(SCHEMA.decode(data)) == data


@pytest.mark.parametrize("size", [0, 1, 15, 16, 300, 70000])
def test_run_fields_of_every_size_encode_whole(size: int) -> None:
    record = Runs(Small=[(i % 200) - 100 for i in range(size)], Words=["w" * (i % 40) for i in range(size)],
                  Counts={f"k{i}": i % 60000 for i in range(size)}, Times={i: WHEN for i in range(size % 100)},
                  Any_=[1])
    data = assert_same(SCHEMA, record)
    assert isinstance(data, bytes) and SCHEMA.decode(data) == record


def test_a_bad_item_is_refused_at_its_path() -> None:
    with pytest.raises(EncodeError) as caught:
        SCHEMA.encode(Runs(Small=[1, 2, 300]))
    assert caught.value.path == "Runs.Small[2]"
    with pytest.raises(EncodeError) as keyed:
        SCHEMA.encode(Runs(Counts={"a": 1, "b": -1}))
    assert keyed.value.path == "Runs.Counts['b']"


@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_run_fields_keep_max_depth(max_depth: int) -> None:
    """Runs, then a list: 2 levels."""
    schema = zebrapack.schema_from_dataclasses(Runs, package="runfields", max_depth=max_depth)
    got = assert_same(schema, Runs(Small=[1], Counts={"a": 2}))
    assert (got[0] == "error" and "max_depth" in got[1]) == (max_depth < 2), (max_depth, got)
