"""Go number widths for dataclass fields: ``Annotated`` aliases that give a Python
``int``, ``float`` or ``complex`` field the Go type it has on the wire, for
``zebrapack.schema_from_dataclasses``::

    from zebrapack.gotypes import int32, uint8

    @dataclass
    class Reading:
        level: int32 = field(default=0, metadata={"zid": 0})

A plain ``int`` is Go ``int64``, ``float`` is ``float64`` and ``complex`` is
``complex128``. The aliases are also importable from ``zebrapack`` itself
(``zebrapack.int32``), as before this module existed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from .schema.model import Kind

__all__ = ["GoKind", "byte", "complex64", "complex128", "float32", "float64", "int8", "int16", "int32",
           "int64", "uint", "uint8", "uint16", "uint32", "uint64"]


@dataclass(frozen=True)
class GoKind:
    """The Go type of a Python number, for ``Annotated[int, GoKind(Kind.INT32)]``
    (the aliases of this module are these)."""

    kind: Kind


int8 = Annotated[int, GoKind(Kind.INT8)]
int16 = Annotated[int, GoKind(Kind.INT16)]
int32 = Annotated[int, GoKind(Kind.INT32)]
int64 = Annotated[int, GoKind(Kind.INT64)]
uint = Annotated[int, GoKind(Kind.UINT)]
uint8 = Annotated[int, GoKind(Kind.UINT8)]
uint16 = Annotated[int, GoKind(Kind.UINT16)]
uint32 = Annotated[int, GoKind(Kind.UINT32)]
uint64 = Annotated[int, GoKind(Kind.UINT64)]
byte = Annotated[int, GoKind(Kind.BYTE)]
float32 = Annotated[float, GoKind(Kind.FLOAT32)]
float64 = Annotated[float, GoKind(Kind.FLOAT64)]
complex64 = Annotated[complex, GoKind(Kind.COMPLEX64)]
complex128 = Annotated[complex, GoKind(Kind.COMPLEX128)]
