"""The zebrapack Spark data source in local[2]: the rows of decode_all, a partition
per file or index split, projection, globs, the fall-back for stale indexes, and
nested kinds reaching Spark with the documented casts (uint64 -> decimal(20,0),
nanosecond times an error unless truncated)."""

from __future__ import annotations

import dataclasses
import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from support.cluster import UTC, a_records, decoded_records, spark, write_records, zp  # noqa: F401  (fixtures)
from support.engines import engine

import zebrapack
from zebrapack.values.timestamp import Timestamp

pa = engine("pyarrow")
engine("pyspark")
zps = engine("zebrapack.spark")
SCHEMA = str(Path(__file__).parents[1] / "vectors" / "schemas" / "zp.z")


def load(spark: Any, paths: Any, **options: str) -> Any:
    reader = spark.read.format("zebrapack").option("schema", SCHEMA)
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(paths if isinstance(paths, str) else [str(path) for path in paths])


def spark_rows(df: Any) -> list[dict[str, Any]]:
    """A Spark DataFrame's rows through Arrow (times as aware UTC datetimes, maps as pairs)."""
    return df.toArrow().to_pylist()


def decoded_rows(schema: zebrapack.Schema, paths: list[Path], type: str = "A") -> list[dict[str, Any]]:
    return [dataclasses.asdict(record) for record in decoded_records(schema, paths, type)]


@pytest.fixture
def files(tmp_path: Path, zp: zebrapack.Schema) -> list[Path]:
    return [
        write_records(zp, tmp_path / "day1.zpk", a_records(zp, 40), index=True, index_every=16),   # 3 splits
        write_records(zp, tmp_path / "day2-with-schema.zpk", a_records(zp, 7, start=40), write_schema=True),  # one split
    ]


def test_rows_equal_decode_all_with_a_partition_per_index_split(spark: Any, zp: zebrapack.Schema,
                                                                files: list[Path]) -> None:
    df = load(spark, files, type="A")
    assert df.schema.simpleString() == ("struct<Name:string,Bday:timestamp,Phone:string,Sibs:bigint,"
                                        "GPA:double,Friend:boolean>")
    assert df.rdd.getNumPartitions() == 3 + 1
    assert spark_rows(df) == decoded_rows(zp, files)
    assert df.groupBy("Friend").count().orderBy("Friend").collect()[1]["count"] == 16


def test_projection_globs_and_merged_splits(spark: Any, zp: zebrapack.Schema, files: list[Path]) -> None:
    df = load(spark, str(files[0].parent / "day*.zpk"), type="A", columns="Sibs, Name", split_records="32")
    assert df.columns == ["Name", "Sibs"]
    assert df.rdd.getNumPartitions() == 2 + 1
    assert spark_rows(df) == [{"Name": row["Name"], "Sibs": row["Sibs"]} for row in decoded_rows(zp, files)]


def test_a_stale_index_falls_back_to_one_partition_and_right_rows(spark: Any, zp: zebrapack.Schema,
                                                                  files: list[Path]) -> None:
    with open(files[0], "ab") as out:
        out.write(zp.encode(a_records(zp, 1, start=99)[0]))
    df = load(spark, files, type="A")
    assert df.rdd.getNumPartitions() == 2
    assert spark_rows(df) == decoded_rows(zp, files)


def test_a_spark_schema_given_by_the_user_projects(spark: Any, zp: zebrapack.Schema, files: list[Path]) -> None:
    df = (spark.read.format("zebrapack").option("schema", SCHEMA).option("type", "A")
          .schema("Phone string, GPA double").load(str(files[1])))
    assert spark_rows(df) == [{"Phone": row["Phone"], "GPA": row["GPA"]} for row in decoded_rows(zp, files[1:])]


def prims(zp: zebrapack.Schema, nanosecond: int) -> list[Any]:
    Prims = zp.types.Prims
    when = Timestamp(2024, 5, 6, 7, 8, 9, 123456, UTC, nanosecond=nanosecond)
    return [Prims(S="s", U=2**64 - 1, U64=2**63 + 5, U32=2**32 - 1, U16=65535, U8=255, By=7, I8=-128,
                  F32=1.5, C64=1 + 2j, T=when), Prims()]


