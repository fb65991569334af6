"""msgp.Raw and msgp.Number in Arrow (docs/mapping.md): a Raw column is binary with
extension ``zebrapack.msgpack`` and metadata ``msgp.Raw`` (not nullable: nil reads as
empty bytes, as decode gives it); a Number column is
``struct<int: int64, uint: uint64, float32, float64>`` with extension
``zebrapack.number``, the part of the wire family holding the value. The writer takes
those columns back, and a plain numeric column for a Number (its Arrow type saying the
family); it checks what the encoder checks."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

import zebrapack
import zebrapack.arrow
from zebrapack import GoFloat32, GoUint64

from support.engines import engine
from support.vectors import TESTS

pa = engine("pyarrow")
RAWNUM = zebrapack.schema_from_go(TESTS / "schemas" / "rawnum.go")
Holder = RAWNUM.types.Holder
PARTS = ("int", "uint", "float32", "float64")
#: A Holder with only its Raw (nil) and Number entries, as the writer writes a table of one Num column.
HEAD = bytes.fromhex("83ffa6486f6c64657200c001")


def read(data: bytes, strict: bool = False) -> Any:
    return pa.RecordBatchReader.from_stream(zebrapack.arrow.read(data, RAWNUM, "Holder", strict=strict)).read_all()


def write(table: Any) -> bytes:
    out = io.BytesIO()
    zebrapack.arrow.write(table, out, RAWNUM, "Holder")
    return out.getvalue()


def number(**parts: Any) -> Any:
    types = {"int": pa.int64(), "uint": pa.uint64(), "float32": pa.float32(), "float64": pa.float64()}
    return pa.StructArray.from_arrays([pa.array([parts.get(name)], types[name]) for name in PARTS], names=list(PARTS))


VALUES = [
    Holder(Raw=b"\x92\x01\xa1a", Num=GoUint64(2**64 - 1), Nums=[1, GoUint64(200), GoFloat32(1.5), 2.5, -7],
           Raws=[b"\x01", b"\xc7\x01\x09\x90"], ByName={"a": b"\xa1x"}, MaybeNum=-3, Label="x"),
    Holder(),
    Holder(Num=GoFloat32(-0.25), MaybeNum=GoUint64(1 << 63)),
]


def test_the_reader_gives_raw_and_number_their_extension_types() -> None:
    schema = read(RAWNUM.encode(Holder())).schema
    raw, num = schema.field("Raw"), schema.field("Num")
    assert raw.type == pa.binary() and not raw.nullable
    assert raw.metadata == {b"ARROW:extension:name": b"zebrapack.msgpack", b"ARROW:extension:metadata": b"msgp.Raw"}
    assert [f.name for f in num.type] == list(PARTS) and not num.nullable
    assert [f.type for f in num.type] == [pa.int64(), pa.uint64(), pa.float32(), pa.float64()]
    assert num.metadata[b"ARROW:extension:name"] == b"zebrapack.number"
    assert schema.field("MaybeNum").nullable and schema.field("Nums").type.value_type == num.type


def test_a_number_reads_into_the_part_of_its_wire_family() -> None:
    row = read(RAWNUM.encode(VALUES[0])).to_pylist()[0]
    assert row["Raw"] == b"\x92\x01\xa1a" and row["Raws"] == [b"\x01", b"\xc7\x01\x09\x90"]
    assert row["Num"] == {"int": None, "uint": 2**64 - 1, "float32": None, "float64": None}
    assert [next(name for name in PARTS if n[name] is not None) for n in row["Nums"]] == [
        "int", "uint", "float32", "float64", "int"]
    assert row["MaybeNum"] == {"int": -3, "uint": None, "float32": None, "float64": None}
    empty = read(RAWNUM.encode(Holder())).to_pylist()[0]
    assert (empty["Raw"], empty["Num"], empty["MaybeNum"]) == (b"", {"int": 0, "uint": None, "float32": None,
                                                                     "float64": None}, None)


def test_raw_and_number_columns_write_back_byte_for_byte() -> None:
    data = b"".join(RAWNUM.encode(value) for value in VALUES)
    assert write(read(data)) == data


def test_a_nil_number_is_zero_to_a_lenient_reader_and_an_error_to_a_strict_one() -> None:
    data = HEAD + b"\xc0"
    assert read(data).to_pylist()[0]["Num"] == {"int": 0, "uint": None, "float32": None, "float64": None}
    with pytest.raises(pa.ArrowInvalid, match=r"Holder.Num: expected msgp.Number \(strict\), found nil"):
        read(data, strict=True)


@pytest.mark.parametrize(("column", "wire"), [
    (pa.array([5, -1], pa.int64()), "05" + HEAD.hex() + "ff"),
    (pa.array([5], pa.uint64()), "05"),                   # below 128 a GoUint64 is a fixint, as Go writes it
    (pa.array([2**64 - 1], pa.uint64()), "cfffffffffffffffff"),
    (pa.array([1.5], pa.float32()), "ca3fc00000"),
    (pa.array([1.5], pa.float64()), "cb3ff8000000000000"),
    (pa.array([5], pa.int8()), "05"),
])
def test_a_plain_numeric_column_writes_a_number_of_its_family(column: Any, wire: str) -> None:
    assert write(pa.table({"Num": column})).hex() == HEAD.hex() + wire


@pytest.mark.parametrize(("column", "message"), [
    (number(int=1, uint=2), "holds 2 of its parts"),
    (number(), "holds 0 of its parts"),
    (pa.array([None], pa.int64()), "expected msgp.Number, got null"),
])
def test_a_number_column_must_say_one_value(column: Any, message: str) -> None:
    with pytest.raises(zebrapack.EncodeError, match=f"row 0, Holder.Num: .*{message}"):
        write(pa.table({"Num": column}))


@pytest.mark.parametrize(("raw", "message"), [
    (b"\x01\x02", r"1 bytes after the value \(at byte 1\)"),
    (b"\x92\x01", "input ends inside a value"),
])
def test_a_raw_column_must_hold_exactly_one_value(raw: bytes, message: str) -> None:
    with pytest.raises(zebrapack.EncodeError, match=f"row 0, Holder.Raw: msgp.Raw must hold exactly one msgpack "
                                                    f"value: {message}"):
        write(pa.table({"Raw": pa.array([raw])}))


def test_an_empty_raw_column_value_is_nil_and_a_string_column_is_refused() -> None:
    assert write(pa.table({"Raw": pa.array([b""])})) == HEAD + b"\x00"     # the Number, never empty, is 0
    with pytest.raises(zebrapack.EncodeError, match="Arrow format 'u' cannot be written as msgp.Raw"):
        write(pa.table({"Raw": pa.array(["x"])}))


def test_a_number_column_whose_part_holds_fewer_values_than_rows_is_refused_by_name() -> None:
    from .hostile import Crafted, column
    batch = pa.RecordBatch.from_pydict({"Num": number(uint=5)})

    def short_uint_part(root: Any, keep: list[Any]) -> None:
        column(root).children[1].contents.length = 0

    with pytest.raises(zebrapack.EncodeError, match=re.escape(
            "Holder.Num.uint: an array of 0 values where 1 are needed (invalid Arrow data)")):
        zebrapack.arrow.write(Crafted(batch, short_uint_part), io.BytesIO(), RAWNUM, "Holder")
