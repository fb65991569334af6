"""The ``msgspec.Struct`` twin of each benchmark dataclass (same names, fields and defaults).

msgspec's fastest mode writes every field; ``omit_defaults=True`` (about 4%
slower to encode an ``A``) leaves out the fields at their default, as zebrapack
and the Go reference leave out zero fields. So it is set only where a record
holds zero fields (the chain's last ``Next``, the sparse wide record), and both
libraries write the same keys for every shape.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Optional

import msgspec


class A(msgspec.Struct):
    Name: str = ""
    Bday: Optional[datetime] = None
    Phone: str = ""
    Sibs: int = 0
    GPA: float = 0.0
    Friend: bool = False


class Tiny(msgspec.Struct):
    X: int = 0
    Y: int = 0
    Z: int = 0


class Ints(msgspec.Struct):
    V: list[int] = []


class Floats(msgspec.Struct):
    V: list[float] = []


class As(msgspec.Struct):
    V: list[A] = []


class Node(msgspec.Struct, omit_defaults=True):
    Val: int = 0
    Next: Optional["Node"] = None


class StrMap(msgspec.Struct):
    M: dict[str, int] = {}


class Doc(msgspec.Struct):
    Body: Any = None


# The wide record's fields, shared with its dataclass in _shapes: int, float, str, bool in turn.
WIDE_FIELDS: list[tuple[str, type]] = [(f"F{i:02d}", (int, float, str, bool)[i % 4]) for i in range(40)]

Wide = msgspec.defstruct("Wide", [(name, kind, kind()) for name, kind in WIDE_FIELDS], module=__name__)
SparseWide = msgspec.defstruct("SparseWide", [(name, kind, kind()) for name, kind in WIDE_FIELDS],
                               omit_defaults=True, module=__name__)
