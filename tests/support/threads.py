"""Running a test's action in a thread of its own, with a small C stack: the nesting
limits hold there as in the main thread (tests/limits/test_limits_depth.py,
tests/arrow/test_read_nesting.py)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from typing import Any

#: A thread stack smaller than any platform's default (8 MiB on Linux, 512 KiB on macOS).
SMALL_STACK = 256 * 1024


def in_thread(action: Callable[[], Any], stack_size: int = SMALL_STACK) -> Any:
    """action() run in a new thread with the given stack; its result, or its exception raised here.

    The garbage collector does not run in that thread: CPython 3.13 frees a deeply nested
    garbage object (a chain of 100,000 records or lists, a long traceback) by recursion,
    which overflows a 256 KiB stack whoever made the garbage. What earlier tests left is
    collected here first, on this thread's stack, and no reference cycle carries the
    outcome (and the deep values its traceback holds) past this call."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, action()))
        except BaseException as exc:  # noqa: BLE001 - carried to the calling thread
            outcome.append((False, exc))

    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    previous = threading.stack_size(stack_size)
    try:
        thread = threading.Thread(target=run)
        thread.start()
    finally:
        threading.stack_size(previous)
    try:
        thread.join()
    finally:
        if collecting:
            gc.enable()
    ok, value = outcome.pop()
    if not ok:
        try:
            raise value
        finally:
            del value       # the traceback holds this frame: no cycle through its locals
    return value
