"""``zebrapack.Record`` and ``zebrapack.FrozenRecord``: the bases a user's slots
dataclass derives from so that the decoder leaves its records that hold no
containers off the garbage collector's lists, as it does for the classes it
generates (and msgspec for its Structs): ``decode_all`` of many records then costs
about the same with the collector on as with it off.

``Record`` tracks an instance again before a container is stored in it (its C
base's ``__setattr__``, cython/_record.pxi); ``FrozenRecord`` is for frozen
dataclasses, which refuse assignment. A class that derives from either but could
not keep the guarantee is refused: here when it is defined, where that can be seen
(``@dataclass(slots=True)`` makes the class a second time, with its options), and
by ``check_record_class`` when a schema is loaded with it. The classes the decoder
leaves tracked all the same (``__post_init__``, a ``__setattr__`` of their own,
fields beyond the schema's, ``preserve_unknown``) and the ways around the tracking:
docs/performance-log.md, "Untracked records".
"""

from __future__ import annotations

from typing import Any

from zebrapack._core import FrozenRecordBase, RecordBase


class Record(RecordBase):
    """Derive a ``@dataclass(slots=True)`` from it to have its decoded records that
    hold no containers left untracked by the garbage collector; assigning a
    container to a field tracks the record again first. For a frozen dataclass,
    use ``FrozenRecord``."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _refuse_wrong_base(cls)


class FrozenRecord(FrozenRecordBase):
    """``Record`` for a ``@dataclass(slots=True, frozen=True)``: its instances refuse
    assignment, so the base needs no ``__setattr__`` (a frozen dataclass sets its
    fields with ``object.__setattr__``, which Python 3.11 and 3.12 refuse past
    ``Record``'s)."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _refuse_wrong_base(cls)


def _wrong_base(cls: type) -> str | None:
    """Why cls cannot derive from the base it derives from, as far as its definition says."""
    if issubclass(cls, Record) and issubclass(cls, FrozenRecord):
        return "derives from both zebrapack.Record and zebrapack.FrozenRecord"
    params = cls.__dict__.get("__dataclass_params__")   # its own: set by @dataclass on this class
    frozen = params is not None and params.frozen
    if issubclass(cls, Record) and frozen:
        return ("is a frozen dataclass: derive it from zebrapack.FrozenRecord (a frozen dataclass sets its "
                "fields with object.__setattr__, which Python 3.11 and 3.12 refuse past Record's __setattr__)")
    if issubclass(cls, FrozenRecord) and params is not None and not frozen:
        return "is not a frozen dataclass: derive it from zebrapack.Record"
    return None


def _refuse_wrong_base(cls: type) -> None:
    reason = _wrong_base(cls)
    if reason is not None:
        raise TypeError(f"{cls.__qualname__} {reason}")


def check_record_class(cls: type) -> str | None:
    """Why cls, a subclass of ``Record`` or ``FrozenRecord``, cannot be one: its instances
    have a ``__dict__`` (which could hold a container unseen), or its definition is
    refused (``_wrong_base``). None when it can."""
    if cls.__dictoffset__ != 0:
        base = "FrozenRecord" if issubclass(cls, FrozenRecord) else "Record"
        return (f"derives from zebrapack.{base} but its instances have a __dict__, which could hold a "
                "container unseen: make it a @dataclass(slots=True), and give every class it derives "
                "from __slots__")
    return _wrong_base(cls)
