"""Go's dynamic types inside ``interface{}`` values (FORMAT.md section 3): numbers keep the
wire family Go wrote them in (GoFloat32, GoUint64, GoComplex64), every ext is read as Go's
reader reads it, maps are map[string]interface{}; and the writer's nil rules for
interface-typed and ``interface{}`` fields."""

from __future__ import annotations

import copy
import gc
import math
import pickle
import struct
from typing import Any

import pytest
from support.forged_numbers import forged_float32, forged_uint64_above, forged_uint64_negative
from support.golden import GOLDEN

import zebrapack
from zebrapack import DecodeError, EncodeError, Ext, GoComplex64, GoFloat32, GoUint64

MY = zebrapack.load(GOLDEN / "schemas" / "my.z")
HEADERPLUS = zebrapack.load(GOLDEN / "schemas" / "headerplus.z")
SYS_PREFIX = b"\x82\xff\xa3Sys\x00"     # {-1: "Sys", 0: <F>}


def sys_with(value_bytes: bytes) -> bytes:
    return SYS_PREFIX + value_bytes


def sys_value(value: Any) -> bytes:
    """The wire bytes of an interface{} value, as the Sys record's F."""
    data = MY.encode(MY.types.Sys(F=value))
    assert data.startswith(SYS_PREFIX)
    return data[len(SYS_PREFIX):]


# -- the value types --------------------------------------------------------------------

def test_go_numbers_are_python_numbers() -> None:
    u, f, c = GoUint64(5), GoFloat32(0.5), GoComplex64(1.5, -2)
    assert (u + 1, f * 2, c + 1) == (6, 1.0, complex(2.5, -2))
    assert (type(u + 1), type(f * 2), type(c + 1), type(-u), type(abs(f))) == (int, float, complex, int, float)
    assert u == 5 and hash(u) == hash(5) and f == 0.5 and hash(f) == hash(0.5) and hash(c) == hash(complex(1.5, -2))
    assert {5: "x"}[u] == "x"
    assert (str(u), str(f), f"{u:>3}", f"{f:.1f}") == ("5", "0.5", "  5", "0.5")


def test_go_numbers_say_what_they_are() -> None:
    assert repr(GoUint64(5)) == "zebrapack.GoUint64(5)"
    assert repr(GoFloat32(0.5)) == "zebrapack.GoFloat32(0.5)"
    assert repr(GoComplex64(1.5, -0.0)) == "zebrapack.GoComplex64(1.5, -0.0)"


@pytest.mark.parametrize("value", [GoUint64(2**64 - 1), GoFloat32(-0.0), GoFloat32(math.inf),
                                   GoComplex64(1.5, -0.0)], ids=repr)
def test_go_numbers_pickle(value: Any) -> None:
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        copy_ = pickle.loads(pickle.dumps(value, protocol))
        assert type(copy_) is type(value) and repr(copy_) == repr(value)
    assert copy.deepcopy(value) == value and type(copy.copy(value)) is type(value)


def test_go_numbers_take_what_float_and_int_take() -> None:
    assert GoFloat32("1.5") == GoFloat32(value=1.5) == 1.5 and GoFloat32() == 0.0
    assert GoUint64("ff", 16) == GoUint64(value="255") == GoUint64(255.9) == 255 and GoUint64() == 0
    assert type(GoUint64(base=None)) is GoUint64
    with pytest.raises(TypeError):
        GoUint64(base=16)
    with pytest.raises(ValueError, match="could not convert"):
        GoFloat32("x")
    with pytest.raises(ValueError, match="1e\\+39 overflows float32"):
        GoFloat32(1e39)


class Tagged(GoUint64):
    """A user's subclass (pickled: at module level)."""


class Slotted(GoFloat32):
    """A user's subclass with a slot."""

    __slots__ = ("unit",)


@pytest.mark.parametrize(("cls", "number", "attr"), [(Slotted, 1.5, "unit"), (Tagged, 3, "note")],
                         ids=["slot", "dict"])
def test_a_subclass_keeps_its_state_at_every_pickle_protocol(cls: type, number: float, attr: str) -> None:
    value = cls(number)
    setattr(value, attr, "kept")
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        copy_ = pickle.loads(pickle.dumps(value, protocol))
        assert type(copy_) is cls and copy_ == number and getattr(copy_, attr) == "kept"


