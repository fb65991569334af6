"""schema.decode(data), the call of every loop, goes straight to the decoder without
argument parsing (Codec.decode is a METH_FASTCALL method of the core's own,
_decode_fastcall), and so do decode(data, type) and the keywords type= and strict=
(known_keywords); every other call goes through the def's own parsing. All give the
same records and the same errors, and the method keeps its signature and docstring.
Codec.encode's keywords likewise (_encode_fastcall)."""

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


class Truthy:
    """A strict= value that is not a bool: its truth is asked once, as the def asks it."""

    def __init__(self, value: bool) -> None:
        self.value, self.asked = value, 0

    def __bool__(self) -> bool:
        self.asked += 1
        return self.value


class NoTruth:
    def __bool__(self) -> bool:
        raise RuntimeError("no truth")


def test_type_and_strict_by_position_or_keyword_agree(zp: zebrapack.Schema) -> None:
    record = zp.decode(A_SEED)
    cls = type(record)
    assert record == zp.decode(A_SEED, cls) == zp.decode(A_SEED, type=cls) == zp.decode(A_SEED, type="A")
    assert record == zp.decode(A_SEED, "A", strict=True) == zp.decode(A_SEED, strict=True, type=None)
    assert record == zp.decode(A_SEED, **{"type": cls, "strict": 1})
    # a keyword name made at run time is not the interned one: found by its value
    assert record == zp.decode(A_SEED, **{"".join(["ty", "pe"]): cls})
    truthy = Truthy(True)
    assert zp.decode(A_SEED, strict=truthy) == record and truthy.asked == 1


def test_typed_and_strict_calls_keep_their_errors(zp: zebrapack.Schema) -> None:
    with pytest.raises(ValueError, match="'Nope' is not a struct of this schema"):
        zp.decode(A_SEED, "Nope")
    with pytest.raises(ValueError, match="is not a struct of this schema"):
        zp.decode(A_SEED, type=int)
    with pytest.raises(RuntimeError, match="no truth"):
        zp.decode(A_SEED, strict=NoTruth())
    with pytest.raises(TypeError, match=r"decode\(\) got multiple values for (keyword )?argument 'type'"):
        zp.decode(A_SEED, "A", type="A")
    with pytest.raises(TypeError, match=r"decode\(\) got an unexpected keyword argument 'nosuch'"):
        zp.decode(A_SEED, type="A", nosuch=1)
    with pytest.raises(TypeError, match=r"decode\(\) takes at most 2 positional arguments"):
        zp.decode(A_SEED, "A", False, strict=True)
    # strict refuses what Go refuses (a uint form in an int64 field), given either way
    lenient = zp.encode(zp.types.Prims(I64=200)).replace(b"\xd1\x00\xc8", b"\xcc\xc8")
    assert zp.decode(lenient).I64 == zp.decode(lenient, "Prims", strict=False).I64 == 200
    for call in (lambda: zp.decode(lenient, strict=True), lambda: zp.decode(lenient, "Prims", strict=True),
                 lambda: zp.decode(lenient, strict=Truthy(True), type=zp.types.Prims)):
        with pytest.raises(DecodeError, match="Prims.I64"):
            call()


def test_encode_keywords_by_the_fast_call_and_the_def_agree(zp: zebrapack.Schema) -> None:
    record = zp.decode(A_SEED)
    encode = zebrapack.Schema.encode
    for keywords in ({}, {"structnames": False}, {"mode": "msgp"}, {"fixext": True},
                     {"fixext": 1, "mode": "zebrapack", "structnames": 0}, {"mode": "msgp", "structnames": False}):
        assert zp.encode(record, **keywords) == encode(zp, record, **keywords)
        assert zp.decode(zp.encode(record, **keywords), "A") == record
    assert zp.encode(record, structnames=False) != zp.encode(record)
    truthy = Truthy(False)
    assert zp.encode(record, structnames=truthy) == zp.encode(record, structnames=False) and truthy.asked == 1
    with pytest.raises(ValueError, match="mode must be 'zebrapack' or 'msgp', not 'other'"):
        zp.encode(record, mode="other")
    with pytest.raises(TypeError, match="mode"):
        zp.encode(record, mode=b"msgp")
    with pytest.raises(ValueError, match="mode must be 'zebrapack' or 'msgp', not None"):
        zp.encode(record, mode=None)
    with pytest.raises(RuntimeError, match="no truth"):
        zp.encode(record, fixext=NoTruth())
    with pytest.raises(TypeError, match=r"encode\(\) got an unexpected keyword argument 'strict'"):
        zp.encode(record, strict=True)
    with pytest.raises(TypeError, match=r"encode\(\) takes exactly 1 positional argument"):
        zp.encode(record, True)
