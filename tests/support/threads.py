"""Running a test's action in a thread of its own, with a small C stack: the nesting
limits hold there as in the main thread (tests/limits/test_limits_depth.py,
tests/arrow/test_read_nesting.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

#: A thread stack smaller than any platform's default (8 MiB on Linux, 512 KiB on macOS).
SMALL_STACK = 256 * 1024


def in_thread(action: Callable[[], Any], stack_size: int = SMALL_STACK) -> Any:
    """action() run in a new thread with the given stack; its result, or its exception raised here."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, action()))
        except BaseException as exc:  # noqa: BLE001 - carried to the calling thread
            outcome.append((False, exc))

    previous = threading.stack_size(stack_size)
    try:
        thread = threading.Thread(target=run)
        thread.start()
    finally:
        threading.stack_size(previous)
    thread.join()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value
