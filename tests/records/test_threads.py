"""One Schema shared by many threads: decode and encode state lives in each call,
so concurrent calls give exactly what the same calls give one at a time."""

from __future__ import annotations

import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from support.vectors import MANIFEST, VECTORS, vector_bytes
from support.decode_failures import FAILURES

import zebrapack
from zebrapack import DecodeError

THREADS = 8
ROUNDS = 100
INPUTS = [vector_bytes(case) for case in MANIFEST
          if case["schema"] == "zp.z" and "count" not in case and len(vector_bytes(case)) < 4096]
INPUTS += list(FAILURES.values())


def outcome(schema: zebrapack.Schema, data: bytes, buffer: bytearray) -> tuple[Any, ...]:
    """What decoding data and encoding the result give, as comparable values."""
    try:
        value = schema.decode(data)
    except DecodeError as error:
        return ("error", error.path, error.offset, error.reason)
    encoded = schema.encode(value)
    del buffer[:]
    schema.encode_into(value, buffer)
    return ("ok", encoded, bytes(buffer), repr(value))


@contextmanager
def frequent_thread_switches() -> Iterator[None]:
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)     # Compound.Old, from any thread
            yield
    finally:
        sys.setswitchinterval(interval)


def test_one_schema_shared_by_8_threads_decodes_and_encodes_as_one_thread_does() -> None:
    schema = zebrapack.load(VECTORS / "schemas" / "zp.z")
    with frequent_thread_switches():
        expected = [outcome(schema, data, bytearray()) for data in INPUTS]
        start = threading.Barrier(THREADS)
        mismatches: list[tuple[int, int]] = []
        crashes: list[BaseException] = []

        def work(index: int) -> None:
            buffer = bytearray()
            start.wait()
            try:
                for round_number in range(ROUNDS):
                    for position in range(len(INPUTS)):
                        which = (position + index + round_number) % len(INPUTS)   # threads out of step
                        if outcome(schema, INPUTS[which], buffer) != expected[which]:
                            mismatches.append((index, which))
            except BaseException as exc:  # noqa: BLE001 - reported by the main thread
                crashes.append(exc)

        threads = [threading.Thread(target=work, args=(index,)) for index in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not crashes
    assert not mismatches