def test_a_torn_file_fails_its_task_with_the_offset_where_the_valid_data_ends(spark: Any, zp: zebrapack.Schema,
                                                                               tmp_path: Path) -> None:
    path = write_records(zp, tmp_path / "torn.zpk", a_records(zp, 30))
    data = path.read_bytes()
    path.write_bytes(data[:-5])
    valid_end = len(data) - len(zp.encode(a_records(zp, 1, start=29)[0]))
    with pytest.raises(Exception, match=rf"TornTailError: .*torn tail: .*\(record 29\) \(byte offset {valid_end}\)"):
        load(spark, str(path), type="A").collect()
    zebrapack.recover(path).truncate()
    assert len(load(spark, str(path), type="A").collect()) == 29


def test_unsigned_integers_widen_and_uint64_is_decimal(spark: Any, zp: zebrapack.Schema, tmp_path: Path) -> None:
    path = write_records(zp, tmp_path / "p.zpk", prims(zp, 0))
    df = load(spark, str(path), type="Prims", columns="U,U64,U32,U16,U8,By,I8,C64,T")
    assert df.schema.simpleString() == ("struct<C64:struct<real:float,imag:float>,U:decimal(20,0),U8:smallint,"
                                        "U16:int,U32:bigint,U64:decimal(20,0),By:smallint,I8:tinyint,T:timestamp>")
    assert df.schema["C64"].metadata == {"zebrapack.extension": "zebrapack.complex64"}
    first, zero = spark_rows(df)
    assert first == {"C64": {"real": 1.0, "imag": 2.0}, "U": Decimal(2**64 - 1), "U8": 255, "U16": 65535,
                     "U32": 2**32 - 1, "U64": Decimal(2**63 + 5), "By": 7, "I8": -128,
                     "T": datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, UTC)}
    assert zero["U"] == 0 and zero["T"] is None
    with pytest.raises(Exception, match="not in range"):
        load(spark, str(path), type="Prims", columns="U64", uint64="long").collect()
    small = write_records(zp, tmp_path / "small.zpk", [zp.types.Prims(U64=2**63 - 1)])
    assert load(spark, str(small), type="Prims", columns="U64", uint64="long").collect()[0]["U64"] == 2**63 - 1


def test_nanoseconds_are_an_error_unless_truncated(spark: Any, zp: zebrapack.Schema, tmp_path: Path) -> None:
    path = write_records(zp, tmp_path / "p.zpk", prims(zp, 789))
    with pytest.raises(Exception, match="Prims.T: .*nanoseconds"):
        load(spark, str(path), type="Prims", columns="T").collect()
    rows = spark_rows(load(spark, str(path), type="Prims", columns="T", nanoseconds="truncate"))
    assert rows == [{"T": datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, UTC)}, {"T": None}]


def test_structs_lists_and_maps_reach_spark(spark: Any, zp: zebrapack.Schema, tmp_path: Path) -> None:
    Compound, Inner = zp.types.Compound, zp.types.Inner
    when = datetime.datetime(2001, 2, 3, tzinfo=UTC)
    records = [Compound(Ints=[i, -i], Strs=["a"] * i, Arr=[float(i), 0.5, 0.0], ByteArr=bytes([i, 1, 2, 3]), SMap={"k": i},
                        IMap={i: "v"}, Nested=Inner(X=i, Y="y"), Ptr=Inner(X=1) if i % 2 else None,
                        Inners=[Inner(X=i)], PInners=[None, Inner(Y="p")], MInner={"a": Inner(Y=str(i)), "b": None},
                        Matrix=[[i], []], Anys=[1, "x"], Times=[when])
               for i in range(6)]
    path = write_records(zp, tmp_path / "c.zpk", records, index=True, index_every=2)
    df = load(spark, str(path), type="Compound")
    assert df.rdd.getNumPartitions() == 3
    assert df.schema["MInner"].dataType.simpleString() == "map<string,struct<X:int,Y:string>>"
    assert df.schema["IMap"].dataType.simpleString() == "map<bigint,string>"
    assert df.schema["Anys"].dataType.simpleString() == "array<binary>"
    rows = spark_rows(df)
    for i, row in enumerate(rows):
        assert row["Ints"] == [i, -i] and row["Strs"] == ["a"] * i and row["Arr"] == [i, 0.5, 0]
        assert row["ByteArr"] == bytes([i, 1, 2, 3]) and row["SMap"] == [("k", i)] and row["IMap"] == [(i, "v")]
        assert row["Nested"] == {"X": i, "Y": "y"} and row["Ptr"] == ({"X": 1, "Y": ""} if i % 2 else None)
        assert row["Inners"] == [{"X": i, "Y": ""}] and row["PInners"] == [None, {"X": 0, "Y": "p"}]
        assert row["MInner"] == [("a", {"X": 0, "Y": str(i)}), ("b", None)]
        assert row["Matrix"] == [[i], []]
        assert row["Anys"] == [b"\x01", b"\xa1x"] and row["Times"] == [when]


