"""Record files in an S3 bucket (moto's server on loopback, through s3fs): every writer
puts the bytes it puts on a local disk, whole; every reader reads them back as it reads
a local file; folders and globs list through the bucket."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from support.cluster import a_records, zp  # noqa: F401  (fixtures)
from support.engines import engine

import zebrapack
from zebrapack.streams.planning import expand_paths, plan_splits

pa = engine("pyarrow")
zpa = engine("zebrapack.arrow")
s3fs = engine("s3fs")


def s3(options: dict[str, Any]) -> Any:
    return s3fs.S3FileSystem(**options, skip_instance_cache=True)


def write_both(schema: zebrapack.Schema, url: str, local: Path, records: list[Any], options: dict[str, Any],
               **writer_options: Any) -> zebrapack.RecordWriter:
    with schema.writer(local, **writer_options) as writer:
        writer.write_all(records)
    with schema.writer(url, storage_options=options, **writer_options) as writer:
        writer.write_all(records)
    return writer


@pytest.mark.parametrize("write_schema", [False, True], ids=["plain", "with-schema"])
def test_a_writer_puts_the_bytes_and_index_of_a_local_file_and_every_reader_reads_them(
        zp: zebrapack.Schema, bucket: str, options: dict[str, Any], tmp_path: Path, write_schema: bool) -> None:
    records = a_records(zp, 2000)
    url, local = f"{bucket}/events/part-0.zpk", tmp_path / "part-0.zpk"
    writer = write_both(zp, url, local, records, options, index=True, index_every=300, write_schema=write_schema)
    fs = s3(options)
    assert fs.cat(url) == local.read_bytes()
    assert fs.cat(url + ".zpi") == (tmp_path / "part-0.zpk.zpi").read_bytes()
    assert (writer.records, writer.bytes_written) == (2000, local.stat().st_size)

    if write_schema:
        with zebrapack.open_stream(url, type="A", schema=zp, storage_options=options) as stream:
            assert list(stream) == records
    else:
        assert list(zp.iter_decode(url, "A", storage_options=options)) == records
    expected = zpa.read(local, zp, "A").read_all()
    assert zpa.read(url, zp, "A", storage_options=options).read_all().equals(expected)

    splits = zebrapack.file_splits(url, storage_options=options)
    assert [(s.start, s.stop, s.records) for s in splits] == \
        [(s.start, s.stop, s.records) for s in zebrapack.file_splits(local)]
    assert all(split.storage_options == options and split.path == url for split in splits)
    assert [r for split in splits for r in zebrapack.iter_split(zp, split, "A")] == records
    assert zpa.read(splits, zp, "A").read_all().equals(expected)

    index = zebrapack.load_index(url, full=True, storage_options=options)
    assert index == zebrapack.build_index(url, url + ".again.zpi", every=300, storage_options=options)
    assert index == zebrapack.build_index(local, tmp_path / "again.zpi", every=300)
    found = zebrapack.recover(url, zp, "A", storage_options=options)
    assert (found.records, found.torn, found.valid_end) == (2000, False, local.stat().st_size)
    assert list(found) == records


def test_arrow_write_puts_what_it_puts_locally(zp: zebrapack.Schema, bucket: str, options: dict[str, Any],
                                               tmp_path: Path) -> None:
    write_both(zp, f"{bucket}/a.zpk", tmp_path / "a.zpk", a_records(zp, 500), options)
    table = zpa.read(f"{bucket}/a.zpk", zp, "A", storage_options=options).read_all()
    assert zpa.write(table, f"{bucket}/b.zpk", zp, "A", index=True, storage_options=options) == 500
    zpa.write(table, tmp_path / "b.zpk", zp, "A", index=True)
    fs = s3(options)
    assert fs.cat(f"{bucket}/b.zpk") == (tmp_path / "b.zpk").read_bytes()
    assert fs.cat(f"{bucket}/b.zpk.zpi") == (tmp_path / "b.zpk.zpi").read_bytes()


def test_a_schema_loads_from_a_bucket(zp: zebrapack.Schema, bucket: str, options: dict[str, Any],
                                      tmp_path: Path) -> None:
    zp.dump(tmp_path / "zp.z")
    s3(options).put(str(tmp_path / "zp.z"), f"{bucket}/schemas/zp.z")
    loaded = zebrapack.load(f"{bucket}/schemas/zp.z", storage_options=options)
    assert loaded.model == zp.model


def test_folders_and_globs_list_through_the_bucket(zp: zebrapack.Schema, bucket: str,
                                                   options: dict[str, Any]) -> None:
    fs = s3(options)
    for name in ["b.zpk", "a.zpk", "nested/c.zpk", "_SUCCESS", ".hidden.zpk", "a.zpk.zpi"]:
        fs.pipe(f"{bucket}/data/{name}", b"")
    listed = expand_paths(f"{bucket}/data", storage_options=options)
    assert listed == [f"{bucket}/data/a.zpk", f"{bucket}/data/b.zpk"]
    assert expand_paths(f"{bucket}/data/*.zpk", storage_options=options) == listed
    assert expand_paths(f"{bucket}/data/**/*.zpk", storage_options=options) == \
        [*listed, f"{bucket}/data/nested/c.zpk"]
    s3a = bucket.replace("s3://", "s3a://")
    assert expand_paths(f"{s3a}/data/*.zpk", storage_options=options) == [u.replace("s3://", "s3a://") for u in listed]
    with pytest.raises(FileNotFoundError, match=r"data/\*\.zpq: no such record file \(the glob matches none\)"):
        expand_paths(f"{bucket}/data/*.zpq", storage_options=options)
    with pytest.raises(FileNotFoundError, match="no such record file"):
        expand_paths(f"{bucket}/nothing.zpk", storage_options=options)


def test_an_object_appears_whole_or_not_at_all(zp: zebrapack.Schema, bucket: str, options: dict[str, Any]) -> None:
    url = f"{bucket}/whole.zpk"
    records = a_records(zp, 3000)
    with zp.writer(url, storage_options=options) as writer:
        writer.write_all(records[:10])
    old = s3(options).cat(url)
    with pytest.raises(RuntimeError, match="the producer failed"):
        with zp.writer(url, storage_options=options, index=True, buffer_size=1024) as writer:
            writer.write_all(records)
            writer.flush()
            assert (writer.records, writer.bytes_written) == (3000, len(b"".join(map(zp.encode, records))))
            raise RuntimeError("the producer failed")
    assert (writer.records, writer.bytes_written) == (0, 0)        # the store holds nothing of it
    fs = s3(options)
    assert fs.cat(url) == old and not fs.exists(url + ".zpi")
    with pytest.raises(ValueError, match="the writer failed"):
        writer.write(records[0])

    table = pa.table({"Name": pa.array(["ok"] * 5000 + [None])})     # chunks go to the upload before the refusal
    with pytest.raises(zebrapack.EncodeError, match="row 5000, A.Name: expected string, got null"):
        zpa.write(table, f"{bucket}/refused.zpk", zp, "A", chunk_bytes=1024, storage_options=options)
    assert not fs.exists(f"{bucket}/refused.zpk")


def test_a_writer_refuses_an_object_this_process_is_reading(zp: zebrapack.Schema, bucket: str,
                                                            options: dict[str, Any]) -> None:
    url = f"{bucket}/read.zpk"
    with zp.writer(url, storage_options=options) as writer:
        writer.write_all(a_records(zp, 10))
    reading = zp.iter_decode(url, "A", storage_options=options)
    next(reading)
    with pytest.raises(ValueError, match="a reader of this process is reading this file"):
        zp.writer(url.replace("s3://", "s3a://"), storage_options=options)
    reading.close()
    zp.writer(url, storage_options=options).close()
    assert s3(options).cat(url) == b""


def test_a_torn_object_gives_every_complete_record_then_a_torn_tail_and_recovers(
        zp: zebrapack.Schema, bucket: str, options: dict[str, Any], tmp_path: Path) -> None:
    records = a_records(zp, 100)
    local = tmp_path / "whole.zpk"
    with zp.writer(local) as writer:
        writer.write_all(records)
    whole = local.read_bytes()
    cut = len(whole) - 20      # inside the last record
    url = f"{bucket}/torn.zpk"
    s3(options).pipe(url, whole[:cut])
    got: list[Any] = []
    with pytest.raises(zebrapack.TornTailError) as caught:
        got.extend(zp.iter_decode(url, "A", storage_options=options))
    assert got == records[:99]
    torn_at = caught.value.offset
    for read in (lambda: list(zebrapack.iter_split(zp, zebrapack.file_splits(url, storage_options=options)[0], "A")),
                 lambda: zpa.read(url, zp, "A", storage_options=options).read_all()):
        with pytest.raises(zebrapack.TornTailError) as caught:
            read()
        assert caught.value.offset == torn_at
    with pytest.raises(zebrapack.TornTailError):
        zebrapack.build_index(url, storage_options=options)
    assert not s3(options).exists(url + ".zpi")
    found = zebrapack.recover(url, zp, "A", storage_options=options)
    assert (found.torn, found.records, found.valid_end) == (True, 99, torn_at)
    found.truncate()
    assert s3(options).cat(url) == whole[:torn_at]
    assert list(zp.iter_decode(url, "A", storage_options=options)) == records[:99]


def test_a_missing_object_is_a_file_not_found_error_naming_it(zp: zebrapack.Schema, bucket: str,
                                                              options: dict[str, Any]) -> None:
    url = f"{bucket}/missing.zpk"
    calls = {
        "iter_decode": lambda: zp.iter_decode(url, "A", storage_options=options),
        "open_stream": lambda: zebrapack.open_stream(url, storage_options=options),
        "arrow.read": lambda: zpa.read(url, zp, "A", storage_options=options).read_all(),
        "file_splits": lambda: zebrapack.file_splits(url, storage_options=options),
        "build_index": lambda: zebrapack.build_index(url, storage_options=options),
        "recover": lambda: zebrapack.recover(url, storage_options=options),
        "load": lambda: zebrapack.load(f"{bucket}/missing.z", storage_options=options),
        "plan_splits": lambda: plan_splits(url, storage_options=options),
    }
    for name, call in calls.items():
        with pytest.raises(FileNotFoundError, match="missing") as caught:
            call()
        assert bucket.removeprefix("s3://") in str(caught.value), name


def test_an_object_replaced_while_it_is_read_is_an_error_not_a_mix(
        zp: zebrapack.Schema, bucket: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    import zebrapack.recordio.locations as locations

    monkeypatch.setattr(locations, "READ_AHEAD", 1024)      # many ranged reads, so that one comes after the change
    url = f"{bucket}/changing.zpk"
    records = a_records(zp, 400)
    with zp.writer(url, storage_options=options) as writer:
        writer.write_all(records)
    reading = zp.iter_decode(url, "A", storage_options=options, chunk_size=1024)
    got = [next(reading) for _ in range(5)]
    s3(options).pipe(url, zp.encode_all(a_records(zp, 400, start=1000)) if hasattr(zp, "encode_all") else
                     b"".join(zp.encode(record) for record in a_records(zp, 400, start=1000)))    # another process's
    with pytest.raises(OSError):
        got.extend(reading)
    assert got == records[:len(got)]


def test_splits_of_a_stale_object_fail_their_check(zp: zebrapack.Schema, bucket: str,
                                                   options: dict[str, Any]) -> None:
    url = f"{bucket}/stale.zpk"
    with zp.writer(url, storage_options=options, index=True, index_every=100) as writer:
        writer.write_all(a_records(zp, 400))
    splits = zebrapack.file_splits(url, storage_options=options)
    with zp.writer(url, storage_options=options) as writer:       # the same size, other bytes
        writer.write_all(a_records(zp, 400, start=5000))
    for read in (lambda: list(zebrapack.iter_split(zp, splits[1], "A")),
                 lambda: zpa.read(splits[1], zp, "A").read_all()):
        with pytest.raises(zebrapack.DecodeError, match="do not match the index's checksum"):
            read()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(zebrapack.IndexWarning, match="stale index"):
            zebrapack.file_splits(url, storage_options=options)
