"""zpa.write takes any Arrow producer and the physical spellings other tools use for
a logical type; it writes to paths and files as schema.writer does (index too)."""

from __future__ import annotations

import io
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

import zebrapack
from zebrapack import examples

from support.engines import engine
from .ticking import ticks_during
from .writing import encoded, table_of, written, zebrapack_zero

pa = engine("pyarrow")

UTC = timezone.utc


@pytest.fixture(scope="module")
def zp() -> zebrapack.Schema:
    return zebrapack.load(examples.SCHEMA)


def a_records(zp: zebrapack.Schema, n: int) -> list[Any]:
    A = zp.types.A
    return [A(f"name{i}" * (i % 3), datetime(2000 + i % 30, 1 + i % 12, 1 + i % 28, i % 24, tzinfo=UTC),
              "" if i % 2 else f"555-{i}", i % 5 - 2, i / 7, i % 3 == 0) for i in range(n)]


def test_a_sliced_table_and_its_many_batches_write_their_own_rows(zp: zebrapack.Schema) -> None:
    records = a_records(zp, 50)
    table = table_of(pa, zp, records, "A")
    assert written(table.slice(7, 20), zp, "A") == encoded(zp, records[7:27])
    batches = table.to_batches(max_chunksize=6)
    assert len(batches) > 1
    assert written(pa.Table.from_batches(batches), zp, "A") == encoded(zp, records)
    assert written(batches[2].slice(1, 3), zp, "A") == encoded(zp, records[13:16])    # __arrow_c_array__


def test_nested_sliced_columns_keep_their_offsets(zp: zebrapack.Schema) -> None:
    Inner = zp.types.Inner
    records = []
    for i in range(12):
        record = zebrapack_zero(zp, "Compound")
        record.Inners = [Inner(j, f"{i}.{j}") for j in range(i % 4)]
        record.SMap = {f"k{j}": i * j for j in range(i % 3)}
        record.Matrix = [[i, j] for j in range(i % 3)]
        record.Nested = Inner(i, "n" * i)
        record.Ptr = Inner(-i, "") if i % 2 else None
        records.append(record)
    table = table_of(pa, zp, records, "Compound", time_unit="us")
    for start in range(0, 12, 5):
        assert written(table.slice(start, 4), zp, "Compound") == encoded(zp, records[start:start + 4])


def test_string_and_binary_variants_write_as_utf8_and_binary(zp: zebrapack.Schema) -> None:
    names = ["", "short", "a string longer than twelve bytes", "é"]
    expected = encoded(zp, [zp.types.A(name, None, "", 0, 0.0, False) for name in names])
    for column in [pa.array(names, pa.large_string()), pa.array(names, pa.string_view()),
                   pa.array(names).dictionary_encode(), pa.array(names, pa.large_string()).dictionary_encode(),
                   pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 3], pa.int8()), pa.array(names, pa.string_view()))]:
        assert written(pa.table({"Name": column}), zp, "A") == expected, column.type
    blobs = [b"", b"\x00", b"x" * 40]
    prims = []
    for blob in blobs:
        record = zebrapack_zero(zp, "Prims")
        record.Bin = blob
        prims.append(record)
    for column in [pa.array(blobs, pa.large_binary()), pa.array(blobs, pa.binary_view())]:
        assert written(pa.table({"Bin": column}), zp, "Prims") == encoded(zp, prims), column.type
    compound = zebrapack_zero(zp, "Compound")
    compound.ByteArr = b"wxyz"
    for column in [pa.array([b"wxyz"], pa.binary(4)), pa.array([b"wxyz"]), pa.array([b"wxyz"], pa.binary_view())]:
        assert written(pa.table({"ByteArr": column}), zp, "Compound") == zp.encode(compound)


