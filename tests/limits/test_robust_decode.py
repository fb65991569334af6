"""Untrusted input to the decoder: every malformed input is a DecodeError naming
where it went wrong, never another exception, a crash or a large allocation.

Nesting limits are in test_limits_depth.py, threads in test_threads.py, leaks in
test_leaks.py, mutation fuzzing in test_fuzz_mutations.py.
"""

from __future__ import annotations

import dataclasses
import struct
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from support.vectors import MANIFEST, VECTORS, case_id, vector_bytes, vector_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.strategies import structs
from support.expected_values import expected_value, same
from support.decode_failures import A_SEED, FAILURES, ZP, record

import zebrapack
from zebrapack import DecodeError

COMPOUND_FULL = (VECTORS / "zp" / "Compound_full.zpk").read_bytes()
#: Big vectors are cut at this many places, spread over them, rather than at every byte.
MAX_CUTS = 1500


def decoder(case: dict[str, Any]) -> Callable[[bytes], Any]:
    """How a case's bytes are read: one record (decode), or a stream (decode_all)."""
    schema = vector_schema(case["schema"])
    if "count" in case:
        return lambda data: schema.decode_all(data, case["type"])
    return lambda data: schema.decode(data, case["type"])


def object_size(data: bytes, pos: int) -> tuple[int, int]:
    """(bytes of the msgpack object's header and payload, objects it contains) at pos."""
    b = data[pos]
    if b <= 0x7f or b >= 0xe0 or b in (0xc0, 0xc2, 0xc3):
        return 1, 0
    if b <= 0x8f:
        return 1, 2 * (b & 0x0f)
    if b <= 0x9f:
        return 1, b & 0x0f
    if b <= 0xbf:
        return 1 + (b & 0x1f), 0
    if b in (0xc4, 0xc5, 0xc6, 0xd9, 0xda, 0xdb):      # bin, str: a length, then bytes
        width = {0xc4: 1, 0xc5: 2, 0xc6: 4, 0xd9: 1, 0xda: 2, 0xdb: 4}[b]
        return 1 + width + int.from_bytes(data[pos + 1:pos + 1 + width], "big"), 0
    if b in (0xc7, 0xc8, 0xc9):                         # ext: a length, the type, then bytes
        width = {0xc7: 1, 0xc8: 2, 0xc9: 4}[b]
        return 2 + width + int.from_bytes(data[pos + 1:pos + 1 + width], "big"), 0
    if 0xca <= b <= 0xd3:
        return 1 + (4, 8, 1, 2, 4, 8, 1, 2, 4, 8)[b - 0xca], 0
    if 0xd4 <= b <= 0xd8:
        return 2 + (1 << (b - 0xd4)), 0
    if b in (0xdc, 0xdd):
        width = 2 if b == 0xdc else 4
        return 1 + width, int.from_bytes(data[pos + 1:pos + 1 + width], "big")
    if b in (0xde, 0xdf):
        width = 2 if b == 0xde else 4
        return 1 + width, 2 * int.from_bytes(data[pos + 1:pos + 1 + width], "big")
    raise AssertionError(f"0xc1 at {pos}")


def object_starts(data: bytes) -> list[int]:
    """The offset of every msgpack object (values and map keys) of a valid input."""
    starts: list[int] = []
    pos, pending = 0, 0
    while pos < len(data):
        pending += 1                    # the next top-level record
        while pending:
            starts.append(pos)
            size, children = object_size(data, pos)
            pos += size
            pending += children - 1
    return starts


def spread(positions: list[int], limit: int = MAX_CUTS) -> list[int]:
    """At most limit of the positions, evenly spread, the last ones always kept."""
    if len(positions) <= limit:
        return positions
    step = len(positions) / (limit - 64)
    return sorted({positions[int(i * step)] for i in range(limit - 64)} | set(positions[-64:]))


