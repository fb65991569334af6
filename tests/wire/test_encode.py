"""schema.encode: the bytes the reference writes, and every value the Go reader would reject."""

from __future__ import annotations

import dataclasses
import math
import struct
import warnings
from datetime import datetime, timedelta, timezone
from typing import Any

import msgpack
import pytest
from support.vectors import VECTORS, vector_schema

import zebrapack
from zebrapack import EncodeError

UTC = timezone.utc


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return vector_schema("zp.z")


def prims_bytes(zp: zebrapack.Schema, **fields: Any) -> bytes:
    """The entries of an encoded Prims after the -1 name, without the nil Any
    (an interface{} field is never empty: Go writes nil, `13 c0`)."""
    data = zp.encode(zp.types.Prims(**fields))
    assert data[1:8] == b"\xff\xa5Prims" and data.endswith(b"\x13\xc0")
    return data[8:-2]


# -- the reference's choices -------------------------------------------------------

@pytest.mark.parametrize(("field", "value", "wire"), [
    ("I64", 127, "107f"), ("I64", 128, "10d10080"), ("I64", -32, "10e0"), ("I64", -33, "10d0df"),
    ("I64", 200, "10d100c8"), ("I64", -2**63, "10d38000000000000000"),
    ("I8", -128, "0dd080"), ("I16", 32767, "0ed17fff"), ("I32", 65536, "0fd200010000"),
    ("U64", 128, "0acc80"), ("U64", 2**64 - 1, "0acfffffffffffffffff"), ("U16", 256, "08cd0100"),
    ("U32", 2**32 - 1, "09ceffffffff"), ("By", 255, "0bccff"), ("U", 2**32, "06cf0000000100000000"),
])
def test_integers_use_the_smallest_form_of_the_declared_family(
        zp: zebrapack.Schema, field: str, value: int, wire: str) -> None:
    assert prims_bytes(zp, **{field: value}).hex() == wire


def test_float32_is_written_as_float32_and_float64_as_float64(zp: zebrapack.Schema) -> None:
    assert prims_bytes(zp, F32=0.5) == b"\x02\xca" + struct.pack(">f", 0.5)
    assert prims_bytes(zp, F64=0.5) == b"\x03\xcb" + struct.pack(">d", 0.5)


def test_an_int_is_accepted_for_a_float_and_written_as_a_float(zp: zebrapack.Schema) -> None:
    assert prims_bytes(zp, F64=3) == b"\x03\xcb" + struct.pack(">d", 3.0)
    assert prims_bytes(zp, F32=-2) == b"\x02\xca" + struct.pack(">f", -2.0)


def test_negative_zero_is_written_and_positive_zero_is_not(zp: zebrapack.Schema) -> None:
    assert prims_bytes(zp, F64=-0.0) == b"\x03\xcb" + struct.pack(">d", -0.0)
    assert prims_bytes(zp, F64=0.0) == b""
    assert math.copysign(1, zp.decode(zp.encode(zp.types.Prims(F32=-0.0))).F32) == -1


def test_nan_payloads_are_written_bit_for_bit(zp: zebrapack.Schema) -> None:
    payload_nan = struct.unpack(">d", bytes.fromhex("7ff8000000000001"))[0]
    assert prims_bytes(zp, F64=payload_nan) == bytes.fromhex("03cb7ff8000000000001")


def test_complex_and_time_use_the_reference_ext_types(zp: zebrapack.Schema) -> None:
    assert prims_bytes(zp, C64=1 + 2j) == b"\x04\xd7\x03" + struct.pack(">ff", 1, 2)
    assert prims_bytes(zp, C128=1 + 2j) == b"\x05\xd8\x04" + struct.pack(">dd", 1, 2)
    moment = zebrapack.Timestamp(1969, 7, 20, 20, 17, 40, 123456, UTC, nanosecond=789)
    assert prims_bytes(zp, T=moment) == b"\x12\xc7\x0c\x05" + struct.pack(">qI", -14182940, 123456789)


def test_aware_datetimes_in_any_zone_are_written_in_utc(zp: zebrapack.Schema) -> None:
    paris = timezone(timedelta(hours=1, microseconds=250))
    local = datetime(2020, 1, 1, 1, 0, 0, 100, tzinfo=paris)
    assert zp.decode(zp.encode(zp.types.A(Bday=local))).Bday == local
    assert zp.decode(zp.encode(zp.types.A(Bday=local))).Bday.tzinfo is UTC


