"""The reader steps over unknown and unchosen fields, and checks interface{} values it
keeps as bytes, with decode's skipper (zp_skip.h): a value cut short, 0xc1, nesting past
max_depth are DecodeErrors with decode's reason, field path and byte offset, plus the
record number."""

from __future__ import annotations

import zlib
from pathlib import Path

import msgpack
import pytest
from support.vectors import VECTORS

import zebrapack
import zebrapack.arrow as zpa
from zebrapack import DecodeError, Split, TornTailError
from zebrapack.recordio.index_format import IndexEntry

from support.engines import engine

pa = engine("pyarrow")

ZP_PATH = VECTORS / "schemas" / "zp.z"


def tree_with_unknown(value: bytes) -> bytes:
    """A Tree record whose zid 9 (unknown to the schema) holds ``value``, then Label."""
    return b"\x83\xff\xa4Tree\x09" + value + b"\x01\xa1L"


def prims_holding(value: bytes) -> bytes:
    """A Prims record whose interface{} field Any holds ``value``."""
    return b"\x82\xff\xa5Prims\x13" + value


CASES = {
    "a skipped value cut short deep inside": (
        "Tree", tree_with_unknown(msgpack.packb([1, {"a": [2, "x" * 40]}])[:-10])[:-4], 1000,
        "input ends inside a value: 42 bytes needed, 31 left", "Tree.<zid 9>[1][0][1]", 15),
    "0xc1 deep inside a skipped value": (
        "Tree", tree_with_unknown(b"\x92\x01\x81\xa1k\x91\xc1"), 1000,
        "0xc1 is never used in msgpack", "Tree.<zid 9>[1][0][0]", 14),
    "a skipped value nested past max_depth": (
        "Tree", tree_with_unknown(b"\x91\x91\x91\x91\xc0"), 4,
        "nesting deeper than max_depth=4", "Tree.<zid 9>[0][0][0]", 12),
    "an interface{} value cut short deep inside": (
        "Prims", prims_holding(msgpack.packb({"a": [1, {"b": "x" * 40}]})[:-10]), 1000,
        "input ends inside a value: 42 bytes needed, 32 left", "Prims.Any['a'][1]['b']", 17),
    "0xc1 deep inside an interface{} value": (
        "Prims", prims_holding(b"\x81\xa1a\x92\x01\x81\xa1b\xc1"), 1000,
        "0xc1 is never used in msgpack", "Prims.Any['a'][1]['b']", 17),
    "an interface{} value nested past max_depth": (
        "Prims", prims_holding(b"\x81\xa1a\x91\x91\x91\x91\xc0"), 5,
        "nesting deeper than max_depth=5", "Prims.Any['a'][0][0][0]", 16),
    "bad UTF-8 deep inside an interface{} value": (
        "Prims", prims_holding(b"\x81\xa1a\x91\xa2\xff\xfe"), 1000,
        "invalid UTF-8 in a str: byte 0xff at position 0", "Prims.Any['a'][0]", 13),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("columns", [None, ["Label"]])
def test_a_bad_skipped_or_kept_value_is_refused_with_decodes_path_and_offset(case: str, columns: list[str] | None,
                                                                             tmp_path: Path) -> None:
    type_name, data, max_depth, reason, path, offset = CASES[case]
    schema = zebrapack.load(ZP_PATH, max_depth=max_depth)
    with pytest.raises(DecodeError) as decoded:
        schema.decode(data, type_name)
    assert (decoded.value.path, decoded.value.offset) == (path, offset)
    if columns is not None and type_name != "Tree":
        columns = ["Any"]
    good = schema.encode(schema.types[type_name]())
    # Read through an index entry that ends where the value is cut: an entry's end is no
    # torn tail, so the reader names the value cut short as decode does.
    file = tmp_path / "records.zpk"
    file.write_bytes(good + data)
    entries = (IndexEntry(0, len(good), 1, zlib.crc32(good)), IndexEntry(len(good), len(good + data), 1,
                                                                         zlib.crc32(data)))
    split = Split(str(file), 0, len(good + data), 2, entries)
    with pytest.raises(DecodeError) as read:
        zpa.read(split, schema, type_name, columns=columns).read_all()
    assert not isinstance(read.value, TornTailError)
    assert (read.value.reason, read.value.path, read.value.offset) == \
        (f"{file}: split 0..{len(good + data)}: {reason} (record 1)", path, len(good) + offset)
    # The bytes alone: where the input itself ends inside the record, it is a torn tail at its start.
    with pytest.raises(DecodeError) as read:
        zpa.read(good + data, schema, type_name, columns=columns).read_all()
    if reason.startswith("input ends inside"):
        assert isinstance(read.value, TornTailError) and read.value.offset == len(good)
        assert (read.value.path, read.value.record) == ("$", 1)     # type: ignore[attr-defined]
    else:
        assert (read.value.reason, read.value.path, read.value.offset) == \
            (f"{reason} (record 1)", path, len(good) + offset)


def test_a_map_key_inside_interface_is_checked_with_the_path_naming_the_key() -> None:
    schema = zebrapack.load(ZP_PATH)
    data = prims_holding(b"\x82\xa1a\x01\xa1b\x81\x05\x00")
    with pytest.raises(DecodeError) as read:
        zpa.read(data, schema, "Prims", strict=True).read_all()
    assert read.value.reason == ("a map inside interface{} is a map[string]interface{} to Go: "
                                 "its keys are str, found positive fixint (strict) (record 0)")
    assert (read.value.path, read.value.offset) == ("Prims.Any['b'][<key>]", 16)
    assert zpa.read(data, schema, "Prims").read_all().num_rows == 1
