"""schema.decode: inputs, record types, leniency and strictness, every kind, errors."""

from __future__ import annotations

import math
import struct
from datetime import datetime, timezone

import msgpack
import pytest
from support.vectors import VECTORS, vector_schema
from support.expected_values import same

import zebrapack
from zebrapack import DecodeError

UTC = timezone.utc
A_SEED = (VECTORS / "zp" / "A_seed.zpk").read_bytes()


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return vector_schema("zp.z")


def record(name: str, *entries: bytes) -> bytes:
    """A zebrapack struct map: the -1 name, then raw key-value entries."""
    encoded = name.encode()
    count = len(entries) + 1
    header = bytes([0x80 | count]) if count <= 15 else b"\xde" + count.to_bytes(2, "big")
    return header + bytes([0xff, 0xa0 | len(encoded)]) + encoded + b"".join(entries)


def prims_field(zid: int, value: bytes) -> bytes:
    return record("Prims", bytes([zid]) + value)


PRIMS = {f.go_name: f.zid for f in vector_schema("zp.z").structs["Prims"].fields}


def test_readme_example_decodes(zp: zebrapack.Schema) -> None:
    a = zp.decode(A_SEED)
    assert a == zp.types.A(Name="Atlanta", Bday=datetime(1990, 12, 20, tzinfo=UTC), Phone="650-555-1212",
                           Sibs=3, GPA=3.95, Friend=True)
    assert type(a) is zp.types.A


def test_records_of_different_structs_in_a_row_each_decode_as_their_own(zp: zebrapack.Schema) -> None:
    # the codec tries the struct it decoded last first: every other record still finds its own
    inner, tree = record("Inner", b"\x00\x07"), record("Tree")
    for data, expected in [(A_SEED, zp.decode(A_SEED)), (inner, zp.types.Inner(X=7)), (A_SEED, zp.decode(A_SEED)),
                           (inner, zp.types.Inner(X=7)), (tree, zp.types.Tree()), (inner, zp.types.Inner(X=7))]:
        assert zp.decode(data) == expected
    with pytest.raises(DecodeError, match="names no struct of this schema"):
        zp.decode(record("Innex", b"\x00\x07"))
    assert type(zp.decode(inner)) is zp.types.Inner


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview, lambda b: memoryview(bytearray(b))],
                         ids=["bytes", "bytearray", "memoryview", "memoryview-of-bytearray"])
def test_every_buffer_type_decodes(zp: zebrapack.Schema, wrap: object) -> None:
    assert zp.decode(wrap(A_SEED)) == zp.decode(A_SEED)  # type: ignore[operator]


def test_memoryview_slice_decodes_without_copying_the_rest(zp: zebrapack.Schema) -> None:
    framed = b"\x00" * 7 + A_SEED + b"\x00" * 5
    assert zp.decode(memoryview(framed)[7:-5]) == zp.decode(A_SEED)


def test_non_contiguous_memoryview_is_refused_clearly(zp: zebrapack.Schema) -> None:
    doubled = bytes(b for byte in A_SEED for b in (byte, 0))
    with pytest.raises(BufferError):
        zp.decode(memoryview(doubled)[::2])


def test_str_input_is_a_type_error(zp: zebrapack.Schema) -> None:
    with pytest.raises(TypeError):
        zp.decode("not bytes")  # type: ignore[arg-type]


def test_bytearray_export_is_released_after_decoding(zp: zebrapack.Schema) -> None:
    data = bytearray(A_SEED)
    zp.decode(data)
    data.extend(b"more")        # a held export would make this a BufferError
    assert len(data) == len(A_SEED) + 4


# -- the record's type ----------------------------------------------------------

def test_type_comes_from_the_struct_name_on_the_wire(zp: zebrapack.Schema) -> None:
    assert type(zp.decode(record("Inner", b"\x00\x05"))) is zp.types.Inner


def test_type_argument_by_name_or_class(zp: zebrapack.Schema) -> None:
    data = b"\x81\x00\x05"
    assert zp.decode(data, type="Inner") == zp.types.Inner(X=5)
    assert zp.decode(data, type=zp.types.Inner) == zp.types.Inner(X=5)


def test_record_without_name_or_type_is_an_error(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="names no struct of this schema"):
        zp.decode(b"\x81\x00\x05")


def test_name_and_type_that_disagree_is_an_error(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="struct name 'Inner' on the wire, expected 'A'"):
        zp.decode(record("Inner", b"\x00\x05"), type="A")


