"""The lanes of zpa.write's struct writer (an op per column, room made once per struct, a
chunk written straight into its bytes object, UTF-8 of a string column checked in blocks):
every edge writes what encode writes and refuses what it refuses, at the same row."""

from __future__ import annotations

import array
import io
import random
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

import zebrapack
from zebrapack import EncodeError, examples

from support.engines import engine
from .writing import encoded, table_of, written

pa = engine("pyarrow")

#: The writer checks a string column's bytes in blocks of this many (UTF8_BLOCK in _arrow_write.pxi).
BLOCK = 1 << 16
UTC = timezone.utc


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return zebrapack.load(examples.SCHEMA)


def _strings(data: bytes, ends: list[int], large: bool = False) -> Any:
    """A string column over data (not checked by pyarrow): value k is data[ends[k-1]:ends[k]]."""
    offsets = [0, *ends]
    width = "q" if large else "i"
    return pa.Array.from_buffers(pa.large_string() if large else pa.string(), len(ends),
                                 [None, pa.py_buffer(array.array(width, offsets).tobytes()), pa.py_buffer(data)])


def _refused(data: Any, schema: zebrapack.Schema, match: str, **options: Any) -> EncodeError:
    with pytest.raises(EncodeError, match=match) as info:
        zebrapack.arrow.write(data, io.BytesIO(), schema, "A", **options)
    return info.value


TEXTS = ["", "a", "Ann", "x" * 31, "y" * 32, "z" * 255, "w" * 256, "é", "çà", "日本語", "한국", "🙂 ok", "a🙂",
         "\u07ff\u0800\uffff\U00010000\U0010ffff"]


@pytest.mark.parametrize("large", [False, True])
def test_strings_of_every_alphabet_and_header_width_across_blocks_write_as_encode(zp: zebrapack.Schema,
                                                                                  large: bool) -> None:
    rng = random.Random(26)
    names = [rng.choice(TEXTS) + rng.choice(TEXTS) for _ in range(12_000)]     # over two blocks of UTF-8
    names[5_000] = "長" * 30_000             # one value longer than a block
    A = zp.types.A
    records = [A(Name=name, Phone=name[::-1]) for name in names]
    kind = pa.large_string() if large else pa.string()
    table = pa.table({"Name": pa.array(names, kind), "Phone": pa.array([name[::-1] for name in names], kind)})
    assert sum(len(name.encode()) for name in names) > 3 * BLOCK
    assert written(table, zp, "A") == encoded(zp, records)
    # a slice starts its offsets (and its checked part) inside the data
    assert written(table.slice(7_001, 3_000), zp, "A") == encoded(zp, records[7_001:10_001])
    assert written(table, zp, "A", chunk_bytes=1000) == encoded(zp, records)


def test_a_character_split_between_two_values_is_refused_at_the_first(zp: zebrapack.Schema) -> None:
    # "é" is c3 a9: each value alone is invalid, the two together are not
    column = _strings(b"ab\xc3\xa9cd", [3, 6])
    _refused(pa.table({"Name": column}), zp, re.escape("row 0, A.Name: invalid UTF-8 in a string"))
    column = _strings(b"abc\xa9cd", [3, 6])
    _refused(pa.table({"Name": column}), zp, re.escape("row 1, A.Name: invalid UTF-8 in a string"))
    column = _strings(b"ab\xe6\x97\xa5cd", [4, 7])            # a three-byte character cut after two
    _refused(pa.table({"Name": column}), zp, re.escape("row 0, A.Name: invalid UTF-8 in a string"))