def expect_decode_error(decode: Callable[[bytes], Any], data: bytes) -> DecodeError:
    """The DecodeError decoding data raises; any other outcome fails the test."""
    with pytest.raises(DecodeError) as caught:
        decode(data)
    return caught.value


# -- 1. prefixes ------------------------------------------------------------------------------

@pytest.mark.parametrize("case", MANIFEST, ids=case_id)
def test_every_proper_prefix_of_every_vector_is_a_decode_error(case: dict[str, Any]) -> None:
    data = vector_bytes(case)
    decode = decoder(case)
    starts = object_starts(data)
    record_ends = set(record_boundaries(case, data))
    if len(data) <= 4 * MAX_CUTS:
        cuts = list(range(len(data)))
    else:
        cuts = spread(sorted(set(starts) | {start + 1 for start in starts} | set(range(len(data) - 64, len(data)))))
    for cut in cuts:
        if cut in record_ends:
            continue        # a stream cut between records is a shorter stream
        error = expect_decode_error(decode, data[:cut])
        assert 0 <= error.offset <= cut


def record_boundaries(case: dict[str, Any], data: bytes) -> list[int]:
    """Where the records of a stream case start (0 included); [] for a single record."""
    if "count" not in case:
        return []
    boundaries = [0]
    while boundaries[-1] < len(data):
        _, end = vector_schema(case["schema"])._decode_at(data, boundaries[-1], case["type"])
        boundaries.append(end)
    return boundaries[:-1]


# -- 2. trailing bytes ----------------------------------------------------------------------

@pytest.mark.parametrize("tail", [b"\x00", b"\xc0", b"\xc1", A_SEED, A_SEED[:3]], ids=["fixint", "nil", "c1", "record", "partial"])
def test_trailing_bytes_after_a_record_are_a_decode_error_at_their_offset(tail: bytes) -> None:
    error = expect_decode_error(ZP.decode, A_SEED + tail)
    assert error.offset == len(A_SEED)
    assert "trailing bytes" in error.reason


def test_decode_all_and_iter_decode_read_trailing_bytes_as_the_next_record() -> None:
    assert ZP.decode_all(A_SEED + COMPOUND_FULL) == [ZP.decode(A_SEED), ZP.decode(COMPOUND_FULL)]
    assert list(ZP.iter_decode(A_SEED + COMPOUND_FULL)) == [ZP.decode(A_SEED), ZP.decode(COMPOUND_FULL)]
    for read in (ZP.decode_all, lambda data: list(ZP.iter_decode(data))):
        error = expect_decode_error(read, A_SEED + b"\x07")
        assert (error.offset, error.path) == (len(A_SEED), "$")
    # a record the input ends inside: decode_all names where the bytes ran out; iter_decode,
    # a stream reader, gives the record before it and a torn tail at the torn record's start
    error = expect_decode_error(ZP.decode_all, A_SEED + A_SEED[:-1])
    assert error.offset == 2 * len(A_SEED) - 1 and not isinstance(error, zebrapack.TornTailError)
    records = ZP.iter_decode(A_SEED + A_SEED[:-1])
    assert next(records) == ZP.decode(A_SEED)
    with pytest.raises(zebrapack.TornTailError) as torn:
        next(records)
    assert torn.value.offset == len(A_SEED)


# -- 3. headers that claim more than the input holds -----------------------------------------

HUGE_HEADERS = {
    "array32": b"\xdd\xff\xff\xff\xff",
    "map32": b"\xdf\xff\xff\xff\xff",
    "str32": b"\xdb\xff\xff\xff\xff",
    "bin32": b"\xc6\xff\xff\xff\xff",
    "ext32": b"\xc9\xff\xff\xff\xff\x05",
}
#: A typed field of zp.z that reads each header's family: (struct, zid).
FIELD_OF = {"array32": ("Compound", 1), "map32": ("Compound", 5), "str32": ("Prims", 0),
            "bin32": ("Prims", 1), "ext32": ("Prims", 18)}