def test_zero_values_are_left_out_but_arrays_nested_structs_and_interfaces_are_kept(zp: zebrapack.Schema) -> None:
    assert zp.encode(zp.types.A()) == b"\x81\xff\xa1A"
    assert zp.encode(zp.types.Compound()) == (VECTORS / "zp" / "Compound_zero.zpk").read_bytes()


def test_go_zero_time_is_left_out_like_none(zp: zebrapack.Schema) -> None:
    assert zp.encode(zp.types.A(Bday=datetime(1, 1, 1, tzinfo=UTC))) == b"\x81\xff\xa1A"


def test_pointer_to_a_zero_value_is_written(zp: zebrapack.Schema) -> None:
    assert zp.encode(zp.types.Compound(PInt=0)).endswith(b"\x0f\x00")


def test_structnames_false_leaves_out_every_name(zp: zebrapack.Schema) -> None:
    value = zp.types.Compound(Nested=zp.types.Inner(X=3), Ptr=zp.types.Inner(Y="p"))
    data = zp.encode(value, structnames=False)
    assert b"Inner" not in data and b"Compound" not in data
    assert zp.decode(data, type="Compound") == value


def test_msgp_mode_writes_every_field_but_zero_omitempty_ones() -> None:
    mp = vector_schema("mp.z")
    assert mp.encode(mp.types.A(), mode="msgp") == (VECTORS / "mp" / "A_zero.zpk").read_bytes()
    data = mp.encode(mp.types.A(Phone="1", Sibs=2), mode="msgp")
    keys = msgpack.unpackb(data, ext_hook=lambda code, raw: code)
    assert list(keys) == ["name", "Bday", "phone", "Sibs", "GPA", "Friend"]
    assert (keys["phone"], keys["Sibs"]) == ("1", 2)


def test_msgp_mode_writes_none_time_as_go_zero_instant() -> None:
    mp = vector_schema("mp.z")
    data = mp.encode(mp.types.A(), mode="msgp")
    assert b"\xa4Bday\xc7\x0c\x05" + struct.pack(">qI", -62135596800, 0) in data
    assert mp.decode(data, type="A").Bday is None


def test_encode_refuses_an_object_that_is_not_a_schema_struct(zp: zebrapack.Schema) -> None:
    with pytest.raises(EncodeError, match="dict is not a struct type of this schema"):
        zp.encode({"Name": "x"})


def test_encode_refuses_an_unknown_mode(zp: zebrapack.Schema) -> None:
    with pytest.raises(ValueError, match="mode must be 'zebrapack' or 'msgp'"):
        zp.encode(zp.types.A(), mode="json")


def test_subclass_instances_encode_as_their_schema_struct(zp: zebrapack.Schema) -> None:
    Sub = type("Sub", (zp.types.Inner,), {"__slots__": ()})
    assert zp.encode(Sub(X=1)) == zp.encode(zp.types.Inner(X=1))


# -- strict typing: one test per rule ---------------------------------------------------

def refused(zp: zebrapack.Schema, obj: object, path: str, *fragments: str) -> EncodeError:
    with pytest.raises(EncodeError) as caught:
        zp.encode(obj)
    error = caught.value
    assert error.path == path, str(error)
    for fragment in fragments:
        assert fragment in str(error), str(error)
    return error


@pytest.mark.parametrize(("field", "value", "go"), [
    ("I8", 128, "int8"), ("I8", -129, "int8"), ("I16", 2**15, "int16"), ("I32", -2**31 - 1, "int32"),
    ("I64", 2**63, "int64"), ("I", -2**63 - 1, "int"), ("U8", 256, "uint8"), ("By", 256, "byte"),
    ("U16", 2**16, "uint16"), ("U32", 2**32, "uint32"), ("U64", 2**64, "uint64"), ("U", 2**64, "uint"),
])
def test_int_outside_the_declared_width_is_refused(zp: zebrapack.Schema, field: str, value: int, go: str) -> None:
    refused(zp, zp.types.Prims(**{field: value}), f"Prims.{field}", f"{value} is outside the range of {go}")


