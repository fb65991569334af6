"""The flat record writer's fast paths (cython/_packer.pxi): ``encode(obj)`` of a small
record of a flat plan goes straight from the call to write_flat_record, which stores
every field of the record's fixed room without a room test each and takes a time, bytes,
a float32 and pointers in line; list items of a flat plan go through it too
(write_flat_nested, one trail level); write_struct stores keys as words and grows the
buffer for a field that does not fit. A record of a subclass (never the plan's exact
class) always takes write_struct: both must give the same bytes, or the same error
(message, field path, byte offset), for every value."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import EncodeError, GoTime, Record, Zid, float32, int64, uint32

UTC = timezone.utc


# Flat: every kind write_flat_record stores, the rarer ones too, zero ints between them
# (skipped by identity), and the last two with two-byte keys (zids from 128 on).
Rare = dataclasses.make_dataclass("Rare", [
    ("T", Annotated[Optional[datetime], Zid(0)], None),
    ("B", Annotated[bytes, Zid(1)], b""),
    ("F", Annotated[float32, Zid(2)], 0.0),
    ("PI", Annotated[Optional[int64], Zid(3)], None),
    ("PS", Annotated[Optional[str], Zid(4)], None),
    ("PT", Annotated[Optional[uint32], Zid(5)], None),
    *[(f"Z{i}", Annotated[int64, Zid(i)], 0) for i in range(6, 200)],
    ("S", Annotated[str, Zid(200)], ""),
    ("Long_Name_Past_Eight_Bytes", Annotated[int64, Zid(201)], 0),
], bases=(Record,), slots=True)


class RareRef(Rare):    # type: ignore[misc,valid-type]
    __slots__ = ()


FIELDS = "T B F PI PS PT S Long_Name_Past_Eight_Bytes".split()


@dataclass(slots=True)
class Holder(Record):
    """Not flat (a list): its fields take write_struct's inline writer."""
    Pad: Annotated[str, Zid(0)] = ""
    When: Annotated[Optional[datetime], Zid(1)] = None
    Items: Annotated[list[Rare], Zid(2)] = field(default_factory=list)
    Long_Tag_Name_Past_Eight: Annotated[int64, Zid(3)] = 0


SCHEMA = zebrapack.schema_from_dataclasses(Rare, Holder, package="flatfast")

times = st.one_of(
    st.none(),
    st.datetimes(timezones=st.just(UTC)),
    st.datetimes(timezones=st.sampled_from([timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))])),
    st.datetimes(),                                                     # naive: an error
    st.sampled_from([datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
                     datetime(1970, 1, 1, tzinfo=UTC), datetime(2000, 2, 29, tzinfo=UTC),
                     datetime(1900, 3, 1, tzinfo=UTC)]),
    st.builds(GoTime, st.integers(-62135596800, 253402300799), st.integers(0, 999_999_999)),
)
values = st.one_of(
    st.integers(-2**64, 2**64), st.floats(allow_nan=True), st.sampled_from([0.0, -0.0, 3.5e38, 1e39]),
    st.text(max_size=40), st.text(alphabet="xy", min_size=200, max_size=600), st.binary(max_size=40),
    st.booleans(), st.none(),
)


def outcome(encode: Any, record: Any) -> Any:
    try:
        return encode(record)
    except EncodeError as error:
        return ("error", str(error), error.path, error.offset)


def as_reference(record: Any) -> Any:
    reference = RareRef.__new__(RareRef)
    for name in record.__dataclass_fields__:
        setattr(reference, name, getattr(record, name))
    return reference


def assert_same(record: Any) -> None:
    """The fast call, the keyword call and encode_into give write_struct's outcome."""
    reference = as_reference(record)
    general = outcome(SCHEMA.encode, reference)
    assert outcome(SCHEMA.encode, record) == general
    assert outcome(lambda r: SCHEMA.encode(r, structnames=True), record) == general
    assert outcome(lambda r: SCHEMA.encode(r, structnames=False), record) == \
        outcome(lambda r: SCHEMA.encode(r, structnames=False), reference)
    if isinstance(general, bytes):
        buffer = bytearray(b"xy")
        SCHEMA.encode_into(record, buffer, -1)
        assert bytes(buffer) == b"xy" + general