PLACES = {
    "field": lambda kind, header: record(FIELD_OF[kind][0], bytes([FIELD_OF[kind][1]]) + header),
    "unknown-zid": lambda kind, header: record("Inner", b"\x09" + header),
    "interface": lambda kind, header: record("Prims", b"\x13" + header),
    "interface-map-key": lambda kind, header: record("Prims", b"\x13\x81" + header),
    "typed-map-key": lambda kind, header: record("Compound", b"\x05\x81" + header),
}


def peak_allocation(action: Callable[[], object]) -> int:
    """Bytes allocated at the peak of action, above what was allocated before it."""
    action()                                    # caches filled on the first call do not count
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        action()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("kind", HUGE_HEADERS)
def test_header_claiming_4_gib_is_a_decode_error_without_allocating(kind: str, place: str) -> None:
    data = PLACES[place](kind, HUGE_HEADERS[kind]) + bytes(32)

    def attempt() -> None:
        error = expect_decode_error(ZP.decode, data)
        assert error.offset <= len(data)

    assert peak_allocation(attempt) < 64 * 1024


def test_nested_headers_each_claiming_the_rest_allocate_no_more_than_the_input() -> None:
    # Each array32 header claims exactly the bytes after it: locally plausible at every
    # level, impossible all together. Pre-sizing each level would allocate depth x length.
    schema = zebrapack.load(VECTORS / "schemas" / "zp.z", max_depth=100_000)
    depth = 2000
    prefix = record("Prims", b"\x13")                    # Prims.Any, then the nested arrays
    total = len(prefix) + 5 * depth + 1
    nested = b"".join(b"\xdd" + (total - len(prefix) - 5 * (level + 1)).to_bytes(4, "big") for level in range(depth))
    data = prefix + nested + b"\xc0"
    assert len(data) == total
    peak = peak_allocation(lambda: expect_decode_error(schema.decode, data))
    assert peak < 64 * 1024 + 16 * len(data)


# -- 5. the never-used byte ---------------------------------------------------------------------

@pytest.mark.parametrize("case", MANIFEST, ids=case_id)
def test_never_used_byte_at_each_object_of_a_vector_is_a_decode_error_at_that_offset(case: dict[str, Any]) -> None:
    data = vector_bytes(case)
    decode = decoder(case)
    for start in spread(object_starts(data)):
        error = expect_decode_error(decode, data[:start] + b"\xc1" + data[start + 1:])
        assert error.offset == start, (start, error)


@pytest.mark.parametrize("case", [c for c in MANIFEST if len(vector_bytes(c)) < 1024], ids=case_id)
def test_never_used_byte_anywhere_in_a_vector_decodes_or_is_a_decode_error(case: dict[str, Any]) -> None:
    data = vector_bytes(case)
    decode = decoder(case)
    for position in range(len(data)):
        try:
            decode(data[:position] + b"\xc1" + data[position + 1:])
        except DecodeError:
            pass                        # inside a payload 0xc1 is data: it may well decode


# -- 6. UTF-8 ---------------------------------------------------------------------------------------

INVALID_UTF8 = [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"abc\x80"]


@pytest.mark.parametrize("text", INVALID_UTF8, ids=lambda t: t.hex())
def test_invalid_utf8_is_a_decode_error_in_every_str_and_bytes_in_a_bin(text: bytes) -> None:
    as_str = bytes([0xa0 | len(text)]) + text
    as_bin = b"\xc4" + bytes([len(text)]) + text
    for data, path in [
        (record("Prims", b"\x00" + as_str), "Prims.S"),
        (record("Prims", b"\x13" + as_str), "Prims.Any"),
        (record("Prims", b"\x13\x91" + as_str), "Prims.Any[0]"),
        (record("Prims", b"\x13\x81" + as_str + b"\x00"), "Prims.Any[<key>]"),
        (record("Compound", b"\x05\x81" + as_str + b"\x00"), "Compound.SMap[<key>]"),
        (record("Compound", b"\x02\x91" + as_str), "Compound.Strs[0]"),
    ]:
        error = expect_decode_error(ZP.decode, data)
        assert (error.path, error.offset) == (path, data.index(as_str)), data
        assert "UTF-8" in error.reason
    assert ZP.decode(record("Prims", b"\x01" + as_bin)).Bin == text
    assert ZP.decode(record("Prims", b"\x13" + as_bin)).Any == text


