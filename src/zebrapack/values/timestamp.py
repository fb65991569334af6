"""``Timestamp``: a ``datetime`` that keeps the nanoseconds Go's ``time.Time`` carries.

Python's ``datetime`` stops at microseconds. The decoder returns a plain
``datetime`` whenever the nanoseconds on the wire are a whole number of
microseconds, and a ``Timestamp`` (a ``datetime`` subclass) otherwise, so
decode -> encode reproduces the bytes. A ``Timestamp`` behaves as the UTC
``datetime`` it is; equality, ordering and hashing also look at
``nanosecond``, the part below the microsecond (0-999, as in pandas).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from datetime import tzinfo as _tzinfo
from typing import Any


def _nanosecond_of(value: datetime) -> int:
    return value.nanosecond if isinstance(value, Timestamp) else 0


class Timestamp(datetime):
    """A ``datetime`` with ``nanosecond``: the nanoseconds below ``microsecond`` (0-999)."""

    __slots__ = ("_nanosecond",)
    _nanosecond: int

    def __new__(
        cls,
        year: int,
        month: int,
        day: int,
        hour: int = 0,
        minute: int = 0,
        second: int = 0,
        microsecond: int = 0,
        tzinfo: _tzinfo | None = None,
        *,
        fold: int = 0,
        nanosecond: int = 0,
    ) -> Timestamp:
        if not isinstance(nanosecond, int) or isinstance(nanosecond, bool) or not 0 <= nanosecond <= 999:
            raise ValueError(f"nanosecond must be an int in 0..999, not {nanosecond!r}")
        self = super().__new__(cls, year, month, day, hour, minute, second, microsecond, tzinfo, fold=fold)
        self._nanosecond = nanosecond
        return self

    @classmethod
    def from_datetime(cls, value: datetime, nanosecond: int = 0) -> Timestamp:
        """``value`` with ``nanosecond`` nanoseconds below its microsecond."""
        return cls(
            value.year, value.month, value.day, value.hour, value.minute, value.second,
            value.microsecond, value.tzinfo, fold=value.fold, nanosecond=nanosecond,
        )

    @property
    def nanosecond(self) -> int:
        """Nanoseconds below the microsecond, 0-999."""
        # datetime's C methods (replace, astimezone, ...) may build instances
        # of this class without calling __new__; those carry no nanoseconds.
        try:
            return self._nanosecond
        except AttributeError:
            return 0

    def to_datetime(self) -> datetime:
        """The plain ``datetime``, truncated to the microsecond."""
        return datetime(
            self.year, self.month, self.day, self.hour, self.minute, self.second,
            self.microsecond, self.tzinfo, fold=self.fold,
        )

    # -- comparison: the datetime part first, then the nanoseconds -------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, datetime):
            return NotImplemented
        return datetime.__eq__(self, other) is True and self.nanosecond == _nanosecond_of(other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def _compare(self, other: datetime) -> int:
        if datetime.__eq__(self, other) is True:
            mine, theirs = self.nanosecond, _nanosecond_of(other)
            return (mine > theirs) - (mine < theirs)
        return 1 if datetime.__gt__(self, other) else -1

    def __lt__(self, other: date) -> bool:
        return self._compare(other) < 0 if isinstance(other, datetime) else NotImplemented

    def __le__(self, other: date) -> bool:
        return self._compare(other) <= 0 if isinstance(other, datetime) else NotImplemented

    def __gt__(self, other: date) -> bool:
        return self._compare(other) > 0 if isinstance(other, datetime) else NotImplemented

    def __ge__(self, other: date) -> bool:
        return self._compare(other) >= 0 if isinstance(other, datetime) else NotImplemented

    def __hash__(self) -> int:
        base = datetime.__hash__(self)
        nanosecond = self.nanosecond
        return base if nanosecond == 0 else hash((base, nanosecond))

    # -- operations that would drop the nanoseconds in datetime's C code -------

    def __add__(self, other: timedelta) -> Timestamp:
        result = datetime.__add__(self.to_datetime(), other)
        if result is NotImplemented:
            return NotImplemented
        return Timestamp.from_datetime(result, self.nanosecond)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, timedelta):
            return self + -other
        return datetime.__sub__(self.to_datetime(), other)

    def replace(self, *args: Any, nanosecond: int | None = None, **kwargs: Any) -> Timestamp:
        result = self.to_datetime().replace(*args, **kwargs)
        return Timestamp.from_datetime(result, self.nanosecond if nanosecond is None else nanosecond)

    def astimezone(self, tz: _tzinfo | None = None) -> Timestamp:
        return Timestamp.from_datetime(self.to_datetime().astimezone(tz), self.nanosecond)

    # -- text and pickling ------------------------------------------------------

    def isoformat(self, sep: str = "T", timespec: str = "auto") -> str:
        if timespec not in ("auto", "nanoseconds"):
            return self.to_datetime().isoformat(sep, timespec)
        plain = self.to_datetime()
        text = plain.isoformat(sep, "microseconds")
        # the fraction ends 26 characters in ("YYYY-MM-DDTHH:MM:SS.ffffff")
        return f"{text[:26]}{self.nanosecond:03d}{text[26:]}"

    def __str__(self) -> str:
        return self.isoformat(" ")

    def __repr__(self) -> str:
        parts = [self.year, self.month, self.day, self.hour, self.minute, self.second, self.microsecond]
        text = ", ".join(str(part) for part in parts)
        text += f", nanosecond={self.nanosecond}"
        if self.tzinfo is not None:
            text += f", tzinfo={self.tzinfo!r}"
        if self.fold:
            text += ", fold=1"
        return f"zebrapack.Timestamp({text})"

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (_restore, (self.to_datetime(), self.nanosecond))

    def __reduce__(self) -> tuple[Any, ...]:
        return self.__reduce_ex__(2)


def _restore(value: datetime, nanosecond: int) -> Timestamp:
    return Timestamp.from_datetime(value, nanosecond)
