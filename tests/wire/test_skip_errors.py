"""Unknown fields are stepped over by the skipper (zp_skip.h) with decode's rules: a
value cut short, the byte 0xc1, nesting past max_depth and headers claiming more values
than the input holds are DecodeErrors naming the path through the skipped value (map
entries by position) and the byte offset, in decode, decode_all and iter_decode alike."""

from __future__ import annotations

import msgpack
import pytest
from support.vectors import VECTORS

import zebrapack
from zebrapack import DecodeError

ZP_PATH = VECTORS / "schemas" / "zp.z"


def tree_with_unknown(value: bytes) -> bytes:
    """A Tree record whose zid 9 (unknown to the schema) holds ``value``, then Label."""
    return b"\x83\xff\xa4Tree\x09" + value + b"\x01\xa1L"


CASES = {
    # [1, {"a": [2, "x" * 40]}] cut inside the str
    "a value cut short deep inside": (
        tree_with_unknown(msgpack.packb([1, {"a": [2, "x" * 40]}])[:-10])[:-4], 1000,
        "input ends inside a value: 42 bytes needed, 31 left", "Tree.<zid 9>[1][0][1]", 15),
    "0xc1 deep inside": (
        tree_with_unknown(b"\x92\x01\x81\xa1k\x91\xc1"), 1000,
        "0xc1 is never used in msgpack", "Tree.<zid 9>[1][0][0]", 14),
    "nesting past max_depth": (
        tree_with_unknown(b"\x91\x91\x91\x91\xc0"), 4,
        "nesting deeper than max_depth=4", "Tree.<zid 9>[0][0][0]", 12),
    "headers claiming more values than bytes": (
        tree_with_unknown(b"\x9f" * 40 + b"\x00" * 20), 1000,
        "the headers claim more values than the input has bytes", "Tree.<zid 9>[0][0][0][0]", 13),
    "a header cut short": (
        tree_with_unknown(b"\x92\x01\xde\x00")[:-3], 1000,
        "input ends inside a value: 3 bytes needed, 2 left", "Tree.<zid 9>[1]", 10),
    "a map claiming more entries than bytes": (
        tree_with_unknown(b"\x81\x00\x8f\x00"), 1000,
        "input ends inside a value: 30 bytes needed, 4 left", "Tree.<zid 9>[0]", 11),
}


@pytest.mark.parametrize("case", CASES)
def test_a_bad_skipped_value_is_a_decode_error_naming_the_path_through_it(case: str) -> None:
    data, max_depth, reason, path, offset = CASES[case]
    schema = zebrapack.load(ZP_PATH, max_depth=max_depth)
    with pytest.raises(DecodeError) as caught:
        schema.decode(data, "Tree")
    assert (caught.value.reason, caught.value.path, caught.value.offset) == (reason, path, offset)
    with pytest.raises(DecodeError) as caught:
        schema.decode_all(data, "Tree")
    assert (caught.value.path, caught.value.offset) == (path, offset)


def test_a_skipped_value_cut_short_at_the_end_of_a_stream_is_the_stream_cut_short() -> None:
    schema = zebrapack.load(ZP_PATH)
    whole = tree_with_unknown(msgpack.packb([1, {"a": [2, "x" * 40]}]))
    assert [tree.Label for tree in schema.iter_decode(whole + whole, "Tree")] == ["L", "L"]
    with pytest.raises(zebrapack.TornTailError) as caught:
        list(schema.iter_decode(whole + whole[:-14], "Tree"))
    assert (caught.value.path, caught.value.offset) == ("$", len(whole))     # the torn record's start
    cause = caught.value.__cause__          # the decoder's own error says where the bytes ran out
    assert isinstance(cause, DecodeError) and cause.reason == "input ends inside a value: 42 bytes needed, 31 left"
    assert (cause.path, cause.offset) == ("Tree.<zid 9>[1][0][1]", len(whole) + 15)


def test_nesting_up_to_max_depth_in_a_skipped_value_is_stepped_over() -> None:
    schema = zebrapack.load(ZP_PATH, max_depth=4)
    assert schema.decode(tree_with_unknown(b"\x91\x91\x91\xc0"), "Tree").Label == "L"
    assert schema.decode(tree_with_unknown(b"\x81\x00\x81\x00\x81\x00\xc0"), "Tree").Label == "L"


def test_values_deeper_than_the_skippers_own_levels_are_stepped_over() -> None:
    """Past the levels kept in the caller's frame the skipper grows its own."""
    schema = zebrapack.load(ZP_PATH)
    for depth in (15, 16, 17, 64, 65, 998):         # the record's own struct is a level
        nested = b"".join(b"\x92\x01" if level % 2 else b"\x81\xa1k" for level in range(depth)) + b"\xc0"
        assert schema.decode(tree_with_unknown(nested), "Tree").Label == "L"
    with pytest.raises(DecodeError, match="nesting deeper than max_depth=1000") as caught:
        schema.decode(tree_with_unknown(b"\x91" * 1000 + b"\xc0"), "Tree")
    assert caught.value.path == "Tree.<zid 9>" + "[0]" * 999
