"""``zebrapack convert``: record files to Parquet, Arrow IPC, CSV and JSON lines and back,
the same bytes after a round trip, row groups by size, errors that name the record or
row and the field, and no half-written output."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import SCHEMAS, error_line, run_cli
from support.vectors import vector_schema
from support.engines import engine

import zebrapack
import zebrapack.examples

pa = engine("pyarrow")
pq = engine("pyarrow.parquet")

ZP = SCHEMAS / "zp.z"
UTC = datetime.timezone.utc


def prims(count: int) -> list[Any]:
    schema = vector_schema("zp.z")
    Prims = schema.types.Prims
    return [Prims(S=f"s{i}", Bin=bytes([i % 256, 255]), F32=zebrapack.GoFloat32(i / 4), F64=i / 3, C64=complex(i, 1),
                  C128=complex(1, i), U=i, U8=i % 256, U16=i, U32=i * 1000, U64=2 ** 64 - 1 - i, By=i % 256,
                  I=-i, I8=-(i % 128), I16=-i, I32=-i * 7, I64=-(2 ** 62) + i, B=i % 2 == 0,
                  T=datetime.datetime(2001, 2, 3, tzinfo=UTC) + datetime.timedelta(seconds=i, microseconds=i),
                  Any=[i, "x"] if i % 2 else {"k": i})
            for i in range(count)]


@pytest.fixture
def records_file(tmp_path: Path) -> Path:
    path = tmp_path / "prims.zpk"
    with vector_schema("zp.z").writer(path) as writer:
        writer.write_all(prims(3000))
    return path


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".feather", ".arrows"])
def test_records_to_arrow_formats_and_back_are_the_same_bytes(records_file: Path, tmp_path: Path,
                                                              suffix: str) -> None:
    out = tmp_path / f"prims{suffix}"
    result = run_cli("convert", records_file, "-s", ZP, "-t", "Prims", "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().startswith(f"{out}: 3,000 records as ")
    back = tmp_path / "back.zpk"
    result = run_cli("convert", out, "-s", ZP, "-t", "Prims", "-o", back, "--index")
    assert result.returncode == 0, result.stderr
    assert back.read_bytes() == records_file.read_bytes()
    assert zebrapack.load_index(back, full=True).record_count == 3000
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        ["prims.zpk", out.name, "back.zpk", "back.zpk.zpi"])        # no temporary file left


def test_parquet_row_groups_gather_batches_up_to_the_size_asked(records_file: Path, tmp_path: Path) -> None:
    one = tmp_path / "one.parquet"
    assert run_cli("convert", records_file, "-s", ZP, "-t", "Prims", "-o", one).returncode == 0
    assert pq.ParquetFile(one).metadata.num_row_groups == 1       # 3,000 rows: far below 128 MiB
    small = tmp_path / "small.parquet"
    table = pq.read_table(one)
    assert run_cli("convert", records_file, "-s", ZP, "-t", "Prims", "-o", small,
                   "--row-group-size", "100KiB", "--compression", "zstd").returncode == 0
    metadata = pq.ParquetFile(small).metadata
    assert metadata.num_row_groups > 1 and metadata.row_group(0).column(0).compression == "ZSTD"
    assert pq.read_table(small).equals(table)
    result = run_cli("convert", records_file, "-s", ZP, "-t", "Prims", "-o", small, "--row-group-size", "lots")
    assert "not a size: 'lots'" in result.stderr.decode()


def test_columns_are_read_and_written_alone(records_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "some.arrow"
    assert run_cli("convert", records_file, "-s", ZP, "-t", "Prims", "--columns", "S,U64", "-o", out).returncode == 0
    table = pa.ipc.open_file(out).read_all()
    assert table.column_names == ["S", "U64"] and table.column("U64")[0].as_py() == 2 ** 64 - 1
    back = tmp_path / "back.zpk"
    assert run_cli("convert", out, "-s", ZP, "-t", "Prims", "--columns", "U64", "-o", back).returncode == 0
    assert [record.U64 for record in vector_schema("zp.z").iter_decode(back, "Prims")] == \
        [record.U64 for record in prims(3000)]


def test_csv_flattens_structs_and_shows_bytes_as_hex(tmp_path: Path) -> None:
    schema = vector_schema("zp.z")
    Compound, Inner = schema.types.Compound, schema.types.Inner
    path = tmp_path / "compound.zpk"
    with schema.writer(path) as writer:
        writer.write_all([Compound(Shown=i * 10, Nested=Inner(X=i, Y=f"y{i}"), ByteArr=bytes([i, 0, 0, 255]))
                          for i in range(3)])
    out = tmp_path / "compound.csv"
    result = run_cli("convert", path, "-s", ZP, "-t", "Compound", "--columns", "Shown,Nested,ByteArr", "-o", out)
    assert result.returncode == 0, result.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == '"ByteArr","Nested.X","Nested.Y","Shown"'       # in the schema's order
    assert lines[2] == '"010000ff",1,"y1",10'
    result = run_cli("convert", path, "-s", ZP, "-t", "Compound", "-o", tmp_path / "all.csv")
    assert "column Ints (list<item: int64 not null>) has no CSV form: leave it out with --columns" in error_line(result)
    assert not (tmp_path / "all.csv").exists() and not list(tmp_path.glob(".all.csv*"))


def test_json_lines_are_what_dump_prints(records_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prims.jsonl"
    assert run_cli("convert", records_file, "-s", ZP, "-t", "Prims", "-o", out).returncode == 0
    dumped = run_cli("dump", "-s", ZP, "-t", "Prims", records_file)
    assert out.read_bytes() == dumped.stdout
    some = tmp_path / "some.ndjson"
    assert run_cli("convert", records_file, "-s", ZP, "-t", "Prims", "--columns", "S,B", "-o", some).returncode == 0
    assert json.loads(some.read_text().splitlines()[1]) == {"$type": "Prims", "S": "s1", "B": False}


def test_errors_name_the_record_or_row_and_the_field_and_leave_no_output(records_file: Path,
                                                                         tmp_path: Path) -> None:
    broken = tmp_path / "broken.zpk"
    data = records_file.read_bytes()
    broken.write_bytes(data + b"\x81\x00\x07")        # Prims.S (zid 0) holding an int
    out = tmp_path / "out.parquet"
    line = error_line(run_cli("convert", broken, "-s", ZP, "-t", "Prims", "-o", out))
    assert line.startswith(f"zebrapack convert: error: {broken}: record 3001: Prims.S: ") and "byte offset" in line
    assert not out.exists() and list(tmp_path.iterdir()) == [records_file, broken] or \
        sorted(tmp_path.iterdir()) == sorted([records_file, broken])
    torn = tmp_path / "torn.zpk"
    torn.write_bytes(data[:-5])
    assert "torn tail: record 3000" in error_line(run_cli("convert", torn, "-s", ZP, "-t", "Prims", "-o", out))
    table = pa.table({"I8": pa.array([1, 2, 300], pa.int16())})
    pq.write_table(table, tmp_path / "wide.parquet")
    line = error_line(run_cli("convert", tmp_path / "wide.parquet", "-s", ZP, "-t", "Prims", "-o", tmp_path / "x.zpk"))
    assert line.endswith("row 2, Prims.I8: 300 is outside the range of int8 (-128..127)")
    assert not (tmp_path / "x.zpk").exists()
    assert "no format known by this suffix; give --to" in error_line(
        run_cli("convert", records_file, "-s", ZP, "-t", "Prims", "-o", tmp_path / "x.bin"))
    assert "converts to records only" in error_line(
        run_cli("convert", tmp_path / "wide.parquet", "-s", ZP, "-t", "Prims", "-o", tmp_path / "x.csv"))
    assert "`zebrapack encode` turns JSON lines into records" in error_line(
        run_cli("convert", tmp_path / "x.jsonl", "-s", ZP, "-o", tmp_path / "x.zpk"))
    assert "give type= one of" in error_line(run_cli("convert", records_file, "-s", ZP, "-o", out))
    assert "No such file" in error_line(run_cli("convert", tmp_path / "none.zpk", "-s", ZP, "-t", "A", "-o", out))


def test_schemas_come_from_go_source_too(records_file: Path, tmp_path: Path) -> None:
    go = Path(zebrapack.examples.GO_SOURCE)
    out = tmp_path / "from-go.arrow"
    result = run_cli("convert", records_file, "-s", go, "-t", "Prims", "-o", out)
    assert result.returncode == 0, result.stderr
    assert pa.ipc.open_file(out).read_all().num_rows == 3000