def test_go_numbers_subclass_as_numbers_do() -> None:
    tagged = Tagged(7)
    tagged.tag = tagged         # a cycle through its __dict__: a subclass's instances are the collector's
    assert repr(tagged) == "zebrapack.GoUint64(7)" and tagged + 1 == 8 and gc.is_tracked(tagged)
    assert repr(Slotted(0.5)) == "zebrapack.GoFloat32(0.5)" and str(Tagged(7)) == "7"


def test_go_numbers_are_not_the_collectors() -> None:
    """The decoder makes one for each float32 / uint of an interface{} value: they hold no
    references, so they carry no collector header and are never tracked."""
    have_gc = 1 << 14
    assert not GoFloat32.__flags__ & have_gc and not GoUint64.__flags__ & have_gc
    decoded = zebrapack.load(GOLDEN / "schemas" / "my.z").decode(sys_with(b"\x92\xca\x3f\xc0\x00\x00\xcf" + b"\xff" * 8), "Sys").F
    assert [type(x) for x in decoded] == [GoFloat32, GoUint64] and not any(gc.is_tracked(x) for x in decoded)


def test_go_float32_rounds_to_float32_and_refuses_overflow() -> None:
    assert GoFloat32(0.1) == struct.unpack(">f", struct.pack(">f", 0.1))[0]
    assert math.copysign(1.0, GoFloat32(-0.0)) < 0
    with pytest.raises(ValueError, match="overflows float32"):
        GoFloat32(1e300)
    with pytest.raises(ValueError, match="overflows float32"):
        GoComplex64(1, 1e300)


def test_go_float32_keeps_a_signalling_nan_payload() -> None:
    signalling = struct.unpack(">d", struct.pack(">Q", 0x7FF0_0000_2000_0000))[0]   # float32 0x7f800001
    value = MY.decode(sys_with(b"\xca\x7f\x80\x00\x01"), strict=True).F
    assert type(value) is GoFloat32 and math.isnan(value)
    assert struct.pack(">d", value) == struct.pack(">d", signalling)
    assert sys_value(value) == b"\xca\x7f\x80\x00\x01"
    assert sys_value(GoFloat32(signalling)) == b"\xca\x7f\x80\x00\x01"


@pytest.mark.parametrize("bad", [-1, 2**64])
def test_go_uint64_refuses_values_outside_uint64(bad: int) -> None:
    with pytest.raises(ValueError, match="outside the range of uint64"):
        GoUint64(bad)


def test_go_numbers_cannot_be_built_around_their_constructors() -> None:
    with pytest.raises(TypeError, match="not safe"):
        int.__new__(GoUint64, -3)
    with pytest.raises(TypeError, match="not safe"):
        float.__new__(GoFloat32, 1e300)


def test_encode_validates_a_go_uint64_built_around_its_constructor() -> None:
    forged = forged_uint64_negative(3)
    with pytest.raises(EncodeError, match=r"Sys\.F: zebrapack\.GoUint64\(-3\) is outside the range of uint64"):
        MY.encode(MY.types.Sys(F=forged))
    forged = forged_uint64_above()
    with pytest.raises(EncodeError, match="outside the range of uint64"):
        MY.encode(MY.types.Sys(F=[forged]))


def test_encode_refuses_a_go_float32_beyond_float32() -> None:
    forged = forged_float32(1e300)
    with pytest.raises(EncodeError, match=r"Sys\.F: zebrapack\.GoFloat32\(1e\+300\) overflows float32"):
        MY.encode(MY.types.Sys(F=forged))


# -- decode -> encode keeps Go's type -------------------------------------------------------