# -- 7. type mismatches -----------------------------------------------------------------------------

MISMATCHES = [
    (b"\x91\x00", "$", "a record is a struct map; expected a struct, found array"),
    (record("Inner", b"\x00\xa1x"), "Inner.X", "expected int32, found str"),
    (record("Compound", b"\x09\x92" + record("Inner") + record("Inner", b"\x01\x05")), "Compound.Inners[1].Y",
     "expected string, found positive fixint"),
    (record("Compound", b"\x05\x81\xa1k\xa1v"), "Compound.SMap['k']", "expected int64, found str"),
    (record("Compound", b"\x06\x81\xa1k\xa1v"), "Compound.IMap[<key>]", "expected int64, found str"),
    (record("Compound", b"\x0c\x91\x91\xc3"), "Compound.Matrix[0][0]", "expected int32, found bool"),
    (record("Compound", b"\x07\x93"), "Compound.Nested", "expected struct Inner (a map), found array"),
    (record("Compound", b"\x0b\x81\xa1p" + record("Inner", b"\x00\xcb" + bytes(8))), "Compound.MInner['p'].X",
     "expected int32, found float64"),
    (record("Tree", b"\x03" + record("Tree", b"\x00\x91" + record("Tree", b"\x01\xc2"))), "Tree.Up.Kids[0].Label",
     "expected string, found bool"),
    (record("Prims", b"\x12\xa1t"), "Prims.T", "expected time.Time (ext 5), found str"),
    (record("Prims", b"\x05\xc3"), "Prims.C128", "expected complex128 (ext 4), found bool"),
]


@pytest.mark.parametrize(("data", "path", "reason"), MISMATCHES, ids=[m[1] for m in MISMATCHES])
def test_type_mismatch_names_the_path_and_the_expected_and_found_types(data: bytes, path: str, reason: str) -> None:
    error = expect_decode_error(ZP.decode, data)
    assert (error.path, error.reason) == (path, reason)
    assert str(error).startswith(f"{path}: {reason} (byte offset ")


def test_interface_type_mismatch_names_the_list_position() -> None:
    schema = vector_schema("iface.z")
    data = record("Zoo", b"\x02\x92" + record("Dog") + b"\x07")
    error = expect_decode_error(schema.decode, data)
    assert (error.path, error.offset) == ("Zoo.Flock[1]", len(data) - 1)


# -- 8. recovery ------------------------------------------------------------------------------------


@pytest.mark.parametrize("failure", FAILURES)
def test_after_any_error_the_same_schema_decodes_the_next_record(failure: str) -> None:
    expect_decode_error(ZP.decode, FAILURES[failure])
    for case in MANIFEST:
        if case["schema"] == "zp.z" and "count" not in case and len(vector_bytes(case)) < 4096:
            same(ZP.decode(vector_bytes(case)), expected_value(case, ZP))
    assert ZP.decode_all(A_SEED * 3) == [ZP.decode(A_SEED)] * 3


# -- 9. input buffers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview, lambda data: memoryview(bytearray(data))],
                         ids=["bytes", "bytearray", "memoryview", "memoryview-of-bytearray"])
def test_every_buffer_type_gives_the_same_errors(wrap: Callable[[bytes], Any]) -> None:
    for data in FAILURES.values():
        expected = expect_decode_error(ZP.decode, data)
        error = expect_decode_error(ZP.decode, wrap(data))
        assert (error.path, error.offset, error.reason) == (expected.path, expected.offset, expected.reason)