@pytest.mark.parametrize("field", ["U", "U8", "U16", "U32", "U64", "By"])
def test_negative_value_for_an_unsigned_kind_is_refused(zp: zebrapack.Schema, field: str) -> None:
    refused(zp, zp.types.Prims(**{field: -1}), f"Prims.{field}", "-1 is outside the range")


def test_bool_where_an_integer_is_declared_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.A(Sibs=True), "A.Sibs", "expected int, got bool True")
    refused(zp, zp.types.A(Sibs=False), "A.Sibs", "bool is not an integer")


def test_float_where_an_integer_is_declared_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.Prims(I32=3.0), "Prims.I32", "expected int32, got float 3.0")


def test_integer_like_objects_with_index_are_accepted(zp: zebrapack.Schema) -> None:
    class Seven:
        def __index__(self) -> int:
            return 7

    assert prims_bytes(zp, I8=Seven()) == b"\x0d\x07"


def test_str_where_bytes_are_declared_is_refused_and_the_reverse(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.Prims(Bin="text"), "Prims.Bin", "expected []byte, got str", "a string where bytes")
    refused(zp, zp.types.Prims(S=b"raw"), "Prims.S", "expected string, got bytes", "bytes where a string")


def test_bytearray_and_memoryview_are_bytes(zp: zebrapack.Schema) -> None:
    assert prims_bytes(zp, Bin=bytearray(b"ab")) == prims_bytes(zp, Bin=memoryview(b"ab")) == b"\x01\xc4\x02ab"


@pytest.mark.parametrize("value", ["1.5", None, [1.0], True])
def test_non_number_for_a_float_kind_is_refused(zp: zebrapack.Schema, value: object) -> None:
    refused(zp, zp.types.Prims(F64=value), "Prims.F64", "expected float64")


def test_int_that_is_not_exactly_a_float_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.Prims(F64=2**53 + 1), "Prims.F64", "is not exactly a float64")
    refused(zp, zp.types.Prims(F32=2**24 + 1), "Prims.F32", "is not exactly a float32")


def test_finite_value_that_overflows_float32_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.Prims(F32=3.5e38), "Prims.F32", "overflows float32")
    refused(zp, zp.types.Prims(C64=complex(1, 1e39)), "Prims.C64", "overflows float32")
    assert zp.decode(zp.encode(zp.types.Prims(F32=math.inf))).F32 == math.inf
    assert zp.decode(zp.encode(zp.types.Prims(F32=3.4028235e38))).F32 == 3.4028234663852886e38


def test_naive_datetime_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.A(Bday=datetime(2020, 1, 1)), "A.Bday", "naive datetime", "ambiguous")
    refused(zp, zp.types.Compound(Times=[datetime(2020, 1, 1)]), "Compound.Times[0]", "naive datetime")


def test_fixed_array_of_the_wrong_length_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.Compound(Arr=[1.0, 2.0]), "Compound.Arr", "expected [3]float64: 3 elements, got 2")
    refused(zp, zp.types.Compound(ByteArr=b"12345"), "Compound.ByteArr", "expected [4]byte: 4 bytes, got 5")


def test_nested_value_that_is_not_the_declared_dataclass_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.Compound(Nested=zp.types.A()), "Compound.Nested", "expected Inner, got A")
    refused(zp, zp.types.Compound(Inners=[zp.types.Inner(), {"X": 1}]), "Compound.Inners[1]", "expected Inner, got dict")


def test_map_key_of_the_wrong_type_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.Compound(SMap={"a": 1, 2: 3}), "Compound.SMap[2]", "expected string, got int 2")
    refused(zp, zp.types.Compound(IMap={"7": "x"}), "Compound.IMap['7']", "expected int64, got str")


def test_none_in_a_non_pointer_position_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.A(Name=None), "A.Name", "expected string, got NoneType")
    refused(zp, zp.types.Compound(Ints=[1, None]), "Compound.Ints[1]", "None is only allowed for pointers")
    refused(zp, zp.types.Compound(Nested=None), "Compound.Nested", "expected Inner")
    refused(zp, zp.types.Compound(Times=[None]), "Compound.Times[0]", "None is only allowed for a time field")
    refused(zp, zp.types.Compound(Strs=None), "Compound.Strs", "None is only allowed for pointers")