@pytest.mark.parametrize(("wire", "go_type"), [
    (b"\xca\x3f\xc0\x00\x00", GoFloat32),
    (b"\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00", float),
    (b"\xcc\xc8", GoUint64),
    (b"\xcd\x01\x93", GoUint64),
    (b"\xce\x00\x01\x00\x00", GoUint64),
    (b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff", GoUint64),
    (b"\x05", int),
    (b"\xd1\x01\x93", int),
    (b"\xd7\x03" + struct.pack(">ff", 1.5, -2), GoComplex64),
    (b"\xd8\x04" + struct.pack(">dd", 1.5, -2), complex),
], ids=lambda item: item.hex() if isinstance(item, bytes) else item.__name__)
def test_interface_numbers_keep_their_go_type_through_decode_and_encode(wire: bytes, go_type: type) -> None:
    value = MY.decode(sys_with(wire), strict=True).F
    assert type(value) is go_type
    assert sys_value(value) == wire


@pytest.mark.parametrize(("value", "wire"), [
    (GoUint64(5), b"\x05"),               # Go's WriteUint64 writes a fixint below 128
    (GoUint64(127), b"\x7f"),
    (GoUint64(128), b"\xcc\x80"),
    (GoUint64(403), b"\xcd\x01\x93"),
    (GoUint64(2**32), b"\xcf\x00\x00\x00\x01\x00\x00\x00\x00"),
    (403, b"\xd1\x01\x93"),               # a plain int is an int64
    (2**64 - 1, b"\xcf" + b"\xff" * 8),   # beyond int64, a uint64
    (GoFloat32(1.5), b"\xca\x3f\xc0\x00\x00"),
    (1.5, b"\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00"),
    (GoComplex64(1.5, -2), b"\xd7\x03" + struct.pack(">ff", 1.5, -2)),
    (complex(1.5, -2), b"\xd8\x04" + struct.pack(">dd", 1.5, -2)),
], ids=repr)
def test_a_user_chooses_the_go_type_of_an_interface_number(value: Any, wire: bytes) -> None:
    assert sys_value(value) == wire


def test_go_types_are_kept_inside_nested_interface_values() -> None:
    value = [GoUint64(200), {"k": [GoFloat32(2.5), GoComplex64(1j)]}, 3]
    decoded = MY.decode(MY.encode(MY.types.Sys(F=value)), strict=True).F
    assert [type(decoded[0]), type(decoded[1]["k"][0]), type(decoded[1]["k"][1]), type(decoded[2])] == \
        [GoUint64, GoFloat32, GoComplex64, int]


def test_a_small_go_uint64_reads_back_as_an_int_as_in_go() -> None:
    # Go writes a uint64 below 128 as a positive fixint and its reader gives int64 for
    # every fixint: the reference loses the type there too, and so do we, the same way.
    assert sys_value(GoUint64(127)) == b"\x7f"
    assert type(MY.decode(sys_with(b"\x7f"), strict=True).F) is int


def test_go_number_subclasses_are_plain_numbers_in_typed_fields() -> None:
    schema = zebrapack.load(GOLDEN / "schemas" / "deep.z")
    leaf = schema.types["Leaf"](Val=GoUint64(7))
    assert schema.encode(leaf) == schema.encode(schema.types["Leaf"](Val=7))
    nested = schema.types["Deep"](F32s=[GoFloat32(1.5)], Cplx=[GoComplex64(1, 2)])
    assert schema.encode(nested) == schema.encode(schema.types["Deep"](F32s=[1.5], Cplx=[complex(1, 2)]))


# -- exts inside interface{}, as Go's reader takes them ---------------------------------------

def test_spec_timestamp_in_an_interface_is_a_raw_extension_written_back_as_go_writes_exts() -> None:
    # Go writes a raw extension with the ext8 header of its MarshalMsg (FORMAT.md section 7);
    # fixext=True writes the fixext header of its EncodeMsg, so the bytes as they came
    for wire in (b"\xd6\xff" + struct.pack(">I", 1700000000),
                 b"\xd7\xff" + struct.pack(">Q", (500000 << 34) | 1700000000),
                 b"\xc7\x0c\xff" + struct.pack(">Iq", 7, -1)):
        for strict in (False, True):
            value = MY.decode(sys_with(wire), strict=strict).F
            assert value == Ext(-1, wire[-len(value.data):])
            assert sys_value(value) == bytes([0xc7, len(value.data), 0xff]) + value.data
            assert MY.encode(MY.types.Sys(F=value), fixext=True) == sys_with(wire)


@pytest.mark.parametrize("wire", [
    b"\xd6\x03" + bytes(4),               # complex64 is fixext8 only
    b"\xc7\x08\x03" + bytes(8),
    b"\xd7\x04" + bytes(8),               # complex128 is fixext16 only
    b"\xc7\x10\x04" + bytes(16),
    b"\xd7\x05" + bytes(8),               # time.Time is ext8 of 12 bytes only
    b"\xc8\x00\x0c\x05" + bytes(12),
    b"\xd8\x05" + bytes(16),
], ids=lambda wire: wire.hex())
def test_strict_rejects_ext_3_4_5_of_a_shape_go_rejects(wire: bytes) -> None:
    with pytest.raises(DecodeError, match=r"Sys\.F: ext [345] of \d+ bytes .*\(strict\)"):
        MY.decode(sys_with(wire), strict=True)
    assert isinstance(MY.decode(sys_with(wire)).F, Ext)     # lenient reading keeps the bytes


@pytest.mark.parametrize(("code", "size"), [(3, 4), (4, 8), (5, 8), (5, 16)])
def test_encode_refuses_an_ext_go_would_misread_inside_an_interface(code: int, size: int) -> None:
    with pytest.raises(EncodeError, match=rf"Sys\.F\[0\]: ext {code} of {size} bytes inside interface"):
        MY.encode(MY.types.Sys(F=[Ext(code, bytes(size))]))


def test_ext_3_4_5_of_the_right_size_are_go_values() -> None:
    assert sys_value(Ext(3, bytes(8))) == b"\xd7\x03" + bytes(8)
    assert type(MY.decode(sys_with(b"\xd7\x03" + bytes(8)), strict=True).F) is GoComplex64
    assert type(MY.decode(sys_with(b"\xd8\x04" + bytes(16)), strict=True).F) is complex


# -- maps inside interface{}: map[string]interface{} ---------------------------------------------

@pytest.mark.parametrize("key", [1, 1.5, True, None, (1, 2), GoUint64(1)], ids=repr)
def test_encode_refuses_an_interface_map_key_go_cannot_read(key: Any) -> None:
    with pytest.raises(EncodeError, match=r"Sys\.F\['outer'\]\[.*\]: a map inside interface\{\} is a "
                                          r"map\[string\]interface\{\} to Go: its keys must be str"):
        MY.encode(MY.types.Sys(F={"outer": {key: 1}}))


def test_interface_map_keys_may_be_str_or_bytes() -> None:
    data = MY.encode(MY.types.Sys(F={"s": 1, b"b": 2}))
    assert MY.decode(data, strict=True).F == {"s": 1, b"b": 2}


def test_strict_rejects_an_interface_map_with_integer_keys() -> None:
    data = sys_with(b"\x81\x01\xa1x")
    assert MY.decode(data).F == {1: "x"}
    with pytest.raises(DecodeError, match=r"map\[string\]interface\{\} to Go: its keys are str, "
                                          r"found positive fixint \(strict\)"):
        MY.decode(data, strict=True)


# -- nil interface-typed and interface{} fields --------------------------------------------------

def test_nil_interface_typed_field_is_left_out() -> None:
    plus = HEADERPLUS.types["Plus"](N=3)
    assert HEADERPLUS.encode(plus) == b"\x82\xff\xa4Plus\x01\x03"
    assert HEADERPLUS.decode(HEADERPLUS.encode(plus)).Pet is None


def test_nil_interface_typed_field_is_written_in_msgp_mode_where_nothing_is_omitted() -> None:
    data = HEADERPLUS.encode(HEADERPLUS.types["Plus"](), mode="msgp")
    assert b"\xa3Pet\xc0" in data


def test_nil_elements_of_a_slice_of_interfaces_are_written() -> None:
    plus = HEADERPLUS.types["Plus"](Flock=[None, HEADERPLUS.types["Dog"](Nm="rex")])
    assert HEADERPLUS.decode(HEADERPLUS.encode(plus), strict=True).Flock == plus.Flock
    assert b"\x05\x92\xc0" in HEADERPLUS.encode(plus)


def test_nil_plain_interface_field_is_written_as_nil() -> None:
    assert MY.encode(MY.types.Sys()) == sys_with(b"\xc0")


@pytest.mark.parametrize("strict", [False, True])
def test_a_nil_map_key_inside_interface_reads_as_the_empty_string_as_go_reads_it(strict: bool) -> None:
    # msgp's ReadMapKeyZC gives "" for a nil key; Go then writes it back as a str.
    assert MY.decode(sys_with(b"\x81\xc0\x01"), strict=strict).F == {"": 1}
    assert sys_value({"": 1}) == b"\x81\xa0\x01"