def test_integer_columns_of_any_width_write_when_each_value_fits(zp: zebrapack.Schema) -> None:
    values = [0, 1, -1, 127, -128]
    records = []
    for value in values:
        record = zebrapack_zero(zp, "Prims")
        record.I8 = value
        record.I64 = value
        record.F64 = float(value)
        records.append(record)
    for type_ in [pa.int16(), pa.int32(), pa.int64()]:
        table = pa.table({"I8": pa.array(values, type_), "I64": pa.array(values, pa.int8()),
                          "F64": pa.array(values, type_)})
        assert written(table, zp, "Prims") == encoded(zp, records), type_
    unsigned = zebrapack_zero(zp, "Prims")
    unsigned.U64 = 2**64 - 1
    unsigned.I16 = 255
    unsigned.F32 = 3.0
    table = pa.table({"U64": pa.array([2**64 - 1], pa.uint64()), "I16": pa.array([255], pa.uint8()),
                      "F32": pa.array([3], pa.uint32())})
    assert written(table, zp, "Prims") == zp.encode(unsigned)


def test_float_columns_of_other_widths(zp: zebrapack.Schema) -> None:
    record = zebrapack_zero(zp, "Prims")
    record.F32 = 0.1            # a float64 rounds to float32, as encode rounds a Python float
    record.F64 = 1.5
    table = pa.table({"F32": pa.array([0.1], pa.float64()), "F64": pa.array([1.5], pa.float16())})
    assert written(table, zp, "Prims") == zp.encode(record)
    record.F64 = float(pa.array([0.1], pa.float32())[0].as_py())
    table = pa.table({"F64": pa.array([0.1], pa.float32()), "F32": pa.array([0.1], pa.float64())})
    assert written(table, zp, "Prims") == zp.encode(record)


def test_list_variants_write_as_lists(zp: zebrapack.Schema) -> None:
    record = zebrapack_zero(zp, "Compound")
    record.Ints = [1, 2, 3]
    record.Arr = [1.0, 2.0, 3.0]
    expected = zp.encode(record)
    for ints, arr in [(pa.array([[1, 2, 3]], pa.large_list(pa.int64())), pa.array([[1.0, 2.0, 3.0]], pa.list_(pa.float64()))),
                      (pa.array([[1, 2, 3]], pa.list_view(pa.int32())), pa.array([[1.0, 2.0, 3.0]], pa.large_list(pa.float64()))),
                      (pa.array([[1, 2, 3]], pa.large_list_view(pa.int8())), pa.array([[1, 2, 3]], pa.list_(pa.int64(), 3))),
                      (pa.array([[1, 2, 3]], pa.list_(pa.int64(), 3)), pa.array([[1.0, 2.0, 3.0]], pa.list_view(pa.float32())))]:
        table = pa.table({"Ints": ints, "Arr": arr})
        assert written(table, zp, "Compound") == expected, (ints.type, arr.type)


def test_a_record_batch_reader_and_a_single_batch_are_sources(zp: zebrapack.Schema) -> None:
    records = a_records(zp, 9)
    table = table_of(pa, zp, records, "A")
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=4))
    out = io.BytesIO()
    assert zebrapack.arrow.write(reader, out, zp, "A") == 9
    assert out.getvalue() == encoded(zp, records)
    batch = table.combine_chunks().to_batches()[0]
    assert written(batch, zp, "A") == encoded(zp, records)
    assert written(table.slice(0, 0), zp, "A") == b""


def test_polars_dataframes_write_as_their_arrow_data(zp: zebrapack.Schema) -> None:
    pl = engine("polars")
    records = a_records(zp, 20)
    frame = pl.from_arrow(table_of(pa, zp, records, "A"))
    assert written(frame, zp, "A") == encoded(zp, records)
    compound = zebrapack_zero(zp, "Compound")
    compound.Strs = ["x", "a longer string than twelve", ""]
    compound.Ints = [5, -5]
    compound.SMap = {"a": 1}
    compound.Nested = zp.types.Inner(1, "i")
    compound.Times = [datetime(2001, 1, 1, tzinfo=UTC)]
    frame = pl.from_arrow(table_of(pa, zp, [compound], "Compound", time_unit="us"))
    assert written(frame, zp, "Compound") == zp.encode(compound)
    categorical = pl.DataFrame({"Name": pl.Series(["a", "b", "a"], dtype=pl.Categorical),
                                "Sibs": pl.Series([1, 2, 3], dtype=pl.Int8)})
    expected = encoded(zp, [zp.types.A(name, None, "", sibs, 0.0, False) for name, sibs in [("a", 1), ("b", 2), ("a", 3)]])
    assert written(categorical, zp, "A") == expected