def test_none_is_accepted_for_pointers_interfaces_and_time_fields(zp: zebrapack.Schema) -> None:
    value = zp.types.Compound(Ptr=None, PInt=None, PInners=[None], MInner={"k": None}, Anys=[None])
    assert zp.decode(zp.encode(value)) == value


def test_bool_field_refuses_integers(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.A(Friend=1), "A.Friend", "expected bool, got int 1")


def test_unencodable_string_is_refused(zp: zebrapack.Schema) -> None:
    refused(zp, zp.types.A(Name="\ud800"), "A.Name", "cannot be encoded as UTF-8")


def test_error_carries_path_type_value_and_offset(zp: zebrapack.Schema) -> None:
    error = refused(zp, zp.types.Compound(Inners=[zp.types.Inner(), zp.types.Inner(X="7")]),
                    "Compound.Inners[1].X", "expected int32, got str '7'")
    assert isinstance(error, ValueError) and error.offset is not None and error.reason


def test_value_that_contains_itself_is_refused_not_a_crash(zp: zebrapack.Schema) -> None:
    tree = zp.types.Tree()
    tree.Up = tree
    with pytest.raises(EncodeError, match="nesting deeper than max_depth"):
        zp.encode(tree)
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(EncodeError, match="nesting deeper than max_depth"):
        zp.encode(zp.types.Prims(Any=loop))


def test_unset_slot_is_refused(zp: zebrapack.Schema) -> None:
    inner = object.__new__(zp.types.Inner)
    with pytest.raises(EncodeError, match="field X is not set"):
        zp.encode(inner)


# -- interface{} -------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "wire"), [
    (None, "c0"), (True, "c3"), (-1, "ff"), (200, "d100c8"), (2**63, "cf8000000000000000"),
    (-2**63, "d38000000000000000"), (1.5, "cb3ff8000000000000"), ("é", "a2c3a9"), (b"\x01", "c40101"),
    ([1, "a"], "9201a161"), ((1,), "9101"), ({"k": [None]}, "81a16b91c0"),
    (datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC), "c70c05000000000000000100000000"),
    (complex(1, 0), "d8043ff00000000000000000000000000000"), (zebrapack.Ext(9, b"z"), "c701097a"),
    (msgpack.ExtType(9, b"z"), "c701097a"),
])
def test_interface_values_take_their_python_type(zp: zebrapack.Schema, value: object, wire: str) -> None:
    assert zp.encode(zp.types.Prims(Any=value)) == b"\x82\xff\xa5Prims\x13" + bytes.fromhex(wire)


def test_nil_interface_fields_follow_the_reference() -> None:
    # A plain interface{} field is never empty to the reference generator (gen/omitempty.go);
    # zpn/Prims_max pins it: its nil Any is on the wire as `13 c0`. A nil interface-typed
    # field (Familiar) is left out, as golden/headerplus pins.
    zpn = vector_schema("zpn.z")
    assert zpn.encode(zpn.types.Prims(), structnames=False) == b"\x81\x13\xc0"
    iface = vector_schema("iface.z")
    assert iface.encode(iface.types.Zoo(), structnames=False) == b"\x80"
    assert iface.decode(iface.encode(iface.types.Zoo()), type="Zoo") == iface.types.Zoo()


@pytest.mark.parametrize(("size", "header"), [
    (254, "c7fe07"), (255, "c800ff07"), (65534, "c8fffe07"), (65535, "c90000ffff07")])
def test_ext_headers_follow_the_msgp_runtime_thresholds(zp: zebrapack.Schema, size: int, header: str) -> None:
    # msgp writes ext8 below 255 bytes and ext16 below 65535 (one less than the msgpack spec allows)
    encoded = zp.encode(zp.types.Prims(Any=zebrapack.Ext(7, b"x" * size)))
    assert encoded[len(b"\x82\xff\xa5Prims\x13"):].startswith(bytes.fromhex(header))


def test_interface_dataclass_is_written_with_its_struct_name(zp: zebrapack.Schema) -> None:
    data = zp.encode(zp.types.Prims(Any=zp.types.Inner(X=1)), structnames=False)
    assert data == b"\x81\x13\x82\xff\xa5Inner\x00\x01"
    assert zp.decode(data, type="Prims").Any == zp.types.Inner(X=1)


