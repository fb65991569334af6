"""zebrapack.Timestamp: a UTC datetime that keeps Go's nanoseconds."""

from __future__ import annotations

import copy
import pickle
from datetime import datetime, timedelta, timezone

import pytest

from zebrapack import Timestamp

UTC = timezone.utc


def ts(nanosecond: int, microsecond: int = 123456) -> Timestamp:
    return Timestamp(1969, 7, 20, 20, 17, 40, microsecond, UTC, nanosecond=nanosecond)


def test_timestamp_is_a_datetime_with_nanoseconds() -> None:
    value = ts(789)
    assert isinstance(value, datetime)
    assert (value.microsecond, value.nanosecond) == (123456, 789)


def test_equality_and_order_include_the_nanoseconds() -> None:
    assert ts(789) == ts(789) and ts(789) != ts(788)
    assert ts(1) > ts(0) and ts(0) < ts(1) and ts(5) >= ts(5) and ts(5) <= ts(5)
    plain = datetime(1969, 7, 20, 20, 17, 40, 123456, tzinfo=UTC)
    assert ts(0) == plain and plain == ts(0)
    assert ts(1) != plain and plain != ts(1)
    assert plain < ts(1) and ts(1) > plain
    assert ts(999, 123455) < plain


def test_hash_agrees_with_equality() -> None:
    plain = datetime(1969, 7, 20, 20, 17, 40, 123456, tzinfo=UTC)
    assert hash(ts(0)) == hash(plain)
    assert len({ts(1), ts(1), ts(2), plain}) == 3


def test_nanosecond_range_is_checked() -> None:
    with pytest.raises(ValueError, match="nanosecond must be an int in 0..999"):
        ts(1000)
    with pytest.raises(ValueError):
        ts(-1)


def test_isoformat_and_repr_show_nanoseconds() -> None:
    assert ts(789).isoformat() == "1969-07-20T20:17:40.123456789+00:00"
    assert str(ts(7)) == "1969-07-20 20:17:40.123456007+00:00"
    assert repr(ts(789)) == ("zebrapack.Timestamp(1969, 7, 20, 20, 17, 40, 123456, nanosecond=789, "
                             "tzinfo=datetime.timezone.utc)")


def test_arithmetic_replace_and_astimezone_keep_nanoseconds() -> None:
    later = ts(789) + timedelta(days=1)
    assert isinstance(later, Timestamp) and later.nanosecond == 789 and later.day == 21
    assert (timedelta(seconds=1) + ts(5)).nanosecond == 5
    assert (ts(789) - timedelta(microseconds=1)).microsecond == 123455
    assert ts(789).replace(year=2000).nanosecond == 789
    assert ts(789).replace(nanosecond=1).nanosecond == 1
    shifted = ts(789).astimezone(timezone(timedelta(hours=2)))
    assert shifted.nanosecond == 789 and shifted.hour == 22 and shifted == ts(789)


def test_difference_of_timestamps_is_a_timedelta_at_microsecond_precision() -> None:
    assert ts(999) - ts(0) == timedelta(0)


def test_pickle_and_copy_keep_nanoseconds() -> None:
    for clone in (pickle.loads(pickle.dumps(ts(321))), copy.copy(ts(321)), copy.deepcopy(ts(321))):
        assert type(clone) is Timestamp and clone.nanosecond == 321 and clone == ts(321)


def test_to_datetime_truncates_to_the_microsecond() -> None:
    plain = ts(789).to_datetime()
    assert type(plain) is datetime and plain == datetime(1969, 7, 20, 20, 17, 40, 123456, tzinfo=UTC)
