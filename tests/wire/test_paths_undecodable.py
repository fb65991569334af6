"""Every reader and writer that takes a path takes every name the OS takes: on Linux a
file name is bytes, and one that is not UTF-8 (``b"bad\\xff.zpk"``) reaches Python as a
str with a surrogate (``os.fsdecode``, ``os.listdir``, ``sys.argv``) or a ``Path`` of it.
Each call below reads or writes such a file and gives what it gives for an ordinary
name; the Arrow reader, which opens its files in C, gets the OS's own bytes too. On
Windows a name is UTF-16: the reader opens it whole (_wfopen), whatever the code page."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.engines import engine
from support.cli import run_cli

import zebrapack
import zebrapack.arrow as zpa
import zebrapack.examples

pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"),
                                reason="file names are bytes on Linux (UTF-16 on Windows, UTF-8 on macOS)")

#: Not UTF-8: the file system keeps them, Python carries them as surrogates.
UNDECODABLE = os.fsdecode(b"bad\xff\xfe")
AS = [str, Path]


def names_in(folder: Path) -> set[bytes]:
    return set(os.listdir(os.fsencode(folder)))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The example files under undecodable names (and the folder holding them)."""
    shutil.copy(zebrapack.examples.RECORDS, tmp_path / f"{UNDECODABLE}.zpk")
    shutil.copy(zebrapack.examples.SCHEMA, tmp_path / f"{UNDECODABLE}.z")
    shutil.copy(zebrapack.examples.SCHEMA_JSON, tmp_path / f"{UNDECODABLE}.z.json")
    shutil.copy(zebrapack.examples.GO_SOURCE, tmp_path / f"{UNDECODABLE}.go")
    assert os.fsencode(f"{UNDECODABLE}.zpk") in names_in(tmp_path)
    return tmp_path


@pytest.fixture
def schema() -> zebrapack.Schema:
    return zebrapack.load(zebrapack.examples.SCHEMA)


@pytest.fixture
def records(schema: zebrapack.Schema) -> list[Any]:
    return list(schema.iter_decode(zebrapack.examples.RECORDS))


@pytest.mark.parametrize("kind", AS, ids=["str", "Path"])
@pytest.mark.parametrize("suffix", [".z", ".z.json"])
def test_load_and_dump_a_schema(folder: Path, kind: Callable[[str], Any], suffix: str,
                                schema: zebrapack.Schema) -> None:
    loaded = zebrapack.load(kind(str(folder / f"{UNDECODABLE}{suffix}")))
    assert loaded.model == schema.model
    loaded.dump(kind(str(folder / f"{UNDECODABLE}-dumped.z")))
    assert zebrapack.load(folder / f"{UNDECODABLE}-dumped.z").model == schema.model
    assert zebrapack.load(folder / f"{UNDECODABLE}-dumped.z.json").model == schema.model


@pytest.mark.parametrize("kind", AS, ids=["str", "Path"])
def test_schemas_from_go_source_and_their_compatibility(folder: Path, kind: Callable[[str], Any]) -> None:
    source = kind(str(folder / f"{UNDECODABLE}.go"))
    assert zebrapack.schema_from_go(source).structs.keys() == zebrapack.schema_from_go(
        zebrapack.examples.GO_SOURCE).structs.keys()
    from_go = zebrapack.schema_from_go(source)
    assert from_go.source_path.endswith("bad\\udcff\\udcfe.go")          # a str of the document is UTF-8
    from_go.dump(folder / f"{UNDECODABLE}-go.z")
    assert zebrapack.load(folder / f"{UNDECODABLE}-go.z").model == from_go.model
    report = zebrapack.check_compatible(kind(str(folder / f"{UNDECODABLE}.z")),
                                        kind(str(folder / f"{UNDECODABLE}.z.json")))
    assert report.compatible and not report.findings


@pytest.mark.parametrize("kind", AS, ids=["str", "Path"])
def test_decode_write_and_stream_records(folder: Path, kind: Callable[[str], Any], schema: zebrapack.Schema,
                                         records: list[Any]) -> None:
    assert list(schema.iter_decode(kind(str(folder / f"{UNDECODABLE}.zpk")))) == records
    out = kind(str(folder / f"{UNDECODABLE}-out.zpk"))
    with schema.writer(out, write_schema=True, index=True) as writer:
        writer.write_all(records)
    assert {os.fsencode(f"{UNDECODABLE}-out.zpk"), os.fsencode(f"{UNDECODABLE}-out.zpk.zpi")} <= names_in(folder)
    with zebrapack.open_stream(out) as stream:
        assert [repr(record) for record in stream] == [repr(record) for record in records]


@pytest.mark.parametrize("kind", AS, ids=["str", "Path"])
def test_recover_a_torn_file_and_truncate_it(folder: Path, kind: Callable[[str], Any], schema: zebrapack.Schema,
                                             records: list[Any]) -> None:
    torn = folder / f"{UNDECODABLE}-torn.zpk"
    whole = zebrapack.examples.RECORDS.read_bytes()
    torn.write_bytes(whole + schema.encode(records[0])[:7])
    recovery = zebrapack.recover(kind(str(torn)), schema)
    assert (recovery.records, recovery.valid_end, recovery.torn) == (len(records), len(whole), True)
    assert list(recovery) == records
    recovery.truncate()
    assert torn.read_bytes() == whole


