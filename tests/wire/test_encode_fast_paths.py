"""The encoder's inline paths (exact built-in values) write what the general paths write,
and every other value still reaches the general path with its errors."""

from __future__ import annotations

import enum
import inspect

import msgpack
import pytest
from support.vectors import vector_schema

import zebrapack
from zebrapack import EncodeError


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return vector_schema("zp.z")


def fields_of(zp: zebrapack.Schema, data: bytes) -> dict:
    return {k: v for k, v in msgpack.unpackb(data, strict_map_key=False).items() if k != -1}


class Small(enum.IntEnum):
    TWO = 2


class Text(str):
    pass


@pytest.mark.parametrize("length", [0, 1, 7, 8, 15, 16, 17, 31, 32, 255, 256, 65535, 65536])
def test_ascii_str_fields_of_every_header_size_are_written_whole(zp: zebrapack.Schema, length: int) -> None:
    text = "abcdefghij" * (length // 10) + "x" * (length % 10)
    data = zp.encode(zp.types.Prims(S=text))
    assert fields_of(zp, data).get(0, "") == text
    assert zp.decode(data).S == text


def test_non_ascii_and_subclassed_str_fields_take_the_general_path(zp: zebrapack.Schema) -> None:
    assert zp.decode(zp.encode(zp.types.Prims(S="grüß"))).S == "grüß"
    assert zp.decode(zp.encode(zp.types.Prims(S=Text("sub")))).S == "sub"
    with pytest.raises(EncodeError, match=r"Prims\.S"):
        zp.encode(zp.types.Prims(S="\udc80"))


def test_int_subclasses_and_out_of_range_ints_take_the_general_path(zp: zebrapack.Schema) -> None:
    assert zp.decode(zp.encode(zp.types.Prims(I8=Small.TWO))).I8 == 2
    with pytest.raises(EncodeError, match=r"Prims\.I8"):
        zp.encode(zp.types.Prims(I8=128))
    with pytest.raises(EncodeError, match=r"Prims\.U8"):
        zp.encode(zp.types.Prims(U8=-1))
    with pytest.raises(EncodeError, match=r"Prims\.I64"):
        zp.encode(zp.types.Prims(I64=2**63))


def test_float_zeros_by_value_and_by_identity(zp: zebrapack.Schema) -> None:
    default = zp.types.Prims()
    assert 3 not in fields_of(zp, zp.encode(default))          # the class's 0.0
    assert 3 not in fields_of(zp, zp.encode(zp.types.Prims(F64=float("0"))))
    assert 3 in fields_of(zp, zp.encode(zp.types.Prims(F64=-0.0)))
    assert 3 in fields_of(zp, zp.encode(zp.types.Prims(F64=float("nan"))))
    assert fields_of(zp, zp.encode(zp.types.Prims(F64=1.5)))[3] == 1.5


def test_nested_struct_fields_are_checked_before_they_are_written(zp: zebrapack.Schema) -> None:
    value = zp.types.Compound(Ptr=zp.types.Inner(X=5), Nested=zp.types.Inner(X=6))
    back = zp.decode(zp.encode(value))
    assert back.Ptr.X == 5 and back.Nested.X == 6
    with pytest.raises(EncodeError, match=r"Compound\.Ptr"):
        zp.encode(zp.types.Compound(Ptr=zp.types.Prims()))
    with pytest.raises(EncodeError, match=r"Compound\.Nested"):
        zp.encode(zp.types.Compound(Nested=None))


def test_string_number_map_entries_fall_back_for_other_keys_and_values(zp: zebrapack.Schema) -> None:
    value = zp.types.Compound(SMap={"a": 1, "grüß": 2, Text("t"): Small.TWO, "big": -2**63})
    assert zp.decode(zp.encode(value)).SMap == {"a": 1, "grüß": 2, "t": 2, "big": -2**63}
    with pytest.raises(EncodeError, match=r"Compound\.SMap\['x'\]"):
        zp.encode(zp.types.Compound(SMap={"x": 2**64}))


def test_foreign_exceptions_are_wrapped_and_encode_into_cuts_back_on_a_bad_mode(zp: zebrapack.Schema) -> None:
    class Broken:
        def __index__(self) -> int:
            raise RuntimeError("boom")

    with pytest.raises(EncodeError, match=r"RuntimeError: boom") as caught:
        zp.encode(zp.types.Prims(I8=Broken()))
    assert isinstance(caught.value.__cause__, RuntimeError) and "Prims.I8" in str(caught.value)
    buffer = bytearray(b"0123456789")
    with pytest.raises(ValueError, match="mode must be"):
        zp.encode_into(zp.types.Prims(), buffer, 4, mode="other")
    assert buffer == bytearray(b"0123")


def test_encode_methods_keep_their_signatures() -> None:
    assert str(inspect.signature(zebrapack.Schema.encode)).endswith("obj, *, structnames=True, mode='zebrapack', fixext=False)")
    assert "offset=0" in str(inspect.signature(zebrapack.Schema.encode_into))


def _smallest_int(value: int, signed: bool) -> bytes:
    """The reference's smallest form of an integer: fixints, then the int or uint family."""
    if signed:
        if -32 <= value <= 127:
            return value.to_bytes(1, "big", signed=True)
        for code, size in ((0xD0, 1), (0xD1, 2), (0xD2, 4), (0xD3, 8)):
            if -(1 << (8 * size - 1)) <= value < 1 << (8 * size - 1):
                return bytes([code]) + value.to_bytes(size, "big", signed=True)
    if value <= 127:
        return bytes([value])
    for code, size in ((0xCC, 1), (0xCD, 2), (0xCE, 4), (0xCF, 8)):
        if value < 1 << (8 * size):
            return bytes([code]) + value.to_bytes(size, "big")
    raise AssertionError(value)


# Both sides of every width, and of the one- and two-digit forms CPython stores ints in
# (30-bit digits: 2**30 and 2**60), where the encoder reads an int without the C API.
SIGNED_EDGES = sorted({sign * (edge + delta) for edge in (32, 128, 2**15, 2**31, 2**30, 2**60, 2**62, 2**63)
                       for delta in (-1, 0, 1) for sign in (1, -1)
                       if -(2**63) <= sign * (edge + delta) < 2**63} | {0, 1, -1})
UNSIGNED_EDGES = sorted({edge + delta for edge in (128, 256, 2**16, 2**32, 2**30, 2**60, 2**64)
                         for delta in (-1, 0, 1) if 0 <= edge + delta < 2**64} | {0, 1})


@pytest.mark.parametrize("value", SIGNED_EDGES)
def test_int64_fields_lists_and_map_values_use_the_smallest_signed_form(zp: zebrapack.Schema, value: int) -> None:
    form = _smallest_int(value, signed=True)
    data = zp.encode(zp.types.Prims(I64=value, I=value))
    if value:
        assert form in data
    assert zp.decode(data).I64 == value
    compound = zp.types.Compound(Ints=[value, value], SMap={"k": value})
    data = zp.encode(compound)
    assert b"\x92" + form + form in data
    assert b"\xa1k" + form in data
    back = zp.decode(data)
    assert back.Ints == [value, value] and back.SMap == {"k": value}
    anys = zp.encode(zp.types.Prims(Any={"k": value}))
    assert b"\x81\xa1k" + form in anys and zp.decode(anys).Any == {"k": value}


@pytest.mark.parametrize("value", UNSIGNED_EDGES)
def test_uint64_fields_use_the_smallest_unsigned_form(zp: zebrapack.Schema, value: int) -> None:
    data = zp.encode(zp.types.Prims(U64=value))
    if value:
        assert _smallest_int(value, signed=False) in data
    assert zp.decode(data).U64 == value


def test_runs_of_zero_fields_are_left_out_and_every_set_field_is_written(zp: zebrapack.Schema) -> None:
    names = ["S", "F64", "U", "U8", "I", "I8", "I16", "I32", "I64", "B"]
    ones = {"S": "x", "F64": 1.5, "B": True}
    always = len(fields_of(zp, zp.encode(zp.types.Prims())))     # a nil interface{} is written
    for mask in range(1 << len(names)):
        kwargs = {name: ones.get(name, 1) for i, name in enumerate(names) if mask >> i & 1}
        back = zp.decode(zp.encode(zp.types.Prims(**kwargs)))
        assert {name: getattr(back, name) for name in kwargs} == kwargs
        assert len(fields_of(zp, zp.encode(zp.types.Prims(**kwargs)))) == always + len(kwargs)


def test_an_unset_field_after_a_run_of_zero_fields_is_an_error(zp: zebrapack.Schema) -> None:
    value = zp.types.Prims()
    del value.I64
    with pytest.raises(EncodeError, match=r"Prims\.I64.*not set|field I64 is not set"):
        zp.encode(value)
