"""Go number values that no constructor makes, to pin the encoder's own range checks.

``GoFloat32`` and ``GoUint64`` are C types (cython/zp_gonumbers.h) whose constructors
refuse values outside float32 / uint64, and ``float.__new__`` / ``int.__new__`` refuse to
make them. These write the value into one made in range: CPython's 64-bit layout, a
float's value after the object header (16 bytes), an int's size word there too (3.11:
the signed digit count; 3.12 on: the digit count shifted by 3, the sign in the low bits:
2 for negative) and its 30-bit digits after it.
"""

from __future__ import annotations

import ctypes
import sys

from zebrapack import GoFloat32, GoUint64

_HEADER = 16


def forged_float32(value: float) -> GoFloat32:
    made = GoFloat32(0.0)
    ctypes.c_double.from_address(id(made) + _HEADER).value = value
    return made


def forged_uint64_negative(magnitude: int) -> GoUint64:
    """-magnitude, for 0 < magnitude < 2**30 (one digit)."""
    assert 0 < magnitude < 1 << 30
    made = GoUint64(magnitude)
    if sys.version_info >= (3, 12):
        ctypes.c_size_t.from_address(id(made) + _HEADER).value = (1 << 3) | 2
    else:
        ctypes.c_ssize_t.from_address(id(made) + _HEADER).value = -1
    assert made == -magnitude
    return made


def forged_uint64_above() -> GoUint64:
    """2**64, in the three digits 2**64 - 1 takes."""
    made = GoUint64(2**64 - 1)
    digits = (ctypes.c_uint32 * 3).from_address(id(made) + _HEADER + 8)
    digits[0], digits[1], digits[2] = 0, 0, 16
    assert made == 2**64
    return made
