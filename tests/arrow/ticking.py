"""Whether the core releases the GIL during a call: another Python thread keeps ticking."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


def ticks_during(call: Callable[[], Any]) -> tuple[Any, int, float]:
    """Run ``call()`` while another thread notes the time every 0.5 ms: its result, how many
    ticks fell inside the call (a few unless the call held the GIL throughout), its seconds."""
    ticks: list[float] = []
    done = threading.Event()

    def ticker() -> None:
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        start = time.perf_counter()
        result = call()
        end = time.perf_counter()
    finally:
        done.set()
        thread.join()
    return result, sum(start < tick < end for tick in ticks), end - start
