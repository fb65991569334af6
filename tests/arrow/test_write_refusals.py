"""zpa.write refuses what encode refuses: an EncodeError naming the row (counted from
the stream's first row) and the column path; columns the struct lacks, and Arrow
types that cannot hold a field's values, before anything is written."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

import zebrapack
from zebrapack import EncodeError, examples

from support.engines import engine
from .writing import interface_bytes, written

pa = engine("pyarrow")


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return zebrapack.load(examples.SCHEMA)


def refused(data: Any, schema: zebrapack.Schema, type: str, match: str, **options: Any) -> EncodeError:
    with pytest.raises(EncodeError, match=match) as info:
        zebrapack.arrow.write(data, io.BytesIO(), schema, type, **options)
    return info.value


def test_an_integer_outside_the_fields_range_names_row_and_column(zp: zebrapack.Schema) -> None:
    table = pa.table({"I8": pa.array([1, -128, 128], pa.int64())})
    error = refused(table, zp, "Prims", re.escape("row 2, Prims.I8: 128 is outside the range of int8 (-128..127)"))
    assert error.row == 2 and error.column == "Prims.I8"
    refused(pa.table({"U8": pa.array([-1], pa.int16())}), zp, "Prims", re.escape("row 0, Prims.U8: -1 is outside"))
    refused(pa.table({"I64": pa.array([2**63], pa.uint64())}), zp, "Prims", "9223372036854775808 is outside")


def test_the_row_number_counts_from_the_first_batch(zp: zebrapack.Schema) -> None:
    good = pa.record_batch({"I8": pa.array([1, 2], pa.int16())})
    bad = pa.record_batch({"I8": pa.array([3, 300], pa.int16())})
    reader = pa.RecordBatchReader.from_batches(good.schema, [good, good, bad])
    refused(reader, zp, "Prims", re.escape("row 5, Prims.I8: 300 is outside"))


def test_a_null_where_the_field_has_no_nil_is_refused(zp: zebrapack.Schema) -> None:
    refused(pa.table({"Name": pa.array(["a", None])}), zp, "A", re.escape("row 1, A.Name: expected string, got null"))
    refused(pa.table({"Ints": pa.array([[1], None], pa.list_(pa.int64()))}), zp, "Compound",
            re.escape("row 1, Compound.Ints: expected []int64, got null"))
    refused(pa.table({"Ints": pa.array([[1, None]], pa.list_(pa.int64()))}), zp, "Compound",
            re.escape("row 0, Compound.Ints[1]: expected int64, got null"))
    times = pa.array([[None]], pa.list_(pa.timestamp("us", "UTC")))
    refused(pa.table({"Times": times}), zp, "Compound",
            re.escape("row 0, Compound.Times[0]: expected time.Time, got null (None is only allowed for a time field"))
    nested = pa.array([{"X": 1, "Y": None}], pa.struct([("X", pa.int32()), ("Y", pa.string())]))
    refused(pa.table({"Inners": pa.array([[{"X": 1, "Y": "a"}, {"X": 2, "Y": None}]],
                                         pa.list_(nested.type))}), zp, "Compound",
            re.escape("row 0, Compound.Inners[1].Y: expected string, got null"))
    refused(pa.table({"Nested": pa.array([None], nested.type)}), zp, "Compound",
            re.escape("row 0, Compound.Nested: expected Inner, got null"))


def test_fixed_sizes_are_checked_per_value(zp: zebrapack.Schema) -> None:
    refused(pa.table({"ByteArr": pa.array([b"abcd", b"abc"])}), zp, "Compound",
            re.escape("row 1, Compound.ByteArr: expected [4]byte: 4 bytes, got 3"))
    refused(pa.table({"Arr": pa.array([[1.0, 2.0]], pa.list_(pa.float64()))}), zp, "Compound",
            re.escape("row 0, Compound.Arr: expected [3]float64: 3 elements, got 2"))
    refused(pa.table({"ByteArr": pa.array([b"abc"], pa.binary(3))}), zp, "Compound",
            re.escape("Compound.ByteArr: expected [4]byte: 4 bytes, the column holds 3"))


def test_floats_that_do_not_fit_are_refused(zp: zebrapack.Schema) -> None:
    refused(pa.table({"F32": pa.array([1e300])}), zp, "Prims", re.escape("row 0, Prims.F32: 1e+300 overflows float32"))
    refused(pa.table({"F64": pa.array([2**53 + 1], pa.int64())}), zp, "Prims",
            re.escape("row 0, Prims.F64: 9007199254740993 is not exactly a float64"))
    refused(pa.table({"F32": pa.array([2**24 + 1], pa.int64())}), zp, "Prims", "16777217 is not exactly a float32")
    refused(pa.table({"C64": pa.array([{"real": 1e300, "imag": 0.0}],
                                      pa.struct([("real", pa.float64()), ("imag", pa.float64())]))}),
            zp, "Prims", re.escape("row 0, Prims.C64: real part 1e+300 overflows float32"))


def test_a_map_with_a_repeated_key_is_refused(zp: zebrapack.Schema) -> None:
    column = pa.array([[("a", 1), ("b", 2), ("a", 3)]], pa.map_(pa.string(), pa.int64()))
    refused(pa.table({"SMap": column}), zp, "Compound",
            re.escape("row 0, Compound.SMap['a']: the key repeats an earlier key of the map"))
    many = [(f"k{i}", i) for i in range(40)] + [("k7", 0)]
    refused(pa.table({"SMap": pa.array([many], pa.map_(pa.string(), pa.int64()))}), zp, "Compound",
            re.escape("Compound.SMap['k7']: the key repeats"))


def test_an_error_inside_a_map_value_names_its_key(zp: zebrapack.Schema) -> None:
    inner = pa.struct([("X", pa.int64()), ("Y", pa.string())])
    column = pa.array([[("p", {"X": 1, "Y": "a"}), ("q", {"X": 2**40, "Y": ""})]], pa.map_(pa.string(), inner))
    refused(pa.table({"MInner": column}), zp, "Compound",
            re.escape("row 0, Compound.MInner['q'].X: 1099511627776 is outside the range of int32"))


def test_interface_bytes_that_do_not_read_back_are_refused(zp: zebrapack.Schema) -> None:
    for raw, reason in [(b"", "no bytes"), (b"\x92\x01", "ends"), (b"\x01\x02", "1 bytes after the value"),
                        (b"\xc1", "0xc1")]:
        refused(pa.table({"Any": pa.array([interface_bytes(zp, 1), raw], pa.binary())}), zp, "Prims",
                f"row 1, Prims.Any: the interface{{}} column's msgpack bytes do not read back: .*{re.escape(reason)}")


def test_nesting_past_max_depth_is_refused(tmp_path: Path) -> None:
    schema = zebrapack.load(examples.SCHEMA, max_depth=2)
    matrix = pa.array([[[1]]], pa.list_(pa.list_(pa.int32())))
    refused(pa.table({"Matrix": matrix}), schema, "Compound",
            re.escape("row 0, Compound.Matrix[0]: nesting deeper than max_depth=2"))
    assert written(pa.table({"Matrix": pa.array([[]], matrix.type)}), schema, "Compound")


def test_a_string_column_with_invalid_utf8_is_refused(zp: zebrapack.Schema) -> None:
    column = pa.Array.from_buffers(pa.string(), 1, [None, pa.py_buffer(b"\x00\x00\x00\x00\x02\x00\x00\x00"),
                                                    pa.py_buffer(b"\xc3\x28")])
    refused(pa.table({"Name": column}), zp, "A", re.escape("row 0, A.Name: invalid UTF-8 in a string"))


def test_columns_the_struct_lacks_are_refused_before_writing(zp: zebrapack.Schema, tmp_path: Path) -> None:
    error = refused(pa.table({"Name": ["a"], "Nmae": ["b"]}), zp, "A", "no field of A is named 'Nmae'")
    assert "its fields: Name, Bday, Phone, Sibs, GPA, Friend" in str(error)
    inner = pa.struct([("X", pa.int32()), ("Z", pa.string())])
    refused(pa.table({"Nested": pa.array([{"X": 1, "Z": "z"}], inner)}), zp, "Compound",
            re.escape("Compound.Nested: no field of Inner is named 'Z'"))
    target = tmp_path / "out.zpk"
    with pytest.raises(EncodeError):
        zebrapack.arrow.write(pa.table({"Nmae": ["b"]}), target, zp, "A")
    assert not target.exists()


def test_arrow_types_that_cannot_hold_the_field_are_refused(zp: zebrapack.Schema) -> None:
    cases = [
        ({"Name": pa.array([b"x"])}, "A", "A.Name: a column of Arrow format 'z' cannot be written as string"),
        ({"Sibs": pa.array([1.0])}, "A", "A.Sibs: a column of Arrow format 'g' cannot be written as int"),
        ({"Friend": pa.array([1], pa.int8())}, "A", "A.Friend: a column of Arrow format 'c' cannot be written as bool"),
        ({"Name": pa.nulls(1)}, "A", "A.Name: a column of nulls cannot hold string"),
        ({"Bday": pa.array([1], pa.timestamp("us"))}, "A", "A.Bday: a timestamp without a time zone is ambiguous"),
        ({"Bday": pa.array([1], pa.int64())}, "A", "A.Bday: a column of Arrow format 'l' cannot be written as time.Time"),
        ({"Ints": pa.array([1])}, "Compound", "Compound.Ints: a column of Arrow format 'l' cannot be written as"),
        ({"Any": pa.array(["x"])}, "Prims", "Prims.Any: a column of Arrow format 'u' cannot be written as interface"),
    ]
    for columns, type, message in cases:
        refused(pa.table(columns), zp, type, re.escape(message))


def test_a_row_refused_in_a_later_chunk_removes_the_file_it_created(zp: zebrapack.Schema, tmp_path: Path) -> None:
    target = tmp_path / "out.zpk"
    table = pa.table({"I8": pa.array(list(range(100)) + [1000], pa.int64())})
    with pytest.raises(EncodeError, match="row 100"):
        zebrapack.arrow.write(table, target, zp, "Prims", index=True, chunk_bytes=16)
    assert list(tmp_path.iterdir()) == []


def test_a_file_object_keeps_the_whole_chunks_written_before_the_refused_row(zp: zebrapack.Schema) -> None:
    table = pa.table({"I8": pa.array([1, 2, 3, 1000], pa.int64())})
    out = io.BytesIO()
    with pytest.raises(EncodeError, match="row 3"):
        zebrapack.arrow.write(table, out, zp, "Prims", chunk_bytes=1)
    assert [r.I8 for r in zp.decode_all(out.getvalue())] == [1, 2, 3]


def test_data_that_is_not_arrow_is_a_type_error(zp: zebrapack.Schema) -> None:
    with pytest.raises(TypeError, match="expected Arrow data"):
        zebrapack.arrow.write([{"Name": "x"}], io.BytesIO(), zp, "A")
    with pytest.raises(ValueError, match="give type= one of"):
        zebrapack.arrow.write(pa.table({"Name": ["x"]}), io.BytesIO(), zp)


def test_invalid_arrow_offsets_and_indices_are_refused_not_read_past(zp: zebrapack.Schema) -> None:
    # pyarrow checks what it builds: the buffers are spoiled after it did (their memory is ours)
    def spoiled(column: str, type_: Any, offsets: list[int], later: list[int], width: int, **parts: Any) -> Any:
        memory = bytearray(b"".join(value.to_bytes(width, "little", signed=True) for value in offsets))
        buffers = [None, pa.py_buffer(memory)] + ([pa.py_buffer(parts["data"])] if "data" in parts else [])
        array = pa.Array.from_buffers(type_, len(offsets) - (0 if "dictionary" in parts else 1), buffers,
                                      children=parts.get("children"))
        if "dictionary" in parts:
            array = pa.DictionaryArray.from_arrays(array, parts["dictionary"])
        table = pa.table({column: array})
        memory[:] = b"".join(value.to_bytes(width, "little", signed=True) for value in later)
        return table

    refused(spoiled("Name", pa.string(), [0, 1], [5, 1], 4, data=b"abcdef"), zp, "A",
            re.escape("A.Name: binary offsets from 5 to 1 (invalid Arrow data)"))
    refused(spoiled("Name", pa.string(), [0, 1, 2], [0, 3, 2], 4, data=b"abcdef"), zp, "A",
            re.escape("row 0, A.Name: offsets out of order or past the data buffer (invalid Arrow data)"))
    refused(spoiled("Ints", pa.list_(pa.int64()), [0, 2], [0, 9], 4, children=[pa.array([1, 2], pa.int64())]),
            zp, "Compound",
            re.escape("row 0, Compound.Ints: list offsets outside the item column (invalid Arrow data)"))
    refused(spoiled("Name", pa.int8(), [0, 0], [0, 5], 1, dictionary=pa.array(["a"])), zp, "A",
            re.escape("row 1, A.Name: dictionary index outside the dictionary (invalid Arrow data)"))