def test_unknown_struct_name_without_type_is_an_error(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="names no struct"):
        zp.decode(record("Nope"))


def test_type_that_is_not_a_struct_of_the_schema_is_a_value_error(zp: zebrapack.Schema) -> None:
    with pytest.raises(ValueError, match="not a struct of this schema"):
        zp.decode(A_SEED, type="Nope")


def test_top_level_value_must_be_a_map(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="a record is a struct map; expected A, found array"):
        zp.decode(b"\x90", type="A")


def test_trailing_bytes_are_an_error_with_their_offset(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="1 trailing bytes") as caught:
        zp.decode(A_SEED + b"\xc0")
    assert caught.value.offset == len(A_SEED)


def test_trailing_bytes_point_at_the_stream_readers(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match=r"57 trailing bytes .*decode_all or iter_decode"):
        zp.decode(A_SEED * 2)


def test_string_keys_from_msgp_mode_are_read_by_tag_name(zp: zebrapack.Schema) -> None:
    msgp_bytes = (VECTORS / "mp" / "A_seed.zpk").read_bytes()
    assert zp.decode(msgp_bytes, type="A") == zp.decode(A_SEED)


def test_keys_of_both_kinds_mix_in_one_map(zp: zebrapack.Schema) -> None:
    data = b"\x82\xa4name\xa2Bo\x03\x07"
    assert zp.decode(data, type="A") == zp.types.A(Name="Bo", Sibs=7)


def test_struct_key_of_another_type_is_an_error(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match=r"struct key must be a zid \(int\) or a field name \(str\), found float64"):
        zp.decode(b"\x81\xcb" + bytes(8) + b"\x00", type="A")


# -- unknown, missing and nil fields ---------------------------------------------

def test_unknown_zids_of_any_shape_are_skipped(zp: zebrapack.Schema) -> None:
    unknown = b"\x40" + msgpack.packb({"deep": [1, {"x": b"\x00" * 300}], "t": 1.5}, use_bin_type=True)
    data = record("Inner", b"\x00\x05", unknown, b"\xcd\x01\x00\xc0", b"\xd2\x7f\xff\xff\xff\x90", b"\x01\xa1y")
    assert zp.decode(data) == zp.types.Inner(X=5, Y="y")


def test_unknown_tag_names_are_skipped(zp: zebrapack.Schema) -> None:
    assert zp.decode(b"\x82\xa5other\x93\x01\x02\x03\xa1X\x09", type="Inner") == zp.types.Inner(X=9)


def test_skip_field_zids_are_skipped(zp: zebrapack.Schema) -> None:
    data = record("Compound", b"\x00\x81\xa1a\x01", b"\x11\x81\x01\xc3", b"\x10\xa1r")   # Gone, UMap
    assert zp.decode(data) == zp.types.Compound(Renamed="r")


def test_missing_fields_take_zero_values(zp: zebrapack.Schema) -> None:
    assert zp.decode(record("Compound")) == zp.types.Compound()


def test_nil_reads_as_the_zero_value_of_every_field(zp: zebrapack.Schema) -> None:
    compound = zp.decode(record("Compound", *(bytes([zid]) + b"\xc0" for zid in range(1, 20) if zid != 17)))
    assert compound == zp.types.Compound()
    prims = zp.decode(record("Prims", *(bytes([zid]) + b"\xc0" for zid in range(20))))
    assert prims == zp.types.Prims()


def test_nil_elements_read_as_zero_values(zp: zebrapack.Schema) -> None:
    data = record("Compound", b"\x01\x92\x05\xc0", b"\x0a\x92\xc0\x81\x00\x01", b"\x13\x91\xc0")
    compound = zp.decode(data)
    assert compound.Ints == [5, 0]
    assert compound.PInners == [None, zp.types.Inner(X=1)]
    assert compound.Times == [datetime(1, 1, 1, tzinfo=UTC)]


def test_duplicate_zid_keeps_the_last_value_as_go_does(zp: zebrapack.Schema) -> None:
    assert zp.decode(record("Inner", b"\x00\x01", b"\x00\x02")) == zp.types.Inner(X=2)


# -- integers ----------------------------------------------------------------------

