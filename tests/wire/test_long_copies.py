"""Long str and bytes payloads (16 KiB to 4 MiB) are copied by the core's own loop
(zp_copy in zp_wire.h: aligned stores, where the machine has AVX2) or by memcpy, as
measured at import, in encoding and in decoding: by either way every byte lands in its
place whatever the alignment of the source and of the destination, at the loop's limits
and one byte either side of them, and the wire is msgpack's own. ZEBRAPACK_LONG_COPY
fixes the way, and a wrong value stops the import with the values it takes."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgpack
import pytest

import zebrapack
from zebrapack import _core

LONG_MIN = 16 << 10
LONG_MAX = 4 << 20


@dataclass(slots=True)
class Payloads:
    Pad: str = field(default="", metadata={"zid": 0})
    B: bytes = field(default=b"", metadata={"zid": 1})
    S: str = field(default="", metadata={"zid": 2})
    Any: Any = field(default=None, metadata={"zid": 3})


def has_loop() -> bool:
    before = _core._long_copy_mode()
    try:
        _core._set_long_copy_mode("loop")
    except ValueError:
        return False
    _core._set_long_copy_mode(before)
    return True


COPY_MODES = ["memcpy", pytest.param("loop", marks=pytest.mark.skipif(not has_loop(), reason="no AVX2 here"))]


@pytest.fixture(scope="module", params=COPY_MODES)
def schema(request: pytest.FixtureRequest) -> Iterator[zebrapack.Schema]:
    before = _core._long_copy_mode()
    _core._set_long_copy_mode(request.param)
    try:
        yield zebrapack.schema_from_dataclasses(Payloads, package="copies")
    finally:
        _core._set_long_copy_mode(before)


def msgpack_map(data: bytes) -> dict[int, Any]:
    """The record as msgpack-python reads it (its struct name under zid -1)."""
    return msgpack.unpackb(data, strict_map_key=False, raw=False)  # type: ignore[no-any-return]


def payload(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


@pytest.mark.parametrize("n", [LONG_MIN - 1, LONG_MIN, LONG_MIN + 1, 65536 + 13, 200_003])
@pytest.mark.parametrize("pad", [0, 1, 5, 31, 63])
def test_long_values_keep_every_byte_at_any_alignment(schema: zebrapack.Schema, n: int, pad: int) -> None:
    blob = payload(n, n + pad)
    text = bytes(b & 0x7F or 0x41 for b in payload(n, pad)).decode("ascii")
    value = Payloads(Pad="p" * pad, B=blob, S=text, Any=blob[::-1])
    data = schema.encode(value)
    pad_entry = {0: value.Pad} if pad else {}        # an empty str is left out
    assert msgpack_map(data) == {-1: "Payloads", **pad_entry, 1: blob, 2: text, 3: blob[::-1]}
    assert schema.decode(data, Payloads) == value


@pytest.mark.parametrize("n", [LONG_MAX - 1, LONG_MAX, LONG_MAX + 1])
def test_values_at_the_upper_limit_keep_every_byte(schema: zebrapack.Schema, n: int) -> None:
    blob = payload(n, 7)
    text = ("é" * (n // 2)) + ("z" * (n % 2))        # n bytes of UTF-8, not ASCII
    value = Payloads(Pad="x", B=blob, S=text, Any=blob)
    data = schema.encode(value)
    assert msgpack_map(data) == {-1: "Payloads", 0: "x", 1: blob, 2: text, 3: blob}
    assert schema.decode(data, Payloads) == value


def test_a_long_value_in_a_buffer_read_again_at_an_odd_offset(schema: zebrapack.Schema) -> None:
    blob = payload(LONG_MIN * 3 + 5, 11)
    data = schema.encode(Payloads(B=blob))
    for shift in (1, 3, 17):
        shifted = memoryview(b"\x00" * shift + data)[shift:]
        assert schema.decode(shifted, Payloads).B == blob


def import_with(value: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ZEBRAPACK_LONG_COPY": value}
    code = "from zebrapack import _core; print(_core._long_copy_mode())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_the_environment_fixes_the_way_long_payloads_are_copied() -> None:
    done = import_with("memcpy")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "memcpy"
    if has_loop():
        done = import_with("loop")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "loop"


def test_a_wrong_way_in_the_environment_stops_the_import() -> None:
    done = import_with("rep-movsb")
    assert done.returncode != 0
    assert "ValueError: long copies are made by 'loop' or 'memcpy', not 'rep-movsb'" in done.stderr


def test_setting_an_unknown_way_is_refused() -> None:
    before = _core._long_copy_mode()
    with pytest.raises(ValueError, match="'loop' or 'memcpy', not 'fast'"):
        _core._set_long_copy_mode("fast")
    assert _core._long_copy_mode() == before