def test_bad_options_are_named(spark: Any, files: list[Path]) -> None:
    with pytest.raises(Exception, match="option uint64 must be one of decimal, long"):
        load(spark, str(files[0]), type="A", uint64="float").collect()
    with pytest.raises(Exception, match="no such column in A: 'Nope'"):
        load(spark, str(files[0]), type="A", columns="Nope").collect()
    with pytest.raises(Exception, match="glob matches none"):
        load(spark, str(files[0].parent / "*.none"), type="A").collect()


def test_spark_writes_a_record_file_per_task_that_decodes_to_its_rows(spark: Any, zp: zebrapack.Schema,
                                                                      files: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "out"
    df = load(spark, files, type="A")
    (df.write.format("zebrapack").option("schema", SCHEMA).option("type", "A").option("index", "true")
     .mode("overwrite").save(str(out)))
    written = sorted(out.glob("part-*.zpk"))
    assert len(written) == df.rdd.getNumPartitions() and (out / "_SUCCESS").exists()
    assert sorted(path.name for path in out.iterdir()) == sorted(
        [path.name for path in written] + [f"{path.name}.zpi" for path in written] + ["_SUCCESS"])
    assert all(Path(f"{path}.zpi").exists() for path in written)
    assert decoded_rows(zp, written) == decoded_rows(zp, files)       # the partitions in order
    assert spark_rows(load(spark, str(out), type="A")) == decoded_rows(zp, files)
    # Overwrite replaces the files; a projection writes the other fields as zero values.
    df.select("Name").write.format("zebrapack").option("schema", SCHEMA).option("type", "A").mode(
        "overwrite").save(str(out))
    rewritten = sorted(out.glob("part-*.zpk"))
    assert not set(rewritten) & set(written) and not list(out.glob("*.zpi"))
    assert decoded_rows(zp, rewritten) == [
        dataclasses.asdict(zp.types.A(Name=row["Name"])) for row in decoded_rows(zp, files)]


def test_spark_writes_unsigned_times_and_nested_kinds_back_exactly(spark: Any, zp: zebrapack.Schema,
                                                                   tmp_path: Path) -> None:
    Compound, Inner = zp.types.Compound, zp.types.Inner
    records = [Compound(Ints=[i], Arr=[1.0, 2.0, 3.0], ByteArr=b"abcd", SMap={"k": i}, Nested=Inner(X=i),
                        Ptr=Inner(Y="p") if i else None, MInner={"m": Inner(X=2), "n": None}, Matrix=[[1], [2, 3]],
                        PInt=i or None, Anys=[None, {"a": [1.5]}], Times=[datetime.datetime(1, 1, 1, tzinfo=UTC)])
               for i in range(3)]
    source = write_records(zp, tmp_path / "c.zpk", records)
    path = write_records(zp, tmp_path / "p.zpk", prims(zp, 0))
    for name, data in (("Compound", source), ("Prims", path)):
        out = tmp_path / f"out-{name}"
        load(spark, str(data), type=name).write.format("zebrapack").option("schema", SCHEMA).option(
            "type", name).mode("append").save(str(out))
        (written,) = out.glob("part-*.zpk")
        assert written.read_bytes() == data.read_bytes()


def test_writing_refuses_columns_the_struct_lacks_and_values_that_do_not_fit(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame([("x", 2**40)], "Name string, U32 bigint")
    with pytest.raises(Exception, match="no such field in A: U32"):
        df.write.format("zebrapack").option("schema", SCHEMA).option("type", "A").mode("append").save(
            str(tmp_path / "a"))
    with pytest.raises(Exception, match="column U32: Integer value 1099511627776 not in range"):
        df.select("U32").write.format("zebrapack").option("schema", SCHEMA).option("type", "Prims").mode(
            "append").save(str(tmp_path / "b"))
    assert not list((tmp_path / "b").glob("**/part-*"))      # an aborted job leaves no file
    assert not (tmp_path / "b" / "_temporary").exists()