@pytest.mark.parametrize("value", [object(), {1, 2}, 2**64, -2**63 - 1, datetime(2020, 1, 1)])
def test_interface_value_without_a_msgpack_form_is_refused(zp: zebrapack.Schema, value: object) -> None:
    with pytest.raises(EncodeError) as caught:
        zp.encode(zp.types.Prims(Any=value))
    assert caught.value.path == "Prims.Any"


def test_interface_typed_field_needs_a_struct_of_the_schema() -> None:
    iface = vector_schema("iface.z")
    zoo = iface.types.Zoo(Title="z", Pet=iface.types.Dog(Nm="rex"), Flock=[iface.types.Owl(Hoots=1)])
    assert iface.decode(iface.encode(zoo, structnames=False), type="Zoo") == zoo
    with pytest.raises(EncodeError, match="not an instance of a struct of this schema"):
        iface.encode(iface.types.Zoo(Pet="rex"))


# -- deprecated fields -----------------------------------------------------------------

def test_writing_a_deprecated_field_warns_through_the_warnings_machinery() -> None:
    zp = zebrapack.load(VECTORS / "schemas" / "zp.z")
    with pytest.warns(DeprecationWarning, match=r"Compound\.Old \(zid 13\) is deprecated"):
        data = zp.encode(zp.types.Compound(Old=7))
    assert zp.decode(data).Old == 7
    # no flag on the plan: every write is seen by pytest.warns and by "always"
    with pytest.warns(DeprecationWarning, match=r"Compound\.Old"):
        zp.encode(zp.types.Compound(Old=8))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        zp.encode(zp.types.Compound(Old=8))
        zp.encode(zp.types.Compound(Old=9))
    assert [w.category for w in caught] == [DeprecationWarning, DeprecationWarning]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DeprecationWarning):
            zp.encode(zp.types.Compound(Old=10))


def test_the_default_filter_gives_the_deprecation_warning_once_per_call_site() -> None:
    zp = zebrapack.load(VECTORS / "schemas" / "zp.z")
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for old in range(1, 4):
            zp.encode(zp.types.Compound(Old=old))   # one location: one warning
        zp.encode(zp.types.Compound(Old=5))         # another location
    assert len(caught) == 2
    assert all(w.filename == __file__ for w in caught)


def test_zero_deprecated_field_does_not_warn() -> None:
    zp = zebrapack.load(VECTORS / "schemas" / "zp.z")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zp.encode(zp.types.Compound())


# -- encode_into -----------------------------------------------------------------------

def test_encode_into_writes_from_the_offset_and_sizes_the_buffer(zp: zebrapack.Schema) -> None:
    a = zp.types.A(Name="x")
    buffer = bytearray(b"head-tail")
    assert zp.encode_into(a, buffer, 4) is None
    assert buffer == b"head" + zp.encode(a)
    zp.encode_into(a, buffer, -1)
    assert buffer == b"head" + zp.encode(a) * 2
    zp.encode_into(a, buffer)
    assert buffer == zp.encode(a)


def test_encode_into_grows_for_large_records(zp: zebrapack.Schema) -> None:
    big = zp.types.Compound(Strs=["s" * 1000] * 100)
    buffer = bytearray()
    zp.encode_into(big, buffer)
    assert bytes(buffer) == zp.encode(big)


def test_encode_into_cuts_back_to_the_offset_on_error(zp: zebrapack.Schema) -> None:
    buffer = bytearray(b"kept")
    with pytest.raises(EncodeError):
        zp.encode_into(zp.types.A(Name=1), buffer, -1)
    assert buffer == b"kept"


def test_encode_into_checks_its_offset(zp: zebrapack.Schema) -> None:
    with pytest.raises(ValueError, match="outside the buffer"):
        zp.encode_into(zp.types.A(), bytearray(2), 3)


def test_encode_into_target_cannot_be_resized_by_user_code_mid_call(zp: zebrapack.Schema) -> None:
    buffer = bytearray()

    class Resizing:
        def __index__(self) -> int:
            buffer.extend(b"x" * 10000)
            return 1

    with pytest.raises(EncodeError, match="BufferError"):
        zp.encode_into(zp.types.Prims(I8=Resizing()), buffer)
    assert buffer == b""


