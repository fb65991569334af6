"""The reader's fast appenders (zp_arrow_read.h) at their edges: every value they take
reads as decode reads it, and every value they leave to the general reader (the first
one past each encoding band, an invalid one inside a run of good ones) gives the same
table or the same error as before. Records come in runs long enough to cross the bulk
reservations (64 rows, then doubling) and the batch ends, so the room kept per column
is exercised where it is made and where it is handed over."""

from __future__ import annotations

import struct
from typing import Any

import pytest

import zebrapack
import zebrapack.arrow as zpa
from zebrapack import DecodeError

from support.engines import engine
from support.go_schemas import schema_from_go_text
from .checks import assert_refused_as_expected
from .oracle import assert_same_table, expected_read, validate_full

pa = engine("pyarrow")

GO_SCHEMA = """package fast

import "time"

type F struct {
	S   string    `zid:"0"`
	B   []byte    `zid:"1"`
	I8  int8      `zid:"2"`
	I16 int16     `zid:"3"`
	I32 int32     `zid:"4"`
	I64 int64     `zid:"5"`
	U8  uint8     `zid:"6"`
	U16 uint16    `zid:"7"`
	U32 uint32    `zid:"8"`
	U64 uint64    `zid:"9"`
	F32 float32   `zid:"10"`
	F64 float64   `zid:"11"`
	T   time.Time `zid:"12"`
	Ok  bool      `zid:"13"`
	PS  *string   `zid:"14"`
	PI  *int64    `zid:"15"`
}

type W struct {
%s
}
""" % "\n".join(f"\tX{i} int64 `zid:\"{i}\"`" for i in range(70))

FIELDS = ["S", "B", "I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "F32", "F64", "T", "Ok", "PS", "PI"]
ZID = {name: zid for zid, name in enumerate(FIELDS)}


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, GO_SCHEMA, "fast")


# -- msgpack by hand: the encodings chosen, not the shortest ------------------------------

def fixint(v: int) -> bytes:
    return struct.pack(">b", v) if v < 0 else bytes([v])


