"""Records with ``interface{}`` fields, at the root and inside a struct, for the tests of
how a record's interface{} values are written (tests/wire/test_encode_interface_*.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def zid_field(n: int, default: Any = None, factory: Any = None) -> Any:
    """A dataclass field with zid ``n``."""
    if factory is not None:
        return field(default_factory=factory, metadata={"zid": n})
    return field(default=default, metadata={"zid": n})


@dataclass(slots=True)
class Inner:
    V: Any = zid_field(0)
    N: int = zid_field(1, 0)


@dataclass(slots=True)
class Rec:
    A: Any = zid_field(0)
    S: str = zid_field(1, "")
    B: Any = zid_field(2)
    In: Inner = zid_field(3, factory=Inner)