@pytest.mark.parametrize("keywords", [{}, {"structnames": False}, {"mode": "msgp"}, {"fixext": True}],
                         ids=["default", "no-names", "msgp", "fixext"])
@pytest.mark.filterwarnings("ignore:Compound.Old:DeprecationWarning")     # msgp mode writes every field
def test_encode_into_writes_what_encode_writes_small_and_large(zp: zebrapack.Schema, keywords: dict) -> None:
    """A small record is written on the C stack and copied into the buffer in one
    resize (a flat one by encode's own fast path), a large one straight into it: either
    way the buffer ends as its head and encode's bytes, however long it was."""
    records = [zp.types.Inner(X=3, Y="y"), zp.types.A(Name="n", Sibs=3, GPA=1.5, Friend=True), zp.types.Prims(C64=1 + 2j, U64=2**64 - 1),
               zp.types.Compound(Strs=["s" * 1000] * 20), zp.types.Compound(Nested=zp.types.Inner(X=1))]
    for record in records:
        want = zp.encode(record, **keywords)
        for head, offset in ((b"", 0), (b"head", 4), (b"head-and-a-long-tail" * 50, 4), (b"head", -1)):
            buffer = bytearray(head)
            zp.encode_into(record, buffer, offset, **keywords)
            kept = head if offset == -1 else head[:offset]
            assert bytes(buffer) == kept + want
        buffer = bytearray()                # one buffer reused for every record
        for _ in range(3):
            zp.encode_into(record, buffer, 0, **keywords)
            assert bytes(buffer) == want


def test_encode_into_msgp_mode(zp: zebrapack.Schema) -> None:
    buffer = bytearray()
    zp.encode_into(zp.types.Inner(X=1), buffer, mode="msgp", structnames=False)
    assert buffer == b"\x82\xa1X\x01\xa1Y\xa0"


# -- classes other than the generated ones ------------------------------------------------

def test_user_dataclasses_stand_in_for_generated_ones() -> None:
    @dataclasses.dataclass
    class Inner:
        X: int = 0
        Y: str = ""
        note: str = "not in the schema"

    schema = zebrapack.load(VECTORS / "schemas" / "zp.z", types={"Inner": Inner})
    assert schema.types.Inner is Inner
    data = schema.encode(Inner(X=5, Y="y"))
    assert data == vector_schema("zp.z").encode(vector_schema("zp.z").types.Inner(X=5, Y="y"))
    decoded = schema.decode(data)
    assert type(decoded) is Inner and decoded == Inner(X=5, Y="y")
    assert schema.decode(vector_schema("zp.z").encode(vector_schema("zp.z").types.Compound(
        Inners=[vector_schema("zp.z").types.Inner(X=1)]))).Inners == [Inner(X=1)]


def test_generated_classes_refer_to_the_user_classes_given() -> None:
    @dataclasses.dataclass
    class Inner:
        X: int = 0
        Y: str = ""

    schema = zebrapack.load(VECTORS / "schemas" / "zp.z", types={"Inner": Inner})
    compound = schema.types.Compound()
    assert type(compound.Nested) is Inner
    assert schema.types.Compound.__annotations__["Ptr"] == Inner | None
    assert schema.decode(schema.encode(compound)) == compound


def test_user_class_post_init_runs_on_decode() -> None:
    seen = []

    @dataclasses.dataclass(slots=True)
    class Inner:
        X: int = 0
        Y: str = ""

        def __post_init__(self) -> None:
            seen.append(self.X)

    schema = zebrapack.load(VECTORS / "schemas" / "zp.z", types={"Inner": Inner})
    schema.decode(b"\x81\x00\x05", type="Inner")
    assert seen == [5]


def test_user_class_missing_a_field_is_a_schema_error() -> None:
    @dataclasses.dataclass
    class Inner:
        X: int = 0

    with pytest.raises(zebrapack.SchemaError, match=r"Inner\.Y: .*Inner has no field for it"):
        zebrapack.load(VECTORS / "schemas" / "zp.z", types={"Inner": Inner})


def test_types_naming_an_unknown_struct_is_a_schema_error() -> None:
    with pytest.raises(zebrapack.SchemaError, match="does not have: Nope"):
        zebrapack.load(VECTORS / "schemas" / "zp.z", types={"Nope": int})
