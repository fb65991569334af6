"""The ``msgspec.Struct`` twin of each benchmark dataclass (same names, fields and defaults).

``omit_defaults=True`` makes msgspec leave out the zero fields, as zebrapack and
the Go reference do, so both write the same keys.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Optional

import msgspec


class A(msgspec.Struct, omit_defaults=True):
    Name: str = ""
    Bday: Optional[datetime] = None
    Phone: str = ""
    Sibs: int = 0
    GPA: float = 0.0
    Friend: bool = False


class Tiny(msgspec.Struct, omit_defaults=True):
    X: int = 0
    Y: int = 0
    Z: int = 0


class Ints(msgspec.Struct, omit_defaults=True):
    V: list[int] = []


class Floats(msgspec.Struct, omit_defaults=True):
    V: list[float] = []


class As(msgspec.Struct, omit_defaults=True):
    V: list[A] = []


class Node(msgspec.Struct, omit_defaults=True):
    Val: int = 0
    Next: Optional["Node"] = None


class StrMap(msgspec.Struct, omit_defaults=True):
    M: dict[str, int] = {}


class Doc(msgspec.Struct, omit_defaults=True):
    Body: Any = None


# The wide record's fields, shared with its dataclass in _shapes: int, float, str, bool in turn.
WIDE_FIELDS: list[tuple[str, type]] = [(f"F{i:02d}", (int, float, str, bool)[i % 4]) for i in range(40)]

Wide = msgspec.defstruct("Wide", [(name, kind, kind()) for name, kind in WIDE_FIELDS],
                         omit_defaults=True, module=__name__)
