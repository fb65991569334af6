"""The encoder's inline paths (exact built-in values) write what the general paths write,
and every other value still reaches the general path with its errors."""

from __future__ import annotations

import enum
import inspect

import msgpack
import pytest
from conftest import vector_schema

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
    assert str(inspect.signature(zebrapack.Schema.encode)).endswith("obj, *, structnames=True, mode='zebrapack')")
    assert "offset=0" in str(inspect.signature(zebrapack.Schema.encode_into))
