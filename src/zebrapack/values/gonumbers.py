"""Go's dynamic number types inside ``interface{}`` values: ``GoFloat32``, ``GoUint64``, ``GoComplex64``.

An ``interface{}`` value carries its Go type in the msgpack family it is
written in, and Go code type-asserts it after reading (FORMAT.md section 3):
a ``float32`` is ``0xca``, a ``float64`` ``0xcb``; a ``uint64`` the unsigned
family (``0xcc-0xcf``, or a positive fixint below 128), an ``int64`` the signed
one; a ``complex64`` ext 3, a ``complex128`` ext 4. Plain Python numbers map to
the wide signed types (``float`` -> float64, ``int`` -> int64, or uint64 beyond
it, ``complex`` -> complex128). These subclasses name the other Go types:

- the decoder returns them for ``0xca``, the uint family and ext 3 inside
  ``interface{}`` values, so that decode -> encode writes what Go wrote;
- a user puts them into an ``interface{}`` field to choose the Go type.

They are numbers: arithmetic gives plain ``float`` / ``int`` / ``complex``,
equality and hashing are the number's, they pickle. Only ``repr`` says the Go type.
"""

from __future__ import annotations

import struct
from typing import SupportsComplex, SupportsFloat, SupportsIndex

_F32 = struct.Struct(">f")
_F64_BITS = struct.Struct(">Q")
_F64 = struct.Struct(">d")
_UINT64_LIMIT = 1 << 64
#: The float64 mantissa bits a float32 NaN has no room for; the quiet bit of a float32 NaN.
_NAN_LOW_BITS = (1 << 29) - 1
_F32_QUIET_BIT_IN_F64 = 1 << 51


def _round_to_float32(value: float) -> float:
    """The nearest float32 (as a float); ValueError beyond float32's finite range.

    A NaN keeps its sign and the payload bits a float32 holds, signalling bit
    included, as the codec converts it (a hardware conversion would quieten it).
    """
    if value != value:
        bits = _F64_BITS.unpack(_F64.pack(value))[0] & ~_NAN_LOW_BITS
        if bits & ((1 << 52) - 1) == 0:
            bits |= _F32_QUIET_BIT_IN_F64
        nan: float = _F64.unpack(_F64_BITS.pack(bits))[0]
        return nan
    try:
        result: float = _F32.unpack(_F32.pack(value))[0]
    except OverflowError:
        raise ValueError(f"{value!r} overflows float32") from None
    return result


class GoFloat32(float):
    """A Go ``float32`` in an ``interface{}`` value (written as msgpack float32, ``0xca``).

    Built from any real number, rounded to the nearest float32 (as a float32
    field rounds); a finite value beyond float32's range is a ``ValueError``.
    """

    __slots__ = ()

    def __new__(cls, value: SupportsFloat | SupportsIndex | str | bytes = 0.0) -> GoFloat32:
        return super().__new__(cls, _round_to_float32(float(value)))

    def __repr__(self) -> str:
        return f"zebrapack.GoFloat32({float.__repr__(self)})"

    __str__ = float.__repr__


class GoUint64(int):
    """A Go ``uint64`` in an ``interface{}`` value (written in the smallest unsigned form,
    a positive fixint below 128, then ``0xcc-0xcf``). ``ValueError`` outside 0..2**64-1."""

    __slots__ = ()

    def __new__(cls, value: SupportsIndex | str | bytes = 0, base: SupportsIndex | None = None) -> GoUint64:
        self = super().__new__(cls, value) if base is None else super().__new__(cls, value, base)  # type: ignore[arg-type]
        if not 0 <= self < _UINT64_LIMIT:
            raise ValueError(f"{int(self)} is outside the range of uint64 (0..{_UINT64_LIMIT - 1})")
        return self

    def __repr__(self) -> str:
        return f"zebrapack.GoUint64({int.__repr__(self)})"

    __str__ = int.__repr__


class GoComplex64(complex):
    """A Go ``complex64`` in an ``interface{}`` value (written as ext 3: two float32).

    Both parts are rounded to the nearest float32; beyond float32's range is a ``ValueError``.
    """

    __slots__ = ()

    def __new__(cls, real: SupportsComplex | SupportsFloat | SupportsIndex | str = 0.0,
                imag: SupportsFloat | SupportsIndex | None = None) -> GoComplex64:
        value = complex(real) if imag is None else complex(real, imag)  # type: ignore[arg-type]
        return super().__new__(cls, _round_to_float32(value.real), _round_to_float32(value.imag))

    def __repr__(self) -> str:
        return f"zebrapack.GoComplex64({float.__repr__(self.real)}, {float.__repr__(self.imag)})"

    __str__ = complex.__repr__