def test_a_path_gets_what_schema_writer_writes_with_its_index(zp: zebrapack.Schema, tmp_path: Path) -> None:
    records = a_records(zp, 300)
    table = table_of(pa, zp, records, "A")
    with zp.writer(tmp_path / "default.zpk", index=True) as writer:
        writer.write_all(records)
    assert zebrapack.arrow.write(table, tmp_path / "arrow.zpk", zp, "A", index=True, chunk_bytes=500) == 300
    assert (tmp_path / "arrow.zpk").read_bytes() == (tmp_path / "default.zpk").read_bytes()
    assert (tmp_path / "arrow.zpk.zpi").read_bytes() == (tmp_path / "default.zpk.zpi").read_bytes()
    zebrapack.arrow.write(table, tmp_path / "other.zpk", zp, "A", index=tmp_path / "named.zpi")
    assert (tmp_path / "named.zpi").read_bytes() == (tmp_path / "default.zpk.zpi").read_bytes()
    # chunks larger than the writer's buffer go to the file directly: the same file and index
    many = a_records(zp, 6000)
    with zp.writer(tmp_path / "many.zpk", index=True) as writer:
        writer.write_all(many)
    zebrapack.arrow.write(table_of(pa, zp, many, "A"), tmp_path / "many_arrow.zpk", zp, "A", index=True,
                          chunk_bytes=100_000)
    assert (tmp_path / "many_arrow.zpk").read_bytes() == (tmp_path / "many.zpk").read_bytes()
    assert (tmp_path / "many_arrow.zpk.zpi").read_bytes() == (tmp_path / "many.zpk.zpi").read_bytes()


def test_a_binary_file_object_gets_the_records(zp: zebrapack.Schema, tmp_path: Path) -> None:
    records = a_records(zp, 5)
    with open(tmp_path / "out.zpk", "wb") as handle:
        assert zebrapack.arrow.write(table_of(pa, zp, records, "A"), handle, zp, zp.types.A) == 5
    assert (tmp_path / "out.zpk").read_bytes() == encoded(zp, records)
    assert zp.decode_all((tmp_path / "out.zpk").read_bytes()) == records


def test_write_needs_no_arrow_library_beyond_the_producer(zp: zebrapack.Schema) -> None:
    table = pa.table({"Name": ["x"]})

    class Producer:             # only the PyCapsule protocol, as any library exposes it
        def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
            return table.__arrow_c_stream__()

    out = io.BytesIO()
    assert zebrapack.arrow.write(Producer(), out, zp, "A") == 1
    assert out.getvalue() == zp.encode(zp.types.A("x", None, "", 0, 0.0, False))


def test_the_gil_is_released_while_a_batch_is_encoded(zp: zebrapack.Schema) -> None:
    from zebrapack._core import ArrowRecordEncoder, _import_stream

    table = table_of(pa, zp, a_records(zp, 2000), "A")
    stream = _import_stream(pa.concat_tables([table] * 1000).combine_chunks().__arrow_c_stream__())
    encoder = ArrowRecordEncoder(zp, "A", stream.schema().arrow_type())
    batch = stream.next_batch()
    # the whole batch (2M records, tens of milliseconds: enough ticks on a loaded machine
    # too; 400k took 6 ms, which a busy machine's ticker could miss) in one call of the core
    _, ticks, seconds = ticks_during(lambda: encoder.encode(batch, 0, 0, 1 << 40))
    assert ticks >= 3, (seconds, ticks)


def test_the_readers_own_stream_writes_back_the_file_it_reads(zp: zebrapack.Schema, tmp_path: Path) -> None:
    source = Path(examples.RECORDS)
    assert zebrapack.arrow.write(zebrapack.arrow.read(source, zp, "A"), tmp_path / "copy.zpk", zp, "A") == 5
    assert (tmp_path / "copy.zpk").read_bytes() == source.read_bytes()
    projected = zebrapack.arrow.read(source, zp, "A", columns=["Name", "Sibs"])
    out = io.BytesIO()
    zebrapack.arrow.write(projected, out, zp, "A")
    assert zp.decode_all(out.getvalue()) == [zp.types.A(r.Name, None, "", r.Sibs, 0.0, False)
                                             for r in zp.decode_all(source.read_bytes())]