def wire_int(v: int, code: int) -> bytes:
    fmt = {0xcc: ">B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q", 0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q"}[code]
    return bytes([code]) + struct.pack(fmt, v)


def wire_str(raw: bytes, family: str = "str") -> bytes:
    n = len(raw)
    if family == "bin":
        head = bytes([0xc4, n]) if n < 256 else b"\xc5" + struct.pack(">H", n)
    elif n < 32:
        head = bytes([0xa0 | n])
    elif n < 256:
        head = bytes([0xd9, n])
    else:
        head = b"\xda" + struct.pack(">H", n)
    return head + raw


def str8(raw: bytes) -> bytes:
    return bytes([0xd9, len(raw)]) + raw


def go_time(seconds: int, nanos: int) -> bytes:
    return b"\xc7\x0c\x05" + struct.pack(">qi", seconds, nanos)


def record(entries: list[tuple[int, bytes]], name: bytes | None = b"F") -> bytes:
    body = b"".join(fixint(zid) + value for zid, value in entries)
    count = len(entries) + (name is not None)
    head = bytes([0x80 | count]) if count < 16 else b"\xde" + struct.pack(">H", count)
    return head + (b"\xff" + wire_str(name) if name is not None else b"") + body


def full(**values: bytes) -> bytes:
    """A record of F with every field (zero-ish defaults), some given."""
    defaults = dict(S=b"\xa1s", B=b"\xc4\x01b", I8=b"\x01", I16=b"\x02", I32=b"\x03", I64=b"\x04", U8=b"\x05",
                    U16=b"\x06", U32=b"\x07", U64=b"\x08", F32=b"\xca" + struct.pack(">f", 1.5),
                    F64=b"\xcb" + struct.pack(">d", 2.5), T=go_time(1_700_000_000, 5000), Ok=b"\xc3",
                    PS=b"\xc0", PI=b"\xc0")
    defaults.update(values)
    return record([(ZID[name], value) for name, value in defaults.items()])


def read(schema: zebrapack.Schema, data: bytes, type_name: str = "F", **options: Any) -> Any:
    stream = zpa.read(data, schema, type_name, **options)
    return pa.Table.from_batches(validate_full(stream), schema=stream.schema)


def check(schema: zebrapack.Schema, data: bytes, type_name: str = "F", time_unit: str = "ns",
          strict: bool = False) -> None:
    """The oracle's table (decode's values) or its error, in one batch and in batches of 7."""
    expected = expected_read(schema, data, type_name, time_unit=time_unit, strict=strict)
    for batch_rows in (65536, 7):
        if expected.table is None:
            with pytest.raises(DecodeError) as refused:
                read(schema, data, type_name, time_unit=time_unit, strict=strict, batch_rows=batch_rows)
            assert_refused_as_expected(refused.value, expected, data)
        else:
            assert_same_table(read(schema, data, type_name, time_unit=time_unit, strict=strict,
                                   batch_rows=batch_rows), expected.table)


# -- strings and blobs ----------------------------------------------------------------------

NON_ASCII = ["é".encode(), "日".encode(), "😀".encode()]


def test_strings_of_every_length_and_header_read_as_decode_reads_them(schema: zebrapack.Schema) -> None:
    lengths = list(range(0, 41)) + [63, 64, 65, 255, 256, 1000]
    data = b"".join(full(S=wire_str(bytes(65 + i % 26 for i in range(n))), B=wire_str(bytes(range(n % 256)) * 1, "bin"))
                    for n in lengths)
    data += b"".join(full(S=str8(b"x" * n)) for n in range(0, 32))     # str8 where a fixstr would do
    check(schema, data)


@pytest.mark.parametrize("char", NON_ASCII, ids=["2-byte", "3-byte", "4-byte"])
def test_a_non_ascii_character_anywhere_in_a_string_reads_as_decode_reads_it(schema: zebrapack.Schema,
                                                                              char: bytes) -> None:
    data = b""
    for n in (1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 40):
        for at in range(n + 1):
            text = b"a" * at + char + b"b" * (n - at)
            data += full(S=wire_str(text), PS=wire_str(text))
    check(schema, data)


@pytest.mark.parametrize("length", [1, 5, 8, 12, 16, 23, 31, 40])
def test_invalid_utf8_inside_a_run_of_good_strings_names_the_record_path_and_position(schema: zebrapack.Schema,
                                                                                       length: int) -> None:
    for at in sorted({0, length // 2, length - 1}):
        bad = bytearray(b"q" * length)
        bad[at] = 0xff
        good = b"".join(full(S=wire_str(b"ok" * (i % 20))) for i in range(70))
        data = good + full(S=wire_str(bytes(bad)))
        with pytest.raises(DecodeError) as refused:
            read(schema, data)
        message = str(refused.value)
        assert "record 70" in message and "F.S" in message, message
        assert f"invalid UTF-8 in a str: byte 0xff at position {at}" in message, message
        check(schema, data)


def test_a_truncated_string_after_good_records_is_a_torn_tail(schema: zebrapack.Schema) -> None:
    good = b"".join(full() for _ in range(100))
    cut = full(S=wire_str(b"z" * 20))
    for end in (1, 5, len(cut) - 10, len(cut) - 1):
        check(schema, good + cut[:end])


# -- integers, floats, bools, times ----------------------------------------------------------

BANDS = {
    "I8": (-128, 127), "I16": (-32768, 32767), "I32": (-2**31, 2**31 - 1), "I64": (-2**63, 2**63 - 1),
    "U8": (0, 255), "U16": (0, 65535), "U32": (0, 2**32 - 1), "U64": (0, 2**64 - 1),
}
CODES = {0xcc: (0, 255), 0xcd: (0, 65535), 0xce: (0, 2**32 - 1), 0xcf: (0, 2**64 - 1),
         0xd0: (-128, 127), 0xd1: (-32768, 32767), 0xd2: (-2**31, 2**31 - 1), 0xd3: (-2**63, 2**63 - 1)}


def _encodings(value: int) -> list[bytes]:
    out = [wire_int(value, code) for code, (low, high) in CODES.items() if low <= value <= high]
    if -32 <= value <= 127:
        out.append(fixint(value))
    return out


@pytest.mark.parametrize("name", sorted(BANDS))
def test_integers_at_each_band_edge_in_every_encoding_read_or_refuse_as_decode(schema: zebrapack.Schema,
                                                                             name: str) -> None:
    low, high = BANDS[name]
    edges = {0, 1, 127, 128, -32, -33, -1, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**32,
             2**63 - 1, 2**63, 2**64 - 1, -128, -129, -32768, -32769, -2**31, -2**31 - 1, -2**63, low, high}
    fits = [v for v in sorted(edges) if low <= v <= high]
    data = b"".join(full(**{name: wire}) for value in fits for wire in _encodings(value))
    check(schema, data)
    check(schema, data, strict=True)
    for value in sorted(edges - set(fits)):         # the first values out of range: refused, as before
        for wire in _encodings(value):
            check(schema, data + full(**{name: wire}))


@pytest.mark.parametrize("name", ["I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64"])
def test_integers_within_8_bytes_of_the_input_end_read_as_in_its_middle(schema: zebrapack.Schema,
                                                                       name: str) -> None:
    """The appender loads 8 bytes at once (zp_load_int_family8) and leaves an integer
    with fewer after it to the general reader: each encoding, then 0 to 9 bytes."""
    low, high = BANDS[name]
    values = sorted({low, high, low // 3, high // 3, 1})
    for after in range(10):
        for value in values:
            for wire in _encodings(value):
                # the field last in its record, then `after` empty records of one byte
                data = record([(ZID[name], wire)], name=None) + b"\x80" * after
                table = read(schema, data)
                assert table.column(name).to_pylist() == [value] + [0] * after
                check(schema, data)


def test_floats_bools_and_pointers_in_runs_with_nulls_across_bitmap_bytes(schema: zebrapack.Schema) -> None:
    data = b""
    for i in range(200):
        data += full(F32=b"\xca" + struct.pack(">f", i / 4),
                     F64=(b"\xca" + struct.pack(">f", i / 8)) if i % 3 == 0 else (b"\xcb" + struct.pack(">d", i / 3)),
                     Ok=b"\xc3" if i % 5 else b"\xc2",
                     PS=b"\xc0" if i % 7 == 0 else wire_str(b"p%d" % i),
                     PI=b"\xc0" if i % 3 == 1 else fixint(i % 100))
    check(schema, data)
    # a float64 where a float32 field is: the general reader's (exact: taken; inexact: refused)
    check(schema, data + full(F32=b"\xcb" + struct.pack(">d", 0.5)))
    check(schema, data + full(F32=b"\xcb" + struct.pack(">d", 0.1)))
    check(schema, data + full(F32=b"\xcb" + struct.pack(">d", 0.5)), strict=True)
    check(schema, data + full(Ok=b"\x01"))


@pytest.mark.parametrize("unit", ["ns", "us"])
def test_times_at_the_edges_of_each_unit_read_or_refuse_as_decode(schema: zebrapack.Schema, unit: str) -> None:
    zero = -62135596800
    times = [(0, 0), (1_700_000_000, 123_456_000), (-1, 999_999_000), (9_223_372_036, 854_775_000),
             (9_223_372_036, 854_775_808), (-9_223_372_037, 0), (zero, 0), (zero, 1000), (253402300799, 0)]
    data = b"".join(full(T=go_time(s, n)) for _ in range(10) for s, n in times[:4])
    check(schema, data, time_unit=unit)
    for seconds, nanos in times[4:] + [(5, 1), (5, 1_000_000_000), (5, -1)]:
        check(schema, data + full(T=go_time(seconds, nanos)), time_unit=unit)


# -- the struct map -----------------------------------------------------------------------------

def test_fields_given_twice_absent_or_in_any_order_read_as_decode_reads_them(schema: zebrapack.Schema) -> None:
    runs = [
        [(0, wire_str(b"first")), (0, wire_str(b"second"))],
        [(5, b"\x01"), (0, wire_str(b"a")), (5, b"\x02")],
        [(13, b"\xc3"), (13, b"\xc2"), (14, wire_str(b"x")), (14, b"\xc0")],
        [],
        [(99, b"\x05"), (0, wire_str(b"after an unknown zid"))],
        [(12, go_time(1, 0)), (12, go_time(-62135596800, 0))],
    ]
    data = b"".join(record(entries, name) for i in range(30) for entries in runs for name in (b"F", None)
                    if i % 2 == 0 or entries)
    check(schema, data)
    check(schema, data, strict=True)


def test_a_struct_of_more_than_64_fields_keeps_duplicates_and_absences_past_the_64th(
        schema: zebrapack.Schema) -> None:
    rows = []
    for i in range(150):
        entries = [(zid, fixint(zid % 100) if zid < 128 else b"") for zid in range(70) if (zid + i) % 4]
        entries += [(69, fixint(i % 50)), (3, fixint(i % 30)), (66, wire_int(i, 0xd3))]     # twice: the last counts
        rows.append(record(entries, b"W" if i % 2 else None))
    check(schema, b"".join(rows), "W")


def test_a_struct_name_that_is_not_the_struct_is_refused_after_good_records(schema: zebrapack.Schema) -> None:
    good = b"".join(full() for _ in range(80))
    check(schema, good + record([(0, wire_str(b"x"))], b"G"))
    check(schema, good + record([(0, wire_str(b"x"))], b"FF"))
