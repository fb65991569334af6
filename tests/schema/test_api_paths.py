"""Paths wherever a file is accepted, and FileNotFoundError when it is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.engines import engine
from support.vectors import VECTORS

import zebrapack
import zebrapack.arrow as zpa
import zebrapack.examples

SCHEMAS = VECTORS / "schemas"
A_STREAM = VECTORS / "zp/A_stream.zpk"


@pytest.mark.parametrize("as_text", [False, True], ids=["Path", "str"])
def test_iter_decode_reads_a_path(as_text: bool) -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z")
    source = str(A_STREAM) if as_text else A_STREAM
    records = list(schema.iter_decode(source))
    assert records == schema.decode_all(A_STREAM.read_bytes())
    assert [r.Name for r in schema.iter_decode(source, type=schema.types.A)] == [r.Name for r in records]


def test_iter_decode_of_a_missing_path_fails_at_the_call(tmp_path: Path) -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z")
    with pytest.raises(FileNotFoundError, match="absent.zpk"):
        schema.iter_decode(tmp_path / "absent.zpk")


def test_open_stream_of_a_missing_path_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="absent.zpk"):
        zebrapack.open_stream(tmp_path / "absent.zpk")


@pytest.mark.parametrize("call", [zebrapack.load, zebrapack.schema_from_go,
                                  lambda path: zebrapack.check_compatible(path, SCHEMAS / "zp.z")],
                         ids=["load", "schema_from_go", "check_compatible"])
def test_a_missing_schema_file_is_file_not_found(tmp_path: Path, call: object) -> None:
    with pytest.raises(FileNotFoundError, match="absent"):
        call(tmp_path / "absent.z")  # type: ignore[operator]


def test_writer_takes_a_path_and_closes_the_file_it_opened(tmp_path: Path) -> None:
    schema = zebrapack.load(SCHEMAS / "zp.z")
    records = schema.decode_all(A_STREAM.read_bytes())
    path = tmp_path / "out.zpk"
    with schema.writer(path) as writer:
        writer.write_all(records)
    assert path.read_bytes() == A_STREAM.read_bytes()
    with schema.writer(str(path), write_schema=True) as writer:     # truncates
        writer.write(records[0])
    with zebrapack.open_stream(path) as stream:
        assert [repr(r) for r in stream] == [repr(records[0])]      # the stream schema's own class


def test_a_name_no_code_page_spells_is_read_and_written_by_every_reader(tmp_path: Path) -> None:
    """On Windows the Arrow reader opens its files with _wfopen: fopen takes only the
    names the ANSI code page spells (elsewhere names are bytes, see test_paths_undecodable)."""
    pa = engine("pyarrow")
    schema = zebrapack.load(zebrapack.examples.SCHEMA)
    records = list(schema.iter_decode(zebrapack.examples.RECORDS))
    path = tmp_path / "records-\u4e2d\u6587-\u0416-\u00e9-\U0001f600.zpk"
    with schema.writer(path, index=True) as writer:
        writer.write_all(records)
    assert list(schema.iter_decode(path)) == records
    expected = zpa.read(zebrapack.examples.RECORDS, schema, "A").read_all()
    assert zpa.read(path, schema, "A").read_all().equals(expected)
    assert pa.table(zpa.read(zebrapack.file_splits(path), schema, "A")).equals(expected)