def test_non_contiguous_memoryview_is_a_buffer_error_everywhere() -> None:
    doubled = bytes(b for byte in A_SEED for b in (byte, 0))
    view = memoryview(doubled)[::2]
    for read in (ZP.decode, ZP.decode_all, lambda data: ZP._decode_at(data, 0)):
        with pytest.raises(BufferError):
            read(view)


def schema_whose_inner_runs(post_init: Callable[[Any], None]) -> zebrapack.Schema:
    """zp.z with a user Inner class whose __post_init__ runs mid-decode."""
    @dataclasses.dataclass(slots=True)
    class Inner:
        X: int = 0
        Y: str = ""

        def __post_init__(self) -> None:
            post_init(self)

    return zebrapack.load(VECTORS / "schemas" / "zp.z", types={"Inner": Inner})


@pytest.mark.parametrize("resize", [lambda b: b.extend(bytes(4096)), lambda b: b.clear(), lambda b: b.__delitem__(slice(0, 8))],
                         ids=["grow", "clear", "shrink"])
def test_bytearray_resized_by_a_post_init_during_decoding_is_refused_not_freed(resize: Callable[[bytearray], None]) -> None:
    data = bytearray(record("Compound", b"\x09\x93" + record("Inner", b"\x00\x01") * 3, b"\x10\xa3end"))
    original = bytes(data)
    schema = schema_whose_inner_runs(lambda _: resize(data))
    error = expect_decode_error(schema.decode, data)
    assert error.path == "Compound.Inners[0]" and "BufferError" in error.reason
    assert bytes(data) == original                  # the buffer stayed as it was, exported
    resize(data)                                    # and is free again after the call
    schema_whose_inner_runs(lambda _: None).decode(original)


def test_memoryview_released_by_a_post_init_during_decoding_is_refused() -> None:
    view = memoryview(bytearray(record("Compound", b"\x07" + record("Inner", b"\x00\x01"))))
    schema = schema_whose_inner_runs(lambda _: view.release())
    error = expect_decode_error(schema.decode, view)
    assert "BufferError" in error.reason
    view.release()


def test_decoding_reentered_from_a_post_init_keeps_each_call_apart() -> None:
    inner_records = []
    schema = schema_whose_inner_runs(lambda _: inner_records.append(schema.decode(A_SEED)))
    outer = schema.decode(record("Compound", b"\x09\x92" + record("Inner", b"\x00\x01") + record("Inner", b"\x00\x02")))
    assert [inner.X for inner in outer.Inners] == [1, 2]
    assert inner_records == [schema.decode(A_SEED)] * 3     # the two Inners and the zero Nested
    with pytest.raises(DecodeError) as caught:
        schema.decode(record("Compound", b"\x09\x92" + record("Inner") + record("Inner", b"\x00\xa1x")))
    assert caught.value.path == "Compound.Inners[1].X"


def test_iter_decode_holds_its_bytearray_until_the_iteration_ends() -> None:
    data = bytearray(A_SEED * 2)
    records = ZP.iter_decode(data)
    next(records)
    with pytest.raises(BufferError):
        data.extend(b"x")
    assert len(list(records)) == 1
    del records
    data.extend(b"x")


def test_header_lengths_are_read_big_endian_and_unsigned() -> None:
    # A str16 / array16 / map16 length above 0x7fff must not turn negative.
    text = "x" * 0x8000
    data = record("Prims", b"\x00\xda" + struct.pack(">H", 0x8000) + text.encode())
    assert ZP.decode(data).S == text
    ints = record("Compound", b"\x01\xdc" + struct.pack(">H", 0x8000) + bytes(0x8000))
    assert ZP.decode(ints).Ints == [0] * 0x8000
