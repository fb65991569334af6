"""Go's dynamic number types inside ``interface{}`` values: ``GoComplex64`` here; ``GoFloat32``
and ``GoUint64``, which the decoder makes in bulk, in the compiled core (``zp_gonumbers.h``:
C types without the collector's header), all three exported by ``zebrapack``.

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
