"""zebrapack.dask.read_records on a distributed.LocalCluster with worker processes:
the rows of decode_all, a partition per file or index split, the meta without
reading data, projection, globs, and the fall-back for stale or corrupt indexes."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from support.cluster import a_records, decoded_records, dask_client, write_records, zp  # noqa: F401  (fixtures)
from support.engines import engine

import zebrapack

dd = engine("dask.dataframe")
pd = engine("pandas")
pa = engine("pyarrow")
zpd = engine("zebrapack.dask")


def rows(frame: Any) -> list[dict[str, Any]]:
    """A pandas DataFrame's rows as dicts of Python values (pd.Timestamp compares equal to datetime)."""
    return frame.to_dict("records")


def decoded_rows(schema: zebrapack.Schema, paths: list[Path], columns: list[str] | None = None) -> list[dict[str, Any]]:
    frame = pd.DataFrame([dataclasses.asdict(record) for record in decoded_records(schema, paths)])
    return rows(frame if columns is None else frame[columns])


@pytest.fixture
def files(tmp_path: Path, zp: zebrapack.Schema) -> list[Path]:
    return [
        write_records(zp, tmp_path / "day1.zpk", a_records(zp, 50), index=True, index_every=16),    # 4 splits
        write_records(zp, tmp_path / "day2.zpk", a_records(zp, 7, start=50)),                       # no index
        write_records(zp, tmp_path / "day3-with-schema.zpk", a_records(zp, 9, start=57), write_schema=True),   # schema first
    ]


def test_rows_equal_decode_all_with_a_partition_per_index_split(dask_client: Any, zp: zebrapack.Schema,
                                                                files: list[Path]) -> None:
    ddf = zpd.read_records(files, zp, type="A")
    assert ddf.npartitions == 4 + 1 + 1
    assert all(isinstance(dtype, pd.ArrowDtype) for dtype in ddf.dtypes)
    assert rows(ddf.compute()) == decoded_rows(zp, files)
    assert ddf.npartitions == zpd.read_records(files, zp, type="A", split_records=32).npartitions + 2
    assert ddf.groupby("Friend").size().compute().to_dict() == {True: 22, False: 44}


def test_projection_reads_the_chosen_columns_in_schema_order(dask_client: Any, zp: zebrapack.Schema,
                                                             files: list[Path]) -> None:
    ddf = zpd.read_records(files, zp, type=zp.types.A, columns=["Sibs", "Name"])
    assert list(ddf.columns) == ["Name", "Sibs"]
    assert rows(ddf.compute()) == decoded_rows(zp, files, ["Name", "Sibs"])


def test_meta_comes_from_the_schema_without_reading_data(tmp_path: Path, zp: zebrapack.Schema) -> None:
    broken = tmp_path / "broken.zpk"
    broken.write_bytes(b"\x81\x00\x07")       # A.Name (zid 0) holding an int: decoding it fails
    ddf = zpd.read_records(broken, zp, "A", time_unit="us")
    assert list(ddf.columns) == ["Name", "Bday", "Phone", "Sibs", "GPA", "Friend"]
    assert ddf.dtypes["Bday"] == pd.ArrowDtype(pa.timestamp("us", "UTC"))
    assert ddf.dtypes["Sibs"] == pd.ArrowDtype(pa.int64())
    with pytest.raises(zebrapack.DecodeError, match="Name"):
        ddf.compute(scheduler="sync")


def test_a_decode_error_in_a_worker_reaches_the_client_with_its_path(dask_client: Any, tmp_path: Path,
                                                                      zp: zebrapack.Schema) -> None:
    broken = write_records(zp, tmp_path / "x.zpk", a_records(zp, 3))
    broken.write_bytes(broken.read_bytes() + b"\x81\x01\xc3")   # Bday (zid 1) holding a bool
    with pytest.raises(zebrapack.DecodeError) as caught:
        zpd.read_records(broken, zp, "A").compute()
    assert caught.value.path == "A.Bday" and "x.zpk" in str(caught.value)


def test_globs_and_folders_name_the_files(dask_client: Any, zp: zebrapack.Schema, files: list[Path]) -> None:
    folder = files[0].parent
    by_glob = zpd.read_records(str(folder / "day*.zpk"), zp, "A")
    assert by_glob.npartitions == 6
    assert rows(by_glob.compute()) == decoded_rows(zp, files)
    assert zpd.read_records(folder, zp, "A").npartitions == 6