@pytest.mark.parametrize(("field", "wire", "value"), [
    ("I64", b"\xcc\xc8", 200),                         # uint8 family in a signed field
    ("I8", b"\xcc\x7f", 127),
    ("I16", b"\xd3" + (-300).to_bytes(8, "big", signed=True), -300),   # wider encoding than needed
    ("U8", b"\xd0\x05", 5),                            # int family in an unsigned field
    ("U64", b"\xd3" + (2**63 - 1).to_bytes(8, "big"), 2**63 - 1),
    ("U64", b"\xcf" + (2**64 - 1).to_bytes(8, "big"), 2**64 - 1),
    ("I", b"\xd3" + (-2**63).to_bytes(8, "big", signed=True), -2**63),
])
def test_either_integer_family_is_accepted_when_the_value_fits(
        zp: zebrapack.Schema, field: str, wire: bytes, value: int) -> None:
    assert getattr(zp.decode(prims_field(PRIMS[field], wire)), field) == value


@pytest.mark.parametrize(("field", "wire", "shown"), [
    ("I8", b"\xcc\x80", "128 overflows int8"),
    ("I8", b"\xd1\xff\x7f", "-129 overflows int8"),
    ("U8", b"\xcd\x01\x00", "256 overflows uint8"),
    ("U16", b"\xff", "-1 overflows uint16"),
    ("U64", b"\xd0\xff", "-1 overflows uint64"),
    ("I64", b"\xcf" + (2**63).to_bytes(8, "big"), "9223372036854775808 overflows int64"),
    ("I32", b"\xd3" + (2**31).to_bytes(8, "big"), "2147483648 overflows int32"),
    ("By", b"\xcd\x01\x00", "256 overflows byte"),
])
def test_a_value_that_does_not_fit_is_an_error_never_a_truncation(
        zp: zebrapack.Schema, field: str, wire: bytes, shown: str) -> None:
    with pytest.raises(DecodeError, match=shown) as caught:
        zp.decode(prims_field(PRIMS[field], wire))
    assert caught.value.path == f"Prims.{field}"
    assert caught.value.offset == len(prims_field(PRIMS[field], b"")) - 0


@pytest.mark.parametrize(("field", "wire", "lenient_value"), [
    ("I64", b"\xcc\xc8", 200), ("I8", b"\xcc\x01", 1), ("I", b"\xcf" + bytes(8), 0),
    ("U8", b"\xd0\x05", 5), ("U64", b"\xd3" + bytes(8), 0), ("U32", b"\xff", None),
])
def test_strict_rejects_the_wrong_integer_family_as_go_does(
        zp: zebrapack.Schema, field: str, wire: bytes, lenient_value: int | None) -> None:
    data = prims_field(PRIMS[field], wire)
    if lenient_value is None:       # a negative fixint never fits an unsigned field
        with pytest.raises(DecodeError, match="-1 overflows uint32"):
            zp.decode(data)
    else:
        assert getattr(zp.decode(data), field) == lenient_value
    with pytest.raises(DecodeError, match="strict: wrong integer family"):
        zp.decode(data, strict=True)


def test_strict_accepts_what_go_writes(zp: zebrapack.Schema) -> None:
    for case in ("A_seed", "A_negative", "Prims_max", "Prims_min", "Prims_boundary_a", "Prims_boundary_b"):
        data = (VECTORS / "zp" / f"{case}.zpk").read_bytes()
        same(zp.decode(data, strict=True), zp.decode(data))


def test_integer_list_items_read_as_integer_fields_do(zp: zebrapack.Schema) -> None:
    # Compound.Ints []int64, Matrix [][]int32: items of every encoding, each error at its index
    items = b"\x05\xe0\xd0\x80\xd1\x01\x2c\xd2\xff\xfe\xee\x90\xd3" + (-2**63).to_bytes(8, "big", signed=True)
    ints = [5, -32, -128, 300, -70000, -2**63]
    assert zp.decode(record("Compound", b"\x01\x96" + items)).Ints == ints
    assert zp.decode(record("Compound", b"\x01\x93\xcc\xc8\xc0\xcd\x01\x00")).Ints == [200, 0, 256]
    with pytest.raises(DecodeError, match="strict: wrong integer family") as caught:
        zp.decode(record("Compound", b"\x01\x92\x01\xcc\xc8"), strict=True)
    assert (caught.value.path, caught.value.offset) == ("Compound.Ints[1]", 14)
    with pytest.raises(DecodeError, match="2147483648 overflows int32") as caught:
        zp.decode(record("Compound", b"\x0c\x91\x92\x07\xd3" + (2**31).to_bytes(8, "big")))
    assert (caught.value.path, caught.value.offset) == ("Compound.Matrix[0][1]", 15)
    with pytest.raises(DecodeError, match="input ends inside a value: 5 bytes needed, 3 left") as caught:
        zp.decode(record("Compound", b"\x01\x92\x01\xd2\x00\x01"))
    assert (caught.value.path, caught.value.offset) == ("Compound.Ints[1]", 14)


