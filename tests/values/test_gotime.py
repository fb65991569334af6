"""Times outside the years a ``datetime`` holds: ``zebrapack.GoTime`` in time fields,
containers of times and ``interface{}`` values, decoded from and encoded to the exact
Go time; the nanoseconds as Go reads them (an int32, normalized)."""

from __future__ import annotations

import copy
import pickle
import struct
from datetime import datetime, timedelta, timezone

import pytest
from support.golden import GOLDEN

import zebrapack
from zebrapack import DecodeError, GoTime, Timestamp

UTC = timezone.utc
DEEP = zebrapack.load(GOLDEN / "schemas" / "deep.z")
MY = zebrapack.load(GOLDEN / "schemas" / "my.z")
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def time_ext5(seconds: int, nanos: int) -> bytes:
    return b"\xc7\x0c\x05" + struct.pack(">qi", seconds, nanos)


def leaf_when(wire: bytes) -> bytes:
    return b"\x82\xff\xa4Leaf\x03" + wire


# -- the class --------------------------------------------------------------------------

def test_go_time_is_an_exact_comparable_hashable_value() -> None:
    early, late = GoTime(-62135596801, 5), GoTime(253402300800)
    assert early == GoTime(-62135596801, 5) and hash(early) == hash(GoTime(-62135596801, 5))
    assert early < late and late >= early and early != late
    assert len({early, GoTime(-62135596801, 5), late}) == 2
    assert (early.seconds, early.nanoseconds) == (-62135596801, 5)
    assert GoTime(0) != datetime(1970, 1, 1, tzinfo=UTC)    # only GoTimes compare equal


def test_go_time_says_what_it_is() -> None:
    assert repr(GoTime(-62135596801, 5)) == "zebrapack.GoTime(seconds=-62135596801, nanoseconds=5)"
    assert str(GoTime(-62135596801, 5)) == "0000-12-31T23:59:59.000000005Z"
    assert GoTime(253402300800).isoformat() == "+10000-01-01T00:00:00Z"
    assert GoTime(-62198755200).isoformat() == "-0001-01-01T00:00:00Z"
    assert GoTime(1700000000, 120).isoformat() == "2023-11-14T22:13:20.00000012Z"


def test_go_time_pickles_and_is_immutable() -> None:
    moment = GoTime(INT64_MIN, 999_999_999)
    assert pickle.loads(pickle.dumps(moment)) == moment
    assert copy.deepcopy(moment) == moment
    with pytest.raises(AttributeError):
        moment.seconds = 3  # type: ignore[misc]


@pytest.mark.parametrize(("seconds", "nanoseconds"), [(INT64_MAX + 1, 0), (0, -1), (0, 10**9)])
def test_go_time_refuses_what_the_wire_cannot_hold(seconds: int, nanoseconds: int) -> None:
    with pytest.raises(ValueError):
        GoTime(seconds, nanoseconds)


def test_go_time_converts_to_and_from_datetime_in_range() -> None:
    moment = datetime(2023, 11, 14, 22, 13, 20, 5, tzinfo=UTC)
    assert GoTime.from_datetime(moment) == GoTime(1700000000, 5000)
    assert GoTime(1700000000, 5000).to_datetime() == moment
    precise = Timestamp(1969, 12, 31, 23, 59, 59, 999999, UTC, nanosecond=1)
    assert GoTime.from_datetime(precise) == GoTime(-1, 999_999_001)
    assert GoTime(-1, 999_999_001).to_datetime() == precise
    plus_one = timezone(timedelta(hours=1))
    assert GoTime.from_datetime(datetime(1, 1, 1, tzinfo=plus_one)) == GoTime(-62135596800 - 3600)
    with pytest.raises(ValueError, match="outside the years 1-9999"):
        GoTime(-62135596801).to_datetime()
    with pytest.raises(ValueError, match="naive"):
        GoTime.from_datetime(datetime(2000, 1, 1))


# -- decoding and encoding ------------------------------------------------------------------

@pytest.mark.parametrize(("seconds", "nanos"), [
    (-62135596801, 0),          # one second before year 1
    (253402300800, 0),          # year 10000
    (INT64_MIN, 0),
    (INT64_MAX, 999_999_999),
    (-62135596800 - 3600, 123456789),
], ids=str)
def test_a_go_time_outside_datetime_years_decodes_to_gotime_and_encodes_back(seconds: int, nanos: int) -> None:
    data = leaf_when(time_ext5(seconds, nanos))
    leaf = DEEP.decode(data, strict=True)
    assert leaf.When == GoTime(seconds, nanos)
    assert DEEP.encode(leaf) == data


def test_go_times_in_containers_and_interfaces() -> None:
    times = [GoTime(-62135596801), datetime(2000, 1, 1, tzinfo=UTC), GoTime(253402300800, 1)]
    deep = DEEP.decode(DEEP.encode(DEEP.types["Deep"](Times=times)), strict=True)
    assert deep.Times == times
    sys = MY.decode(MY.encode(MY.types.Sys(F=[GoTime(-62135596801, 7), {"t": GoTime(1 << 40)}])), strict=True)
    assert sys.F == [GoTime(-62135596801, 7), {"t": GoTime(1 << 40)}]


def test_encode_writes_the_exact_go_time_of_a_datetime_before_year_1_in_utc() -> None:
    # datetime(1, 1, 1, +01:00) is 0000-12-31T23:00:00Z: a valid Go time that decode reads back.
    moment = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1)))
    data = DEEP.encode(DEEP.types["Leaf"](When=moment))
    assert data == leaf_when(time_ext5(-62135596800 - 3600, 0))
    back = DEEP.decode(data, strict=True).When
    assert back == GoTime(-62135596800 - 3600)
    assert DEEP.encode(DEEP.types["Leaf"](When=back)) == data
    late = datetime(9999, 12, 31, 23, 30, tzinfo=timezone(timedelta(hours=-1)))
    assert DEEP.decode(DEEP.encode(DEEP.types["Leaf"](When=late))).When == GoTime(253402300800 + 1800)


@pytest.mark.parametrize(("nanos_field", "seconds", "nanos"), [
    (-1, 99, 999_999_999),                  # 0xffffffff: Go reads int32 -1, time.Unix normalizes
    (-1_000_000_001, 98, 999_999_999),
    (2_147_483_647, 102, 147_483_647),
    (1_500_000_000, 101, 500_000_000),
], ids=str)
def test_time_nanoseconds_are_read_as_go_reads_them(nanos_field: int, seconds: int, nanos: int) -> None:
    leaf = DEEP.decode(leaf_when(time_ext5(100, nanos_field)), strict=True)
    assert GoTime.from_datetime(leaf.When) == GoTime(seconds, nanos)
    assert DEEP.encode(leaf) == leaf_when(time_ext5(seconds, nanos))      # what Go writes back


def test_normalized_seconds_wrap_around_as_go_int64_does() -> None:
    leaf = DEEP.decode(leaf_when(time_ext5(INT64_MAX, 1_000_000_000)))
    assert leaf.When == GoTime(INT64_MIN, 0)


def test_strict_time_is_ext8_of_12_bytes_only() -> None:
    ext16 = b"\xc8\x00\x0c\x05" + struct.pack(">qi", 0, 0)
    assert DEEP.decode(leaf_when(ext16)).When == datetime(1970, 1, 1, tzinfo=UTC)
    with pytest.raises(DecodeError, match=r"Leaf\.When: expected time\.Time \(ext8, 12 bytes, ext 5\), "
                                          r"found ext16 \(strict\)"):
        DEEP.decode(leaf_when(ext16), strict=True)