@pytest.mark.parametrize("damage", ["stale", "corrupt"])
def test_an_unusable_index_falls_back_to_one_partition_with_a_warning(dask_client: Any, zp: zebrapack.Schema,
                                                                      files: list[Path], damage: str) -> None:
    if damage == "stale":
        with open(files[0], "ab") as out:
            out.write(zp.encode(a_records(zp, 1, start=1000)[0]))
    else:
        index = Path(str(files[0]) + ".zpi")
        index.write_bytes(b"ZPKINDEX" + index.read_bytes()[8:-3])
    with pytest.warns(zebrapack.IndexWarning, match=f"{damage} index"):
        ddf = zpd.read_records(files, zp, "A")
    assert ddf.npartitions == 3
    assert rows(ddf.compute()) == decoded_rows(zp, files)


def test_files_without_records(dask_client: Any, tmp_path: Path, zp: zebrapack.Schema) -> None:
    empty = [write_records(zp, tmp_path / "e1.zpk", [], index=True), write_records(zp, tmp_path / "e2.zpk", [])]
    frame = zpd.read_records(empty, zp, "A").compute()
    assert len(frame) == 0 and list(frame.columns)[0] == "Name"


def test_nested_kinds_become_arrow_backed_columns(dask_client: Any, tmp_path: Path, zp: zebrapack.Schema) -> None:
    Compound, Inner = zp.types.Compound, zp.types.Inner
    records = [Compound(Ints=[i, -i], SMap={"k": i}, Nested=Inner(X=i, Y="y"), Ptr=Inner(X=1) if i % 2 else None,
                        MInner={"a": Inner(Y=str(i))}, Matrix=[[i], []]) for i in range(20)]
    path = write_records(zp, tmp_path / "c.zpk", records, index=True, index_every=5)
    ddf = zpd.read_records(path, zp, "Compound", columns=["Ints", "SMap", "Nested.X", "Ptr", "MInner", "Matrix"])
    assert ddf.npartitions == 4
    table = pa.Table.from_pandas(ddf.compute(), preserve_index=False)
    assert table.to_pylist() == [
        {"Ints": [i, -i], "SMap": [("k", i)], "Nested": {"X": i}, "Ptr": {"X": 1, "Y": ""} if i % 2 else None,
         "MInner": [("a", {"X": 0, "Y": str(i)})], "Matrix": [[i], []]} for i in range(20)]


def test_write_records_writes_a_file_per_partition_that_reads_back_the_same_rows(
        dask_client: Any, zp: zebrapack.Schema, files: list[Path], tmp_path: Path) -> None:
    ddf = zpd.read_records(files, zp, type="A")
    out = tmp_path / "out"
    written = zpd.write_records(ddf, out, zp, "A", index=True)
    assert [Path(path).name for path in written] == sorted(path.name for path in out.glob("part-*.zpk"))
    assert len(written) == ddf.npartitions and (out / "_SUCCESS").read_bytes() == b""
    assert sorted(path.name for path in out.iterdir()) == sorted(
        [Path(path).name for path in written] + [Path(path).name + ".zpi" for path in written] + ["_SUCCESS"])
    # the bytes encode writes, partition by partition
    assert b"".join(Path(path).read_bytes() for path in written) == \
        b"".join(zp.encode(record) for record in decoded_records(zp, files))
    again = zpd.read_records(out, zp, "A")
    assert again.npartitions == len(written) and rows(again.compute()) == rows(ddf.compute())
    # append adds beside; overwrite replaces what was there
    zpd.write_records(ddf.partitions[:1], out, zp, "A")
    assert len(list(out.glob("part-*.zpk"))) == len(written) + 1
    (only,) = zpd.write_records(ddf.partitions[:1], out, zp, "A", overwrite=True)
    assert sorted(path.name for path in out.iterdir()) == sorted([Path(only).name, "_SUCCESS"])


def test_write_records_types_values_strictly_and_a_failed_job_changes_nothing(
        dask_client: Any, zp: zebrapack.Schema, tmp_path: Path) -> None:
    frame = pd.DataFrame({"I8": [1, 2, 3, 300], "U16": [1, 2, 3, 4]})
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(zebrapack.EncodeError, match=r"partition 1, row 1, Prims\.I8: 300 is outside the range of int8"):
        zpd.write_records(ddf, tmp_path / "out", zp, "Prims")
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").rglob("*"))
    with pytest.raises(zebrapack.EncodeError, match="partition 0, Prims: no field of Prims is named 'Nope'"):
        zpd.write_records(dd.from_pandas(pd.DataFrame({"Nope": [1]}), npartitions=1), tmp_path / "out", zp, "Prims")
    zpd.write_records(ddf.partitions[:1], tmp_path / "out", zp, "Prims")
    (path,) = (tmp_path / "out").glob("part-*.zpk")
    assert zp.decode_all(path.read_bytes(), "Prims") == [zp.types.Prims(I8=1, U16=1), zp.types.Prims(I8=2, U16=2)]