def test_positive_fixint_fits_both_families_even_when_strict(zp: zebrapack.Schema) -> None:
    assert zp.decode(prims_field(PRIMS["U8"], b"\x05"), strict=True).U8 == 5
    assert zp.decode(prims_field(PRIMS["I8"], b"\x05"), strict=True).I8 == 5


# -- floats, complex, bool, strings ------------------------------------------------

def test_float64_field_takes_a_float32_encoding(zp: zebrapack.Schema) -> None:
    data = prims_field(PRIMS["F64"], b"\xca" + struct.pack(">f", 0.1))
    assert zp.decode(data, strict=True).F64 == struct.unpack(">f", struct.pack(">f", 0.1))[0]


def test_float32_field_takes_an_exact_float64_unless_strict(zp: zebrapack.Schema) -> None:
    data = prims_field(PRIMS["F32"], b"\xcb" + struct.pack(">d", 0.5))
    assert zp.decode(data).F32 == 0.5
    with pytest.raises(DecodeError, match="expected float32, found float64"):
        zp.decode(data, strict=True)
    with pytest.raises(DecodeError, match="is not exactly a float32"):
        zp.decode(prims_field(PRIMS["F32"], b"\xcb" + struct.pack(">d", 0.1)))


def test_integers_in_float_fields_are_taken_when_exact(zp: zebrapack.Schema) -> None:
    assert zp.decode(prims_field(PRIMS["F64"], b"\x07")).F64 == 7.0
    assert type(zp.decode(prims_field(PRIMS["F64"], b"\x07")).F64) is float
    with pytest.raises(DecodeError, match="integer is not exactly a float64"):
        zp.decode(prims_field(PRIMS["F64"], b"\xd3" + (2**53 + 1).to_bytes(8, "big")))
    with pytest.raises(DecodeError, match="expected float64, found positive fixint"):
        zp.decode(prims_field(PRIMS["F64"], b"\x07"), strict=True)


def test_float32_nan_payload_and_negative_zero_survive(zp: zebrapack.Schema) -> None:
    nan_bits = b"\x7f\x80\x00\x03"          # a signalling NaN with payload 3
    prims = zp.decode(record("Prims", b"\x02\xca" + nan_bits, b"\x03\xcb" + struct.pack(">d", -0.0)))
    assert math.isnan(prims.F32) and math.copysign(1, prims.F64) == -1
    assert zp.encode(prims) == record("Prims", b"\x02\xca" + nan_bits, b"\x03\xcb" + struct.pack(">d", -0.0),
                                      b"\x13\xc0")


def test_complex128_field_takes_complex64_unless_strict(zp: zebrapack.Schema) -> None:
    data = prims_field(PRIMS["C128"], b"\xd7\x03" + struct.pack(">ff", 1.5, -2.0))
    assert zp.decode(data).C128 == complex(1.5, -2.0)
    with pytest.raises(DecodeError, match="strict"):
        zp.decode(data, strict=True)


def test_bool_field_takes_only_bools(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="expected bool, found positive fixint"):
        zp.decode(prims_field(PRIMS["B"], b"\x01"))


def test_invalid_utf8_in_a_str_is_an_error_and_the_same_bytes_in_a_bin_decode(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="invalid UTF-8") as caught:
        zp.decode(prims_field(PRIMS["S"], b"\xa2\xff\xfe"))
    assert caught.value.path == "Prims.S"
    assert zp.decode(prims_field(PRIMS["Bin"], b"\xc4\x02\xff\xfe")).Bin == b"\xff\xfe"


def test_str_and_bin_families_cross_over_only_when_lenient(zp: zebrapack.Schema) -> None:
    assert zp.decode(prims_field(PRIMS["S"], b"\xc4\x02hi")).S == "hi"
    assert zp.decode(prims_field(PRIMS["Bin"], b"\xa2hi")).Bin == b"hi"
    with pytest.raises(DecodeError, match="expected string, found bin8"):
        zp.decode(prims_field(PRIMS["S"], b"\xc4\x02hi"), strict=True)
    with pytest.raises(DecodeError, match=r"expected \[\]byte, found str"):
        zp.decode(prims_field(PRIMS["Bin"], b"\xa2hi"), strict=True)


