"""A datetime in UTC is written as Unix seconds and nanoseconds (the reference's ext 5),
read from the datetime's fields in C: the civil date's days (zp_days_from_civil, 32-bit
arithmetic and a table of the days from March 1st to each month), the second and the
microsecond read as one word. Every path that writes a time (a flat record's loop, write_struct,
a list's items) must give the seconds and nanoseconds Python's own arithmetic gives, on
every month's first and last day, leap days and century years, over Python's years 1-9999."""

from __future__ import annotations

import calendar
import struct
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Annotated

import pytest
from hypothesis import given
from hypothesis import strategies as st

import zebrapack
from zebrapack import Record, Zid

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
YEARS = [1, 2, 3, 4, 5, 99, 100, 101, 399, 400, 401, 1582, 1600, 1899, 1900, 1969, 1970, 1971, 1999, 2000,
         2001, 2024, 2100, 2400, 4000, 8000, 9998, 9999]


@dataclass(slots=True)
class Stamp(Record):
    At: Annotated[datetime, Zid(0)] = datetime(1, 1, 1, tzinfo=timezone.utc)
    N: Annotated[int, Zid(1)] = 0


@dataclass(slots=True)
class StampRef(Stamp):      # a subclass: never the flat loop, always write_struct
    pass


@dataclass(slots=True)
class Stamps(Record):
    V: Annotated[list[datetime], Zid(0)]


SCHEMA = zebrapack.schema_from_dataclasses(Stamp, Stamps, package="times")


def days_around(year: int) -> list[datetime]:
    """Each month's first and last day, at the first and last microsecond, and Feb 28 / 29."""
    out = []
    for month in range(1, 13):
        last = calendar.monthrange(year, month)[1]
        out.append(datetime(year, month, 1, tzinfo=timezone.utc))
        out.append(datetime(year, month, last, 23, 59, 59, 999999, tzinfo=timezone.utc))
    return out


def expected(at: datetime) -> bytes:
    delta = at - EPOCH
    seconds = delta.days * 86400 + delta.seconds
    return b"\xc7\x0c\x05" + struct.pack(">qI", seconds, delta.microseconds * 1000)


def time_of(data: bytes) -> bytes:
    at = data.index(b"\xc7\x0c\x05")
    return data[at:at + 15]


@pytest.mark.parametrize("year", YEARS)
def test_every_month_edge_gives_pythons_seconds_on_each_path(year):
    for at in days_around(year):
        if at == datetime(1, 1, 1, tzinfo=timezone.utc):
            continue                    # Go's zero instant: a zero field, left out
        want = expected(at)
        assert time_of(SCHEMA.encode(Stamp(at, 1))) == want              # the flat loop
        assert time_of(SCHEMA.encode(StampRef(at, 1))) == want           # write_struct
        assert time_of(SCHEMA.encode(Stamp(at, 1), mode="msgp")) == want
        assert time_of(SCHEMA.encode(Stamps([at]))) == want              # a list's item
        assert SCHEMA.decode(SCHEMA.encode(Stamp(at, 1))) == Stamp(at, 1)


@given(st.datetimes(min_value=datetime(1, 1, 1, 0, 0, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999),
                    timezones=st.just(timezone.utc)))
def test_any_utc_datetime_gives_pythons_seconds(at):
    assert time_of(SCHEMA.encode(Stamp(at, 1))) == expected(at)
    assert time_of(SCHEMA.encode(StampRef(at, 1))) == expected(at)


def test_go_zero_instant_is_left_out_and_a_microsecond_later_is_not():
    zero = datetime(1, 1, 1, tzinfo=timezone.utc)
    assert b"\xc7\x0c\x05" not in SCHEMA.encode(Stamp(zero, 1))
    later = zero + timedelta(microseconds=1)
    assert time_of(SCHEMA.encode(Stamp(later, 1))) == expected(later)


def test_naive_and_other_zone_datetimes_leave_the_fast_read():
    naive = datetime(2020, 2, 29, 12, 0, 0)
    with pytest.raises(zebrapack.EncodeError, match=r"At: naive datetime"):
        SCHEMA.encode(Stamp(naive, 1))
    east = datetime(2020, 3, 1, 1, 30, tzinfo=timezone(timedelta(hours=2)))
    assert time_of(SCHEMA.encode(Stamp(east, 1))) == expected(east.astimezone(timezone.utc))