@settings(max_examples=400, deadline=None)
@given(times, st.one_of(values, st.binary(max_size=300)), values, values, values, values, values, values)
def test_rare_kinds_encode_as_write_struct_does(t, b, f, pi, ps, pt, s, i):
    record = Rare()
    for name, value in zip(FIELDS, (t, b, f, pi, ps, pt, s, i)):
        setattr(record, name, value)
    assert_same(record)


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999)))
def test_times_are_their_unix_seconds_on_every_date(naive):
    aware = naive.replace(tzinfo=UTC)
    data = SCHEMA.encode(Rare(T=aware))
    if naive == datetime(1, 1, 1):          # Go's zero instant: the field's zero, left out
        assert data == SCHEMA.encode(Rare())
        return
    ext = data.index(b"\xc7\x0c\x05")
    seconds = int.from_bytes(data[ext + 3:ext + 11], "big", signed=True)
    nanos = int.from_bytes(data[ext + 11:ext + 15], "big")
    since = aware - datetime(1970, 1, 1, tzinfo=UTC)
    assert (seconds, nanos) == (since.days * 86400 + since.seconds, since.microseconds * 1000)
    assert SCHEMA.decode(data).T == aware


@settings(max_examples=150, deadline=None)
@given(st.lists(st.builds(Rare, T=times.filter(lambda t: t is None or getattr(t, "tzinfo", 1) is not None),
                          B=st.binary(max_size=600), S=st.text(max_size=300), Long_Name_Past_Eight_Bytes=st.integers(-2**63, 2**63 - 1)),
                max_size=6),
       st.integers(0, 600))
def test_list_items_of_a_flat_plan_encode_as_write_struct_does(items, pad):
    flat = Holder(Pad="p" * pad, Items=items)
    general = Holder(Pad="p" * pad, Items=[as_reference(item) for item in items])
    assert outcome(SCHEMA.encode, flat) == outcome(SCHEMA.encode, general)
    assert outcome(lambda r: SCHEMA.encode(r, mode="msgp"), flat) == \
        outcome(lambda r: SCHEMA.encode(r, mode="msgp"), general)


def test_a_bad_value_in_a_listed_flat_record_names_its_path():
    holder = Holder(Items=[Rare(Long_Name_Past_Eight_Bytes=1), Rare(Long_Name_Past_Eight_Bytes=2**63)])
    with pytest.raises(EncodeError) as flat:
        SCHEMA.encode(holder)
    with pytest.raises(EncodeError) as general:
        SCHEMA.encode(Holder(Items=[as_reference(item) for item in holder.Items]))
    assert (str(flat.value), flat.value.path, flat.value.offset) == \
        (str(general.value), general.value.path, general.value.offset)
    assert flat.value.path == "Holder.Items[1].Long_Name_Past_Eight_Bytes"


def test_listed_flat_records_keep_the_depth_limit():
    shallow = zebrapack.schema_from_dataclasses(Rare, Holder, package="flatfast", max_depth=2)
    holder = Holder(Items=[Rare(S="s")])
    with pytest.raises(EncodeError) as flat:
        shallow.encode(holder)
    with pytest.raises(EncodeError) as general:
        shallow.encode(Holder(Items=[as_reference(Rare(S="s"))]))
    assert (str(flat.value), flat.value.path) == (str(general.value), general.value.path)
    assert "max_depth=2" in str(flat.value)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 700), times)
def test_a_time_field_near_the_buffers_end_is_written_or_refused_as_write_time_does(pad, when):
    # Holder is not flat: its time field takes write_struct's inline writer, which tests
    # a time's room before its value; the pad puts the field at every distance from the
    # end of a buffer sized for the record before it. Without pressure on the buffer
    # (a fresh codec, a first record of that size) the outcome is the same.
    SCHEMA.encode(Holder(Pad="q" * pad, Long_Tag_Name_Past_Eight=1))
    holder = Holder(Pad="q" * pad, When=when, Long_Tag_Name_Past_Eight=7)
    data = outcome(SCHEMA.encode, holder)
    fresh = zebrapack.schema_from_dataclasses(Rare, Holder, package="flatfast")
    assert data == outcome(fresh.encode, holder)
    if isinstance(data, bytes):
        back = SCHEMA.decode(data)
        assert (back.Pad, back.Long_Tag_Name_Past_Eight) == (holder.Pad, 7)
    else:
        assert data[2] == "Holder.When"


def test_records_outgrowing_the_stack_buffer_and_back():
    for size in (10, 600, 20, 100_000, 5, 480, 520):
        record = Rare(S="s" * size, B=b"b" * size, Long_Name_Past_Eight_Bytes=size)
        assert_same(record)
        assert SCHEMA.decode(SCHEMA.encode(record)).S == record.S
