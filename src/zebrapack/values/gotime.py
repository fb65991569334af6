"""``GoTime``: a Go ``time.Time`` exactly as the wire holds it, for instants a ``datetime`` cannot hold.

ZebraPack writes a time as ext 5: int64 Unix seconds and a nanosecond count.
Go's ``time.Time`` reaches far beyond the years 1-9999 that Python's
``datetime`` holds, and Go reads and writes such instants without complaint.
The decoder returns a ``GoTime`` for them (in time fields, containers of times
and ``interface{}`` values alike) instead of failing the record, and the
encoder writes a ``GoTime`` back to the same bytes. Users may also build one to
write any instant Go can represent. Inside the years 1-9999 the decoder keeps
returning ``datetime`` (or ``Timestamp`` below the microsecond).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from .timestamp import Timestamp

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_NANOS_PER_SECOND = 1_000_000_000
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: Go's zero time.Time (0001-01-01T00:00:00Z) as a datetime: what decoding gives for it
#: where a time sits inside a container (a time field gives None).
GO_ZERO_TIME = datetime(1, 1, 1, tzinfo=timezone.utc)
#: Unix seconds of 0001-01-01T00:00:00Z and of 9999-12-31T23:59:59Z: what a datetime holds.
DATETIME_MIN_SECONDS = -62135596800
DATETIME_MAX_SECONDS = 253402300799


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a count of days from 1970-01-01, proleptic Gregorian, any year."""
    days += 719468
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    return year_of_era + era * 400 + (month <= 2), month, day


class GoTime:
    """An instant as Go's ``time.Time`` carries it on the wire: Unix ``seconds``
    (any int64) and ``nanoseconds`` (0..999999999), UTC.

    Immutable, hashable, ordered and picklable; equal only to another
    ``GoTime`` of the same instant (never to a ``datetime``: compare
    ``to_datetime()`` or ``GoTime.from_datetime(d)``).
    """

    __slots__ = ("_seconds", "_nanoseconds")

    _seconds: int
    _nanoseconds: int

    def __init__(self, seconds: int, nanoseconds: int = 0) -> None:
        for name, value in (("seconds", seconds), ("nanoseconds", nanoseconds)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"GoTime {name} must be an int, not {type(value).__name__}")
        if not _INT64_MIN <= seconds <= _INT64_MAX:
            raise ValueError(f"GoTime seconds {seconds} is outside int64")
        if not 0 <= nanoseconds < _NANOS_PER_SECOND:
            raise ValueError(f"GoTime nanoseconds {nanoseconds} is outside 0..999999999")
        object.__setattr__(self, "_seconds", int(seconds))
        object.__setattr__(self, "_nanoseconds", int(nanoseconds))

    @property
    def seconds(self) -> int:
        """Seconds from 1970-01-01T00:00:00Z (negative before), as Go's ``Unix()``."""
        return self._seconds

    @property
    def nanoseconds(self) -> int:
        """Nanoseconds within the second, 0..999999999, as Go's ``Nanosecond()``."""
        return self._nanoseconds

    @classmethod
    def from_datetime(cls, value: datetime) -> GoTime:
        """The instant of an aware ``datetime`` (a ``Timestamp`` keeps its nanoseconds)."""
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r} is ambiguous: give it a tzinfo")
        offset = value.utcoffset()
        assert offset is not None
        local = value.replace(tzinfo=None)
        days = (local.date() - _EPOCH.date()).days
        seconds = days * 86400 + local.hour * 3600 + local.minute * 60 + local.second
        micro = local.microsecond - offset.microseconds
        seconds -= offset.days * 86400 + offset.seconds
        seconds, micro = seconds + micro // 1_000_000, micro % 1_000_000
        return cls(seconds, micro * 1000 + getattr(value, "nanosecond", 0))

    def in_datetime_range(self) -> bool:
        """Whether ``to_datetime()`` can hold the instant (years 1-9999)."""
        return DATETIME_MIN_SECONDS <= self._seconds <= DATETIME_MAX_SECONDS

    def to_datetime(self) -> datetime:
        """The UTC ``datetime`` (a ``Timestamp`` when below the microsecond); ValueError
        outside the years 1-9999."""
        if not self.in_datetime_range():
            raise ValueError(f"{self!r} is outside the years 1-9999 a datetime holds")
        moment = _EPOCH + timedelta(seconds=self._seconds, microseconds=self._nanoseconds // 1000)
        if self._nanoseconds % 1000:
            return Timestamp.from_datetime(moment, self._nanoseconds % 1000)
        return moment

    def isoformat(self) -> str:
        """RFC 3339 in UTC with ISO 8601's expanded years outside 0000-9999 (``+10000-01-01T00:00:00Z``)."""
        days, second_of_day = divmod(self._seconds, 86400)
        year, month, day = _civil_from_days(days)
        year_text = f"{year:04d}" if 0 <= year <= 9999 else f"{year:+05d}"
        fraction = f".{self._nanoseconds:09d}".rstrip("0") if self._nanoseconds else ""
        return (f"{year_text}-{month:02d}-{day:02d}T{second_of_day // 3600:02d}:"
                f"{second_of_day // 60 % 60:02d}:{second_of_day % 60:02d}{fraction}Z")

    # -- value semantics ---------------------------------------------------------

    def _key(self) -> tuple[int, int]:
        return self._seconds, self._nanoseconds

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, GoTime) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self._key() != other._key() if isinstance(other, GoTime) else NotImplemented

    def __lt__(self, other: GoTime) -> bool:
        return self._key() < other._key() if isinstance(other, GoTime) else NotImplemented

    def __le__(self, other: GoTime) -> bool:
        return self._key() <= other._key() if isinstance(other, GoTime) else NotImplemented

    def __gt__(self, other: GoTime) -> bool:
        return self._key() > other._key() if isinstance(other, GoTime) else NotImplemented

    def __ge__(self, other: GoTime) -> bool:
        return self._key() >= other._key() if isinstance(other, GoTime) else NotImplemented

    def __hash__(self) -> int:
        return hash((GoTime, self._seconds, self._nanoseconds))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("GoTime is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("GoTime is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return GoTime, (self._seconds, self._nanoseconds)

    def __repr__(self) -> str:
        return f"zebrapack.GoTime(seconds={self._seconds}, nanoseconds={self._nanoseconds})"

    def __str__(self) -> str:
        return self.isoformat()
