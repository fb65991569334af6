"""A root record whose every field is a scalar written inline (ints, float64, str, bool) is
encoded by one loop over its slots (write_flat_record, cython/_packer.pxi), which hands
anything it does not write itself to write_struct. Both must give the same bytes, and
the same errors, for every value: an instance of a subclass (never the plan's exact
class) always takes write_struct, and is the reference here."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import EncodeError, Record, Zid, float64, int8, int64, uint8, uint64


@dataclass(slots=True)
class Flat(Record):
    A: Annotated[int8, Zid(0)] = 0
    B: Annotated[int64, Zid(1)] = 0
    C: Annotated[uint8, Zid(2)] = 0
    D: Annotated[uint64, Zid(3)] = 0
    E: Annotated[float64, Zid(4)] = 0.0
    F: Annotated[str, Zid(5)] = ""
    G: Annotated[bool, Zid(6)] = False


# 17 fields: a map16 header, shrunk when few are set
Wide = dataclasses.make_dataclass(
    "Wide", [(f"F{i:02}", Annotated[int, Zid(i)], 0) for i in range(16)] + [("F16", Annotated[str, Zid(16)], "")],
    bases=(Record,), slots=True)

# 130 fields: keys of two bytes from zid 128 on, and more than the stack buffer holds
Many = dataclasses.make_dataclass(
    "Many", [(f"M{i}", Annotated[int, Zid(i)], 0) for i in range(130)], bases=(Record,), slots=True)


@dataclass(slots=True)
class FlatRef(Flat):
    pass


class WideRef(Wide):    # type: ignore[misc,valid-type]
    __slots__ = ()


class ManyRef(Many):    # type: ignore[misc,valid-type]
    __slots__ = ()


SCHEMA = zebrapack.schema_from_dataclasses(Flat, Wide, Many, package="flat")
REFERENCE = {Flat: FlatRef, Wide: WideRef, Many: ManyRef}

ints = st.one_of(st.integers(-2**64, 2**64), st.sampled_from([0, -1, 127, 128, -128, -129, 255, 256,
                                                              2**31, 2**63 - 1, -2**63, 2**64 - 1]))
values = st.one_of(
    ints,
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0]),
    st.text(max_size=40), st.text(alphabet="abc", min_size=250, max_size=700),
    st.booleans(), st.none(), st.binary(max_size=4), st.lists(st.integers(), max_size=2),
)


def outcome(encode: Any, record: Any) -> Any:
    try:
        return encode(record)
    except EncodeError as error:
        return ("error", str(error), error.path, error.offset)


def assert_same(record: Any, **options: Any) -> None:
    reference = REFERENCE[type(record)].__new__(REFERENCE[type(record)])
    for name in record.__dataclass_fields__:
        setattr(reference, name, getattr(record, name))
    flat = outcome(lambda r: SCHEMA.encode(r, **options), record)
    general = outcome(lambda r: SCHEMA.encode(r, **options), reference)
    assert flat == general
    if isinstance(flat, bytes):
        buffer = bytearray(b"xy")
        SCHEMA.encode_into(record, buffer, -1, **options)
        assert bytes(buffer) == b"xy" + flat


def nan_safe_equal(a: Any, b: Any) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


@settings(max_examples=400, deadline=None)
@given(st.fixed_dictionaries({name: values for name in "ABCDEFG"}), st.booleans())
def test_flat_records_encode_as_write_struct_does(fields, structnames):
    record = Flat.__new__(Flat)
    for name, value in fields.items():
        setattr(record, name, value)
    assert_same(record, structnames=structnames)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.just(0), ints), min_size=16, max_size=16),
       st.one_of(st.just(""), st.text(max_size=300)))
def test_wide_flat_records_shrink_their_header_as_write_struct_does(numbers, text):
    record = Wide(*numbers, text)
    assert_same(record)
    assert_same(record, structnames=False)


def test_valid_flat_records_read_back():
    record = Flat(A=-5, B=2**40, C=200, D=2**64 - 1, E=-0.0, F="grüß", G=True)
    back = SCHEMA.decode(SCHEMA.encode(record))
    assert all(nan_safe_equal(getattr(back, n), getattr(record, n)) for n in "ABCDEFG")


@pytest.mark.parametrize("text", ["", "x" * 31, "x" * 32, "x" * 255, "x" * 256, "x" * 600, "x" * 70_000])
def test_strings_of_every_header_width_and_past_the_stack_buffer(text):
    assert_same(Flat(F=text, A=1))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.integers(0, 129), ints, max_size=130))
def test_records_with_two_byte_keys_and_past_the_stack_buffer(numbers):
    record = Many(**{f"M{i}": value for i, value in numbers.items()})
    assert_same(record)


def test_an_unset_slot_is_reported_as_write_struct_reports_it():
    record = Flat.__new__(Flat)
    with pytest.raises(EncodeError, match="field A is not set"):
        SCHEMA.encode(record)


def test_msgp_mode_gives_the_general_paths_bytes():
    record = Flat(A=1, F="f", G=True)
    assert_same(record, mode="msgp")
    assert SCHEMA.decode(SCHEMA.encode(record, mode="msgp"), Flat) == record




GOOD = {"A": -5, "B": 2**40, "C": 200, "D": 2**64 - 1, "E": 1.5, "F": "grüß", "G": True}


@pytest.mark.parametrize("bad", [[1], None, 2**64, "x\ud800"])
@pytest.mark.parametrize("position", range(7))
@pytest.mark.parametrize("zeros_before", [False, True])
def test_a_bad_value_at_each_field_names_that_field(position, bad, zeros_before):
    """Each field's store adds to the map's count and moves the write position on by its
    key and value: a value the loop hands back at any position, after fields written or
    left out, is reported by write_struct with that field's path and offset."""
    names = "ABCDEFG"
    record = Flat(**{n: (type(GOOD[n])() if zeros_before and i < position else GOOD[n])
                     for i, n in enumerate(names)})
    setattr(record, names[position], bad)
    assert_same(record)
    if isinstance(bad, (list, str)):        # wrong for every field (a str: a surrogate for F)
        with pytest.raises(EncodeError) as caught:
            SCHEMA.encode(record)
        assert caught.value.path.endswith("." + names[position])
