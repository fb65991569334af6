"""The process's resident memory, for leak tests that look past Python's allocator
(the core's own buffers, Arrow's)."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable
from pathlib import Path

import pytest

_libc_name = ctypes.util.find_library("c")
_malloc_trim = getattr(ctypes.CDLL(_libc_name), "malloc_trim", None) if _libc_name else None


def _address_sanitizer_loaded() -> bool:
    maps = Path("/proc/self/maps")
    return maps.exists() and "libasan" in maps.read_text()


#: For tests that read leaks off the resident size: it needs /proc, and under the
#: sanitizer build AddressSanitizer's quarantine keeps freed memory resident.
needs_resident_size = pytest.mark.skipif(
    not Path("/proc/self/statm").exists() or _address_sanitizer_loaded(),
    reason="needs /proc, and no AddressSanitizer (its quarantine holds freed memory)")


def resident_bytes() -> int:
    """Resident bytes now, after a collection and (glibc) malloc_trim: freed memory the
    allocator still holds would otherwise count as growth."""
    gc.collect()
    if _malloc_trim is not None:
        _malloc_trim(0)
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def steady_growth(action: Callable[[], object], windows: int = 2) -> int:
    """The least growth of resident memory over `windows` runs of action. A leak grows in
    every run; the allocator's one-time growth (a new arena, the heap state other tests
    left) shows in one run at most."""
    growth = []
    for _ in range(windows):
        before = resident_bytes()
        action()
        growth.append(resident_bytes() - before)
    return min(growth)
