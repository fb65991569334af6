"""schema.decode(data), the call of every loop, goes straight to the decoder without
argument parsing (Codec.decode is a METH_FASTCALL method of the core's own,
_decode_fastcall); every other call goes through the def's own parsing. Both give the
same records and the same errors, and the method keeps its signature and docstring."""

from __future__ import annotations

import inspect

import pytest
from support.vectors import VECTORS, vector_schema

import zebrapack
from zebrapack import DecodeError

A_SEED = (VECTORS / "zp" / "A_seed.zpk").read_bytes()


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return vector_schema("zp.z")


def test_decode_keeps_its_signature_and_docstring() -> None:
    assert str(inspect.signature(zebrapack.Schema.decode)).endswith("data, type=None, *, strict=False)")
    assert zebrapack.Schema.decode.__doc__.startswith("Decode exactly one record from ``data``")
    assert zebrapack.Schema.decode.__name__ == "decode"


def test_one_positional_argument_and_every_other_call_agree(zp: zebrapack.Schema) -> None:
    record = zp.decode(A_SEED)
    assert record == zp.decode(A_SEED, None) == zp.decode(data=A_SEED) == zp.decode(A_SEED, strict=False)
    assert record == zp.decode(A_SEED, "A") == zp.decode(bytearray(A_SEED)) == zp.decode(memoryview(A_SEED))
    assert zebrapack.Schema.decode(zp, A_SEED) == record


@pytest.mark.parametrize("data", [A_SEED[:-1], A_SEED + b"\x00", b"\x81\x00\xc1", b""])
def test_errors_are_the_same_by_either_call(zp: zebrapack.Schema, data: bytes) -> None:
    with pytest.raises(DecodeError) as fast:
        zp.decode(data)
    with pytest.raises(DecodeError) as parsed:
        zp.decode(data, None)
    assert (str(fast.value), fast.value.path, fast.value.offset) == (
        str(parsed.value), parsed.value.path, parsed.value.offset)


def test_wrong_calls_raise_pythons_argument_errors(zp: zebrapack.Schema) -> None:
    with pytest.raises(TypeError, match=r"decode\(\) takes at least 1 positional argument \(0 given\)"):
        zp.decode()
    with pytest.raises(TypeError, match=r"decode\(\) takes at most 2 positional arguments"):
        zp.decode(A_SEED, None, False)
    with pytest.raises(TypeError, match=r"decode\(\) got an unexpected keyword argument 'nosuch'"):
        zp.decode(A_SEED, nosuch=1)
    with pytest.raises(TypeError, match="a bytes-like object is required, not 'int'"):
        zp.decode(12)
