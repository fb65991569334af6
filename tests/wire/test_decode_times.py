"""time.Time values decode to the same instant on every calendar day Python's datetime
holds: the core turns Unix seconds into a civil date itself (zp_civil.h), and reads the
ext 5 as Go writes it (ext8, 12 bytes) on a path of its own; the other encodings of a
time still decode as before."""

from __future__ import annotations

import pickle
import struct
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import DecodeError


@dataclass(slots=True)
class Times:
    V: list[datetime] = field(default_factory=list, metadata={"zid": 0})


@pytest.fixture(scope="module")
def schema() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(Times, package="times")


def days_of_every_kind() -> list[date]:
    days = [date(1, 1, 1), date(9999, 12, 31), date(1970, 1, 1), date(1969, 12, 31)]
    for year in list(range(1, 10000, 97)) + [4, 100, 200, 300, 400, 1600, 1700, 1900, 2000, 2100, 2400, 9996]:
        for month, day in ((1, 1), (2, 28), (3, 1), (12, 31)):
            days.append(date(year, month, day))
        if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
            days.append(date(year, 2, 29))
    days += [date(1, 1, 1) + timedelta(days=d) for d in range(0, 3_652_059, 211)]
    return days


def test_every_kind_of_day_decodes_to_its_date(schema: zebrapack.Schema) -> None:
    times = [datetime(d.year, d.month, d.day, 23, 59, 58, 999_999, tzinfo=timezone.utc) for d in days_of_every_kind()]
    times += [t.replace(hour=0, minute=0, second=0, microsecond=0) for t in times]
    assert schema.decode(schema.encode(Times(V=times)), Times).V == times


def ext5(seconds: int, nanos: int) -> bytes:
    return b"\xc7\x0c\x05" + struct.pack(">qi", seconds, nanos)


def test_times_in_every_encoding_and_nanoseconds_that_carry(schema: zebrapack.Schema) -> None:
    items = [ext5(0, 0), ext5(0, 1_500_000_000), ext5(86_400, -1000),
             b"\xd6\xff" + struct.pack(">I", 60),                     # the msgpack spec's timestamp 32
             b"\xc7\x0c\x05" + struct.pack(">qi", 1, 0)]
    data = b"\x81\x00" + bytes([0x90 | len(items)]) + b"".join(items)
    utc = timezone.utc
    assert schema.decode(data, Times).V == [datetime(1970, 1, 1, tzinfo=utc), datetime(1970, 1, 1, 0, 0, 1, 500_000, tzinfo=utc),
                                           datetime(1970, 1, 1, 23, 59, 59, 999_999, tzinfo=utc),
                                           datetime(1970, 1, 1, 0, 1, tzinfo=utc), datetime(1970, 1, 1, 0, 0, 1, tzinfo=utc)]
    with pytest.raises(DecodeError, match="input ends inside a value") as caught:
        schema.decode(b"\x81\x00\x91" + ext5(5, 0)[:-1], Times)
    assert (caught.value.path, caught.value.offset) == ("Times.V[0]", 3)
    with pytest.raises(DecodeError, match="strict") as caught:
        schema.decode(b"\x81\x00\x91\xc8\x00\x0c\x05" + struct.pack(">qi", 1, 0), Times, strict=True)
    assert caught.value.path == "Times.V[0]"


@dataclass(slots=True)
class Stamp:
    At: datetime | None = field(default=None, metadata={"zid": 0})


@settings(max_examples=300, deadline=None)
@given(seconds=st.integers(min_value=-62135596800, max_value=253402300799),
       micros=st.integers(min_value=0, max_value=999_999))
def test_decoded_times_are_datetimes_in_every_way(schema: zebrapack.Schema, seconds: int, micros: int) -> None:
    # the core builds a decoded datetime itself (zp_new_datetime), fields in datetime.h's
    # layout, not through the datetime module's constructor: it must be that datetime in
    # every respect, its hash, fold, tzinfo, text and pickle included
    expected = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=seconds, microseconds=micros)
    items = [schema.decode(b"\x81\x00\x91" + ext5(seconds, micros * 1000), Times).V[0]]
    field_level = zebrapack.schema_from_dataclasses(Stamp, package="stamp").decode(
        b"\x81\x00" + ext5(seconds, micros * 1000), Stamp).At
    if (seconds, micros) == (-62135596800, 0):
        assert field_level is None      # Go's zero instant, at a struct's own time field
    else:
        items.append(field_level)
    for got in items:
        assert type(got) is datetime
        assert got == expected and hash(got) == hash(expected)
        assert got.fold == 0 and got.tzinfo is timezone.utc and got.utcoffset() == timedelta(0)
        assert (got.year, got.month, got.day, got.hour, got.minute, got.second, got.microsecond) == (
            expected.year, expected.month, expected.day, expected.hour, expected.minute, expected.second,
            expected.microsecond)
        assert got.isoformat() == expected.isoformat() and repr(got) == repr(expected)
        assert pickle.loads(pickle.dumps(got)) == expected
        assert got.replace(tzinfo=None) == expected.replace(tzinfo=None)
        assert hash(got.replace(fold=1)) == hash(expected.replace(fold=1))