@pytest.mark.parametrize("bad", [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe6\x97"])
@pytest.mark.parametrize("where", [0, BLOCK - 2, BLOCK + 5, 3 * BLOCK + 1])
def test_invalid_utf8_anywhere_in_a_column_names_its_row_after_the_rows_before(zp: zebrapack.Schema,
                                                                               bad: bytes, where: int) -> None:
    word = b"0123456789"
    rows = where // len(word) + 1
    data = bytearray(word * rows)
    ends = [len(word) * (k + 1) for k in range(rows)]
    row = min(where // len(word), rows - 1)
    data[len(word) * row + 2:len(word) * row + 2] = bad     # inside row `row`
    ends = [end + (len(bad) if k >= row else 0) for k, end in enumerate(ends)]
    ends.append(ends[-1] + 3)
    data += "日本".encode()[:3]
    column = _strings(bytes(data), ends)
    out = io.BytesIO()
    with pytest.raises(EncodeError, match=re.escape(f"row {row}, A.Name: invalid UTF-8 in a string")):
        zebrapack.arrow.write(pa.table({"Name": column}), out, zp, "A", chunk_bytes=4096)
    # a file object keeps the chunks written before the refused row: records of the rows before it
    kept = out.getvalue()
    before = encoded(zp, [zp.types.A(Name=(word * 1).decode())] * row)
    assert before.startswith(kept)


def test_a_value_past_the_checked_block_of_invalid_data_is_checked_alone(zp: zebrapack.Schema) -> None:
    # the block check stops at the first invalid byte (row 1); a later valid row is not reached
    column = _strings(b"ok" + b"\xff" + b"fine", [2, 3, 7])
    _refused(pa.table({"Name": column}), zp, re.escape("row 1, A.Name: invalid UTF-8 in a string"))


@pytest.mark.parametrize("size", [0, 1, 16, 17, 65_535, 65_536, 1 << 17, (1 << 20) + 3])
def test_a_value_beyond_the_chunk_bound_grows_the_chunk(zp: zebrapack.Schema, size: int) -> None:
    A = zp.types.A
    names = ["a", "é" * (size // 2) + "x" * (size % 2), "b", "c" * size, ""]
    records = [A(Name=name, Sibs=k) for k, name in enumerate(names)]
    table = pa.table({"Name": names, "Sibs": pa.array(range(len(names)), pa.int64())})
    for chunk_bytes in (1, 100, 1 << 20):
        assert written(table, zp, "A", chunk_bytes=chunk_bytes) == encoded(zp, records)


def test_zero_values_at_each_lane_are_left_out_and_the_others_written(zp: zebrapack.Schema) -> None:
    A = zp.types.A
    go_zero = datetime(1, 1, 1, tzinfo=UTC)
    records = [A(), A(Name="", Sibs=0, GPA=0.0, Friend=False, Bday=go_zero),
               A(GPA=-0.0), A(GPA=float("nan")), A(GPA=float("inf")), A(GPA=5e-324),
               A(Sibs=-1), A(Sibs=2**63 - 1), A(Sibs=-2**63), A(Sibs=127), A(Sibs=128), A(Sibs=-32), A(Sibs=-33),
               A(Friend=True),
               A(Bday=datetime(1970, 1, 1, tzinfo=UTC)),
               A(Bday=datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)),
               A(Bday=datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)),
               A(Bday=go_zero + timedelta(microseconds=1))]
    for unit in ("s", "ms", "us", "ns"):
        whole = {"s": 1_000_000, "ms": 1000}.get(unit, 1)
        kept = [r for r in records if r.Bday is None or r.Bday == go_zero
                or r.Bday.microsecond % whole == 0 and (unit != "ns" or r.Bday.year in (1969, 1970))]
        for options in ({}, {"mode": "msgp"}, {"structnames": False}):
            table = table_of(pa, zp, kept, "A", time_unit="ns" if unit == "ns" else "us", **options)
            if whole > 1:
                index = table.schema.get_field_index("Bday")
                table = table.set_column(index, "Bday", table.column(index).cast(pa.timestamp(unit, "UTC")))
            assert written(table, zp, "A", **options) == encoded(zp, kept, **options)


@pytest.mark.parametrize("arrow_type", [pa.int8(), pa.int16(), pa.int32(), pa.uint8(), pa.uint16(), pa.uint32(),
                                        pa.uint64()])
def test_an_int_field_from_every_integer_width(zp: zebrapack.Schema, arrow_type: Any) -> None:
    A = zp.types.A
    info = {pa.int8(): (-128, 127), pa.int16(): (-32768, 32767), pa.int32(): (-2**31, 2**31 - 1),
            pa.uint8(): (0, 255), pa.uint16(): (0, 65535), pa.uint32(): (0, 2**32 - 1),
            pa.uint64(): (0, 2**63 - 1)}[arrow_type]
    values = [info[0], info[1], 0, 1, info[0] // 2]
    table = pa.table({"Sibs": pa.array(values, arrow_type)})
    assert written(table, zp, "A") == encoded(zp, [A(Sibs=v) for v in values])
    if arrow_type == pa.uint64():
        _refused(pa.table({"Sibs": pa.array([1, 2**63], arrow_type)}), zp,
                 re.escape("row 1, A.Sibs: 9223372036854775808 is outside the range of int"))


def test_nulls_among_values_of_pointer_and_time_fields(zp: zebrapack.Schema) -> None:
    Compound = zp.types.Compound
    pints = [None, 0, 5, None, -1]
    table = pa.table({"PInt": pa.array(pints, pa.int64()), "Shown": pa.array([0, 1, 0, 2, 3], pa.int64()),
                      "Renamed": pa.array(["", "r", "", "s", ""])})
    records = [Compound(PInt=p, Shown=s, Renamed=r) for p, s, r in zip(pints, [0, 1, 0, 2, 3], ["", "r", "", "s", ""])]
    assert written(table, zp, "Compound") == encoded(zp, records)
    A = zp.types.A
    bdays = [None, datetime(2000, 1, 1, tzinfo=UTC), None]
    table = pa.table({"Bday": pa.array(bdays, pa.timestamp("us", "UTC")), "Name": ["a", "b", "c"]})
    assert written(table, zp, "A") == encoded(zp, [A(Name=n, Bday=b or datetime(1, 1, 1, tzinfo=UTC))
                                                   for n, b in zip("abc", bdays)])


def test_rows_the_lanes_leave_among_rows_they_write_across_chunks(zp: zebrapack.Schema) -> None:
    # nulls (a pointer's nil, a time field's zero) and zero values here and there: each row
    # the lanes leave is written whole by the general path, the runs around it by the lanes
    rng = random.Random(7)
    A = zp.types.A
    rows = 3000
    names = [rng.choice(["", "a", "日本", "x" * 40]) for _ in range(rows)]
    bdays = [None if rng.random() < 0.1 else datetime(2000, 1, 1, tzinfo=UTC) + timedelta(seconds=k)
             for k in range(rows)]
    sibs = [rng.choice([0, 1, -5, 2**40]) for _ in range(rows)]
    table = pa.table({"Name": names, "Bday": pa.array(bdays, pa.timestamp("us", "UTC")),
                      "Sibs": pa.array(sibs, pa.int64()), "Friend": [k % 3 == 0 for k in range(rows)]})
    records = [A(Name=n, Bday=b or datetime(1, 1, 1, tzinfo=UTC), Sibs=s, Friend=k % 3 == 0)
               for k, (n, b, s) in enumerate(zip(names, bdays, sibs))]
    for chunk_bytes in (1, 700, 1 << 20):
        assert written(table, zp, "A", chunk_bytes=chunk_bytes) == encoded(zp, records)
    assert written(table.slice(1001, 999), zp, "A", chunk_bytes=300) == encoded(zp, records[1001:2000])


def test_a_sliced_struct_array_writes_its_own_rows(zp: zebrapack.Schema) -> None:
    # the root's own offset (an array through __arrow_c_array__) applies to every column
    A = zp.types.A
    names = ["a", "日本", "", "x" * 300, "b", "c", "é", "d"]
    records = [A(Name=n, Sibs=k, Friend=k % 2 == 1) for k, n in enumerate(names)]
    table = table_of(pa, zp, records, "A")
    array = pa.StructArray.from_arrays([table.column(name).combine_chunks() for name in table.column_names],
                                       fields=list(table.schema))
    for start, length in ((0, 8), (3, 4), (7, 1), (2, 0)):
        assert written(array.slice(start, length), zp, "A") == encoded(zp, records[start:start + length])