@pytest.mark.parametrize("kind", AS, ids=["str", "Path"])
def test_index_and_split_a_record_file(folder: Path, kind: Callable[[str], Any], schema: zebrapack.Schema,
                                       records: list[Any]) -> None:
    data = kind(str(folder / f"{UNDECODABLE}.zpk"))
    index_path = kind(str(folder / f"{UNDECODABLE}.idx"))
    index = zebrapack.build_index(data, index_path, every=2)
    assert os.fsencode(f"{UNDECODABLE}.idx") in names_in(folder)
    assert zebrapack.load_index(data, index_path) == index == zebrapack.read_index(data, index_path)
    splits = zebrapack.file_splits(data, index_path)
    assert sum(len(split.entries) for split in splits) == 3
    assert [record for split in splits for record in zebrapack.iter_split(schema, split)] == records
    assert [record for split in splits for batch in zebrapack.iter_split_batches(schema, split)
            for record in batch] == records


@pytest.mark.parametrize("kind", AS, ids=["str", "Path"])
def test_the_arrow_reader_opens_the_file_itself(folder: Path, kind: Callable[[str], Any],
                                                schema: zebrapack.Schema) -> None:
    pa = engine("pyarrow")
    expected = zpa.read(zebrapack.examples.RECORDS, schema, "A").read_all()
    data = kind(str(folder / f"{UNDECODABLE}.zpk"))
    assert zpa.read(data, schema, "A").read_all().equals(expected)
    assert zpa.read([data, data], schema, "A").read_all().num_rows == 2 * expected.num_rows
    zebrapack.build_index(data, every=2)
    indexed = zebrapack.file_splits(data, target_records=5)
    assert len(indexed) == 1 and indexed[0].indexed
    assert zpa.read(indexed, schema, "A").read_all().equals(expected)
    whole = zebrapack.Split(str(data), 0, os.path.getsize(data), None)
    assert pa.table(zpa.read(whole, schema, "A")).equals(expected)        # through the C stream


def test_the_arrow_readers_os_error_shows_the_name_escaped(folder: Path, schema: zebrapack.Schema) -> None:
    data = folder / f"{UNDECODABLE}.zpk"
    stream = zpa.read(data, schema, "A")
    reader = stream._open()         # the sources laid out; the file is opened at the first batch
    data.unlink()
    with pytest.raises(FileNotFoundError, match=r"opening .*bad\\udcff\\udcfe\.zpk: No such file"):
        reader.next_batch()


@pytest.mark.parametrize("kind", AS, ids=["str", "Path"])
def test_the_arrow_writer(folder: Path, kind: Callable[[str], Any], schema: zebrapack.Schema) -> None:
    source = zpa.read(zebrapack.examples.RECORDS, schema, "A")
    dest = kind(str(folder / f"{UNDECODABLE}-arrow.zpk"))
    zpa.write(source, dest, schema, "A", index=True)
    assert Path(dest).read_bytes() == zebrapack.examples.RECORDS.read_bytes()
    assert zebrapack.read_index(dest) is not None


def test_dask_reads_a_folder_a_glob_and_a_file(tmp_path: Path, schema: zebrapack.Schema,
                                               records: list[Any]) -> None:
    engine("dask")
    import zebrapack.dask as zebrapack_dask
    folder = tmp_path / UNDECODABLE
    folder.mkdir()
    shutil.copy(zebrapack.examples.RECORDS, folder / f"{UNDECODABLE}.zpk")
    for paths in [folder, str(folder / "*.zpk"), folder / f"{UNDECODABLE}.zpk"]:
        frame = zebrapack_dask.read_records(paths, schema, "A").compute()
        assert list(frame["Name"]) == [record.Name for record in records]


def test_the_command_line(folder: Path) -> None:
    name = UNDECODABLE
    dumped = run_cli("dump", "--schema", f"{name}.z", f"{name}.zpk", cwd=folder)
    assert dumped.returncode == 0 and len(dumped.stdout.splitlines()) == 5, dumped.stderr
    encoded = run_cli("encode", "--schema", f"{name}.z.json", "-", stdin=dumped.stdout, cwd=folder)
    assert encoded.returncode == 0 and encoded.stdout == zebrapack.examples.RECORDS.read_bytes(), encoded.stderr
    for args, made in [(["index", f"{name}.zpk"], f"{name}.zpk.zpi"),
                       (["index", f"{name}.zpk", "-o", f"{name}.i"], f"{name}.i"),
                       (["gen", f"{name}.go", "-o", f"{name}.py"], f"{name}.py"),
                       (["schema", f"{name}.go", "-o", f"{name}-go.z"], f"{name}-go.z"),
                       (["go", f"{name}.z", "-o", f"{name}-out.go"], f"{name}-out.go"),
                       (["check", f"{name}.z", f"{name}.go"], None)]:
        result = run_cli(*args, cwd=folder)
        assert result.returncode == 0, (args, result.stderr)
        assert made is None or os.fsencode(made) in names_in(folder), args
    missing = run_cli("dump", "--schema", f"{name}.z", f"{name}-missing.zpk", cwd=folder)
    assert missing.returncode == 2 and b"bad\\udcff\\udcfe-missing.zpk" in missing.stderr, missing.stderr