def test_fixed_arrays_must_have_their_length(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match=r"expected \[3\]float64 \(3 elements\), found an array of 2"):
        zp.decode(record("Compound", b"\x03\x92\xcb" + bytes(8) + b"\xcb" + bytes(8)))
    with pytest.raises(DecodeError, match=r"expected \[4\]byte \(4 bytes\), found 3 bytes"):
        zp.decode(record("Compound", b"\x04\xc4\x03abc"))


# -- time ----------------------------------------------------------------------------

def time_ext5(seconds: int, nanos: int) -> bytes:
    return b"\xc7\x0c\x05" + struct.pack(">qI", seconds, nanos)


def test_time_keeps_nanoseconds_as_a_timestamp(zp: zebrapack.Schema) -> None:
    moment = zp.decode(prims_field(PRIMS["T"], time_ext5(-14182940, 123456789))).T
    assert isinstance(moment, zebrapack.Timestamp) and isinstance(moment, datetime)
    assert (moment.year, moment.microsecond, moment.nanosecond) == (1969, 123456, 789)
    assert moment.tzinfo is UTC


def test_whole_microseconds_decode_to_a_plain_datetime(zp: zebrapack.Schema) -> None:
    moment = zp.decode(prims_field(PRIMS["T"], time_ext5(0, 5000))).T
    assert type(moment) is datetime and moment == datetime(1970, 1, 1, 0, 0, 0, 5, tzinfo=UTC)


def test_go_zero_time_field_is_none_but_zero_time_in_a_list_is_a_datetime(zp: zebrapack.Schema) -> None:
    zero = time_ext5(-62135596800, 0)
    assert zp.decode(prims_field(PRIMS["T"], zero)).T is None
    compound = zp.decode(record("Compound", b"\x13\x91" + zero))
    assert compound.Times == [datetime(1, 1, 1, tzinfo=UTC)]


@pytest.mark.parametrize(("wire", "expected"), [
    (b"\xd6\xff" + struct.pack(">I", 1700000000), datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)),
    (b"\xd7\xff" + struct.pack(">Q", (500000 << 34) | 1700000000),
     datetime(2023, 11, 14, 22, 13, 20, 500, tzinfo=UTC)),
    (b"\xc7\x0c\xff" + struct.pack(">Iq", 7, -1), zebrapack.Timestamp(1969, 12, 31, 23, 59, 59, 0, UTC, nanosecond=7)),
], ids=["timestamp32", "timestamp64", "timestamp96"])
def test_spec_timestamp_ext_minus_one_is_read_in_a_time_field(
        zp: zebrapack.Schema, wire: bytes, expected: datetime) -> None:
    data = prims_field(PRIMS["T"], wire)
    assert zp.decode(data).T == expected
    with pytest.raises(DecodeError, match=r"expected time.Time \(ext 5\)"):
        zp.decode(data, strict=True)


def test_spec_timestamp_with_too_many_nanoseconds_is_an_error(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="nanoseconds 1000000000 above 999999999"):
        zp.decode(prims_field(PRIMS["T"], b"\xc7\x0c\xff" + struct.pack(">Iq", 10**9, 0)))


def test_ext5_nanoseconds_past_a_second_are_normalized_as_go_does(zp: zebrapack.Schema) -> None:
    assert zp.decode(prims_field(PRIMS["T"], time_ext5(0, 1_500_000_000))).T == \
        datetime(1970, 1, 1, 0, 0, 1, 500000, tzinfo=UTC)


def test_time_outside_the_years_a_datetime_holds_is_a_gotime(zp: zebrapack.Schema) -> None:
    assert zp.decode(prims_field(PRIMS["T"], time_ext5(253402300800, 0))).T == zebrapack.GoTime(253402300800)
    assert zp.decode(prims_field(PRIMS["T"], time_ext5(-62135596801, 0))).T == zebrapack.GoTime(-62135596801)


def test_time_field_refuses_other_exts(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match=r"found ext 9 of 12 bytes"):
        zp.decode(prims_field(PRIMS["T"], b"\xc7\x0c\x09" + bytes(12)))


# -- interface{} and interface-typed fields -------------------------------------------

def test_interface_values_decode_dynamically(zp: zebrapack.Schema) -> None:
    value = [None, True, -5, 2**64 - 1, 1.5, "s", b"b", [1], {"k": {1: 2}}]
    any_bytes = msgpack.packb(value, use_bin_type=True)
    assert zp.decode(prims_field(PRIMS["Any"], any_bytes)).Any == value


