"""zebrapack.recover: every complete record of a file a crashed writer left, and the offset
where the valid data ends, so that the file can be cut there and appended to; and the
commands that report a torn tail (zebrapack index --check, zebrapack dump)."""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path

import pytest
from support.cli import error_line, run_cli
from support.integrity import SCHEMA, Layout, a_records, layout, write_bytes

import zebrapack
from zebrapack import DecodeError, TornTailError

RECORDS = a_records(200)
PLAIN = layout(RECORDS)
WITH_SCHEMA = layout(RECORDS, write_schema=True)


def test_a_whole_file_is_not_torn(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "whole.zpk", WITH_SCHEMA.data)
    found = zebrapack.recover(path)
    assert (found.size, found.data_start, found.valid_end, found.records, found.torn, found.torn_bytes) == \
        (len(WITH_SCHEMA.data), WITH_SCHEMA.data_start, len(WITH_SCHEMA.data), 200, False, 0)
    assert found.schema is not None and found.schema.model == SCHEMA.model      # the schema the file carries
    assert [astuple(record) for record in found] == [astuple(record) for record in RECORDS]


@pytest.mark.parametrize("file", [PLAIN, WITH_SCHEMA], ids=["plain", "write_schema"])
def test_every_complete_record_and_where_the_valid_data_ends(tmp_path: Path, file: Layout) -> None:
    for size in range(file.data_start, len(file.data), 97):
        path = write_bytes(tmp_path / "torn.zpk", file.data[:size])
        found = zebrapack.recover(path, SCHEMA)
        whole = file.whole_before(size)
        assert (found.records, found.valid_end, found.size) == (whole, file.valid_end(size), size), size
        assert found.torn == (size != file.valid_end(size))
        assert list(found) == RECORDS[:whole]
        assert [record.Name for record in zebrapack.recover(path, SCHEMA, "A", strict=True)] == \
            [record.Name for record in RECORDS[:whole]]


def test_truncate_cuts_the_torn_tail_and_appending_resumes(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "torn.zpk", WITH_SCHEMA.data[:WITH_SCHEMA.ends[120] - 11])
    found = zebrapack.recover(path)
    assert found.torn and found.records == 120
    found.truncate()
    assert path.stat().st_size == WITH_SCHEMA.ends[119]
    with open(path, "ab") as out, SCHEMA.writer(out) as writer:
        writer.write_all(RECORDS[120:])
    assert path.read_bytes() == WITH_SCHEMA.data
    with zebrapack.open_stream(path) as stream:
        assert [astuple(record) for record in stream] == [astuple(record) for record in RECORDS]


def test_truncate_refuses_a_file_that_changed_since_the_scan(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "torn.zpk", PLAIN.data[:-3])
    found = zebrapack.recover(path, SCHEMA)
    with open(path, "ab") as out:
        out.write(b"\x80")
    with pytest.raises(ValueError, match="scan it again"):
        found.truncate()
    assert path.stat().st_size == len(PLAIN.data) - 2


def test_damage_before_the_end_is_a_decode_error_not_a_tear(tmp_path: Path) -> None:
    damaged = bytearray(PLAIN.data)
    damaged[PLAIN.ends[50]] = 0xc1
    path = write_bytes(tmp_path / "damaged.zpk", bytes(damaged[:-4]))
    with pytest.raises(DecodeError) as caught:
        zebrapack.recover(path, SCHEMA)
    assert not isinstance(caught.value, TornTailError) and caught.value.offset == PLAIN.ends[50]


def test_records_need_a_schema(tmp_path: Path) -> None:
    found = zebrapack.recover(write_bytes(tmp_path / "torn.zpk", PLAIN.data[:-3]))
    assert found.schema is None and found.records == 199
    with pytest.raises(ValueError, match="no schema to read the records with"):
        iter(found)


def test_an_empty_file_and_a_file_of_only_its_schema(tmp_path: Path) -> None:
    empty = zebrapack.recover(write_bytes(tmp_path / "empty.zpk", b""))
    assert (empty.records, empty.valid_end, empty.torn) == (0, 0, False)
    only_schema = zebrapack.recover(write_bytes(tmp_path / "schema.zpk", WITH_SCHEMA.data[:WITH_SCHEMA.data_start]))
    assert (only_schema.records, only_schema.valid_end, only_schema.torn, list(only_schema)) == \
        (0, WITH_SCHEMA.data_start, False, [])


# -- the commands ------------------------------------------------------------------------


def test_index_check_reports_a_torn_file_and_where_its_valid_data_ends(tmp_path: Path) -> None:
    path = tmp_path / "log.zpk"
    with SCHEMA.writer(path, index=True) as writer:
        writer.write_all(RECORDS)
    with open(path, "ab") as out:               # a second writer killed mid-record
        out.write(SCHEMA.encode(RECORDS[0])[:9])
    result = run_cli("index", "--check", path)
    assert result.returncode == 1
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith(f"{path}.zpi: stale index")
    assert lines[1] == (f"{path}: torn tail: 200 records whole, then 9 bytes of a record cut short; the valid data "
                        f"ends at byte {len(PLAIN.data)} (zebrapack.recover(FILE).truncate() cuts the file there)")
    (tmp_path / "log.zpk.zpi").unlink()
    missing = run_cli("index", "--check", path)
    assert missing.returncode == 2 and "no such index; " in error_line(missing)
    assert "torn tail: 200 records whole, then 9 bytes" in error_line(missing)
    refused = run_cli("index", path)
    assert refused.returncode == 2 and "no index written: " in error_line(refused)
    assert not (tmp_path / "log.zpk.zpi").exists()


def test_index_check_of_a_whole_file_without_an_index_says_it_is_whole(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "whole.zpk", PLAIN.data)
    assert error_line(run_cli("index", "--check", path)).endswith(
        f"whole.zpk.zpi: no such index; {path}: 200 records, every one whole")


def test_dump_reports_the_torn_tail_after_the_complete_records(tmp_path: Path) -> None:
    path = write_bytes(tmp_path / "torn.zpk", WITH_SCHEMA.data[:WITH_SCHEMA.ends[9] - 1])
    result = run_cli("dump", path)
    assert len(result.stdout.decode().splitlines()) == 9
    assert error_line(result) == (
        f"zebrapack dump: error: {path}: torn tail: record 10, from byte {WITH_SCHEMA.ends[8]}, is cut short by the "
        f"end of the input; the 9 records before it are complete, and the valid data ends at byte "
        f"{WITH_SCHEMA.ends[8]} (zebrapack.recover reads such a file, and truncates it there)")
