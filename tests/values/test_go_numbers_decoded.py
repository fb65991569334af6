"""The GoUint64 and GoFloat32 an interface{} value decodes to are built by the core
without their constructors (their size word and digits, or their double, written in
place): each is the same value as the constructor's, in every way Python looks at it,
at every digit count CPython stores (30-bit digits: 0, 1, 2 and 3 of them), and is
not tracked by the cyclic GC (it holds no reference). interface{} values of them are
written back in the family they came in, in a list, a map and alone."""

from __future__ import annotations

import gc
import math
import pickle
import struct
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.forged_numbers import forged_float32, forged_uint64_negative

import zebrapack
from zebrapack import GoFloat32, GoUint64

UINT_EDGES = sorted({edge + delta for edge in (0, 1, 127, 128, 255, 256, 2**16, 2**30, 2**32, 2**60, 2**63, 2**64 - 1)
                     for delta in (-1, 0, 1) if 0 <= edge + delta < 2**64})
FLOAT32_VALUES = [0.0, -0.0, 1.0, -1.5, 3.4028234663852886e38, 1.401298464324817e-45, math.inf, -math.inf,
                  16777217.0, 0.1]


@dataclass
class P:
    V: Any = field(default=None, metadata={"zid": 0})


@pytest.fixture(scope="module")
def any_schema() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(P, package="gonumbers")


def _uint_form(value: int) -> bytes:
    """The unsigned family's smallest form above a fixint (0xcc-0xcf), as Go writes a uint64."""
    for code, size in ((0xCC, 1), (0xCD, 2), (0xCE, 4), (0xCF, 8)):
        if value < 1 << (8 * size):
            return bytes([code]) + value.to_bytes(size, "big")
    raise AssertionError(value)


def _record(body: bytes) -> bytes:
    return b"\x81\x00" + body


@pytest.mark.parametrize("value", UINT_EDGES)
def test_a_decoded_uint64_is_the_constructors_value(any_schema: zebrapack.Schema, value: int) -> None:
    got = any_schema.decode(_record(_uint_form(value)), "P").V
    made = GoUint64(value)
    assert type(got) is GoUint64
    assert got == made == value and hash(got) == hash(value) and repr(got) == repr(made)
    assert got.bit_length() == value.bit_length() and int(got) + 1 == value + 1 and -got == -value
    assert (got < value + 1) and (got >= value) and str(got) == str(value) and f"{got:x}" == f"{value:x}"
    assert got.to_bytes(8, "big") == value.to_bytes(8, "big") and bool(got) == bool(value)
    assert pickle.loads(pickle.dumps(got)) == value and type(pickle.loads(pickle.dumps(got))) is GoUint64
    assert not gc.is_tracked(got)
    assert any_schema.encode(P(V=got), structnames=False) == _record(
        bytes([value]) if value < 128 else _uint_form(value))


@pytest.mark.parametrize("value", FLOAT32_VALUES)
def test_a_decoded_float32_is_the_constructors_value(any_schema: zebrapack.Schema, value: float) -> None:
    bits = struct.pack(">f", value)
    got = any_schema.decode(_record(b"\xca" + bits), "P").V
    made = GoFloat32(value)
    assert type(got) is GoFloat32
    assert got == made and repr(got) == repr(made) and hash(got) == hash(made)
    assert math.copysign(1.0, got) == math.copysign(1.0, made) and float(got) * 2 == float(made) * 2
    assert type(pickle.loads(pickle.dumps(got))) is GoFloat32 and not gc.is_tracked(got)
    assert any_schema.encode(P(V=got), structnames=False) == _record(b"\xca" + bits)


def test_a_float32_nan_keeps_its_bits(any_schema: zebrapack.Schema) -> None:
    for bits in (b"\x7f\xc0\x00\x00", b"\xff\xa0\x00\x01"):
        got = any_schema.decode(_record(b"\xca" + bits), "P").V
        assert type(got) is GoFloat32 and got != got
        assert any_schema.encode(P(V=got), structnames=False) == _record(b"\xca" + bits)


def test_go_numbers_in_lists_and_maps_are_written_back_in_their_family(any_schema: zebrapack.Schema) -> None:
    items = [_uint_form(v) for v in UINT_EDGES if v >= 128] + [b"\xca" + struct.pack(">f", v) for v in FLOAT32_VALUES]
    listed = _record(b"\xdc" + len(items).to_bytes(2, "big") + b"".join(items))
    value = any_schema.decode(listed, "P").V
    assert [type(x) for x in value] == [GoUint64] * (len(items) - len(FLOAT32_VALUES)) + [GoFloat32] * len(FLOAT32_VALUES)
    assert any_schema.encode(P(V=value), structnames=False) == listed
    mapped = {f"k{i}": x for i, x in enumerate(value)}
    back = any_schema.decode(any_schema.encode(P(V=mapped)), "P").V
    assert list(back) == list(mapped) and [type(x) for x in back.values()] == [type(x) for x in value]
    assert list(back.values()) == value


def test_go_numbers_out_of_range_are_refused_at_their_place(any_schema: zebrapack.Schema) -> None:
    too_big = forged_float32(1e300)         # made past the constructor's check
    negative = forged_uint64_negative(5)
    for bad, words in ((too_big, "overflows float32"), (negative, "outside the range of uint64")):
        for value, path in ((bad, "P.V"), ([1, bad], "P.V[1]"), ({"k": bad}, "P.V['k']")):
            with pytest.raises(zebrapack.EncodeError, match=words) as caught:
                any_schema.encode(P(V=value))
            assert caught.value.path == path