def test_interface_map_naming_a_struct_becomes_that_dataclass(zp: zebrapack.Schema) -> None:
    inner = record("Inner", b"\x00\x05")
    assert zp.decode(prims_field(PRIMS["Any"], inner)).Any == zp.types.Inner(X=5)


def test_interface_map_naming_an_unknown_struct_stays_a_dict(zp: zebrapack.Schema) -> None:
    assert zp.decode(prims_field(PRIMS["Any"], record("Nope", b"\x00\x05"))).Any == {-1: "Nope", 0: 5}


def test_interface_exts_decode_to_time_complex_or_ext(zp: zebrapack.Schema) -> None:
    values = b"\x94" + time_ext5(0, 0) + b"\xd8\x04" + struct.pack(">dd", 1, 2) + \
        b"\xd7\x03" + struct.pack(">ff", 3, 4) + b"\xd5\x07ab"
    assert zp.decode(prims_field(PRIMS["Any"], values)).Any == [
        datetime(1970, 1, 1, tzinfo=UTC), complex(1, 2), complex(3, 4), zebrapack.Ext(7, b"ab")]


def test_unhashable_interface_map_key_is_an_error(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError, match="map key") as caught:
        zp.decode(prims_field(PRIMS["Any"], b"\x81\x91\x01\x02"))
    assert caught.value.path.startswith("Prims.Any")


def test_interface_field_is_resolved_by_the_struct_name() -> None:
    schema = vector_schema("iface.z")
    zoo = schema.decode((VECTORS / "iface" / "Zoo.zpk").read_bytes())
    assert type(zoo.Pet) is schema.types.Dog
    assert [type(x).__name__ for x in zoo.Flock] == ["Owl", "Dog"]


def test_interface_field_without_a_struct_name_is_an_error() -> None:
    schema = vector_schema("iface.z")
    with pytest.raises(DecodeError, match="must name a struct of the schema") as caught:
        schema.decode(record("Zoo", b"\x01\x81\x00\xa3rex"))
    assert caught.value.path == "Zoo.Pet"


# -- errors ----------------------------------------------------------------------------

def test_error_names_the_field_path_and_byte_offset(zp: zebrapack.Schema) -> None:
    inners = b"\x09\x93" + record("Inner") + record("Inner") + record("Inner", b"\x00\xa1x")
    data = record("Compound", inners)
    with pytest.raises(DecodeError) as caught:
        zp.decode(data)
    error = caught.value
    assert error.path == "Compound.Inners[2].X"
    assert error.offset == data.index(b"\xa1x")
    assert error.reason == "expected int32, found str"
    assert str(error) == f"Compound.Inners[2].X: expected int32, found str (byte offset {error.offset})"
    assert isinstance(error, ValueError)


def test_error_path_names_map_keys(zp: zebrapack.Schema) -> None:
    data = record("Compound", b"\x0b\x81\xa1p" + record("Inner", b"\x00\xc3"))
    with pytest.raises(DecodeError) as caught:
        zp.decode(data)
    assert caught.value.path == "Compound.MInner['p'].X"


def test_truncated_record_is_an_error(zp: zebrapack.Schema) -> None:
    for cut in range(len(A_SEED)):
        with pytest.raises(DecodeError):
            zp.decode(A_SEED[:cut])


def test_decode_error_pickles_with_its_attributes(zp: zebrapack.Schema) -> None:
    import pickle

    with pytest.raises(DecodeError) as caught:
        zp.decode(A_SEED[:-1])
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (copy.path, copy.offset, copy.reason, str(copy)) == (
        caught.value.path, caught.value.offset, caught.value.reason, str(caught.value))


def test_after_an_error_the_schema_decodes_the_next_record(zp: zebrapack.Schema) -> None:
    with pytest.raises(DecodeError):
        zp.decode(A_SEED[:20])
    assert zp.decode(A_SEED).Name == "Atlanta"


def test_max_depth_limits_nesting() -> None:
    schema = zebrapack.load(VECTORS / "schemas" / "zp.z", max_depth=50)
    deep = (VECTORS / "zp" / "Tree_deep.zpk").read_bytes()
    with pytest.raises(DecodeError, match="nesting deeper than max_depth=50"):
        schema.decode(deep)
    assert vector_schema("zp.z").decode(deep).Label == "199"
