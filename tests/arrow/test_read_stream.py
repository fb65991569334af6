"""zebrapack.arrow.read: sources, batches, projection, nulls, errors, strictness,
threads and the GIL, through pyarrow, Polars and DuckDB."""

from __future__ import annotations

import io
import struct
import threading
from datetime import datetime, timezone

import pytest

import zebrapack
import zebrapack.arrow as zpa
from zebrapack.examples import __file__ as examples_init

from support.engines import engine
from .ticking import ticks_during

pa = engine("pyarrow")

EXAMPLES = zebrapack.load(examples_init.replace("__init__.py", "zp.z"))
A, Compound, Inner, Prims = (EXAMPLES.types[name] for name in ("A", "Compound", "Inner", "Prims"))
UTC = timezone.utc


def a_records(n: int, start: int = 0) -> list:
    return [A(Name=f"rec{i}", Bday=datetime(1990, 1, 1 + i % 28, tzinfo=UTC), Phone="" if i % 3 else f"p{i}",
              Sibs=i, GPA=i / 4, Friend=bool(i % 2)) for i in range(start, start + n)]


def encode_all(records, **options) -> bytes:
    return b"".join(EXAMPLES.encode(r, **options) for r in records)


def expected_a(records) -> dict:
    return {"Name": [r.Name for r in records], "Bday": [r.Bday for r in records],
            "Phone": [r.Phone for r in records], "Sibs": [r.Sibs for r in records],
            "GPA": [r.GPA for r in records], "Friend": [r.Friend for r in records]}


# -- sources ------------------------------------------------------------------------------


def test_bytes_bytearray_memoryview_sources():
    records = a_records(50)
    data = encode_all(records)
    for source in (data, bytearray(data), memoryview(data)):
        assert zpa.read(source, EXAMPLES, "A").read_all().to_pydict() == expected_a(records)


def test_path_and_file_object_sources(tmp_path):
    records = a_records(300)
    path = tmp_path / "a.zpk"
    with EXAMPLES.writer(path) as writer:
        writer.write_all(records)
    assert zpa.read(path, EXAMPLES, "A").read_all().to_pydict() == expected_a(records)
    assert zpa.read(str(path), EXAMPLES, "A").read_all().to_pydict() == expected_a(records)
    with open(path, "rb") as handle:
        assert zpa.read(handle, EXAMPLES, "A").read_all().to_pydict() == expected_a(records)


def test_leading_schema_document_is_skipped(tmp_path):
    records = a_records(20)
    path = tmp_path / "self.zpk"
    with EXAMPLES.writer(path, write_schema=True) as writer:
        writer.write_all(records)
    data = path.read_bytes()
    for source in (path, data, io.BytesIO(data)):
        assert zpa.read(source, EXAMPLES, "A").read_all().to_pydict() == expected_a(records)


def test_list_of_sources_numbers_records_across_them(tmp_path):
    first, second = a_records(5), a_records(7, 5)
    path = tmp_path / "b.zpk"
    path.write_bytes(encode_all(second) + b"\xc1")
    table = zpa.read([encode_all(first), path], EXAMPLES, "A")
    with pytest.raises(zebrapack.DecodeError) as info:
        table.read_all()
    assert info.value.record == 12
    assert info.value.offset == len(encode_all(second))
    path.write_bytes(encode_all(second))
    assert zpa.read([encode_all(first), path], EXAMPLES, "A").read_all().to_pydict() == expected_a(first + second)


def test_file_read_in_chunks_across_record_boundaries(tmp_path):
    # records larger than a read chunk, and many small ones around them
    big = A(Name="x" * (3 << 20), GPA=1.5)
    records = a_records(1000) + [big] + a_records(1000, 1000)
    path = tmp_path / "big.zpk"
    path.write_bytes(encode_all(records))
    table = zpa.read(path, EXAMPLES, "A").read_all()
    assert table.column("Name").to_pylist() == [r.Name for r in records]
    with open(path, "rb") as handle:
        assert zpa.read(handle, EXAMPLES, "A").read_all().column("Sibs").to_pylist() == [r.Sibs for r in records]


def test_truncated_file_is_an_error_at_the_last_record(tmp_path):
    data = encode_all(a_records(10))
    path = tmp_path / "cut.zpk"
    path.write_bytes(data[:-3])
    with pytest.raises(zebrapack.TornTailError, match="torn tail: the input ends inside the record") as info:
        zpa.read(path, EXAMPLES, "A").read_all()
    assert info.value.record == 9
    assert info.value.offset == len(encode_all(a_records(9)))      # where the torn record starts


def test_splits_read_exactly_their_records_and_check_the_index(tmp_path):
    records = a_records(5000)
    path = tmp_path / "s.zpk"
    with EXAMPLES.writer(path, index=True, write_schema=True) as writer:
        writer.write_all(records)
    zebrapack.build_index(path, every=700)
    splits = zebrapack.file_splits(path, target_records=1500)
    assert len(splits) > 2
    names = []
    for split in splits:
        part = zpa.read(split, EXAMPLES, "A").read_all()
        assert part.num_rows == split.records
        names += part.column("Name").to_pylist()
    assert names == [r.Name for r in records]
    assert zpa.read(splits, EXAMPLES, "A").read_all().num_rows == 5000
    # the file changes under its index: the entry's checksum catches it
    data = bytearray(path.read_bytes())
    entry = splits[1].entries[0]
    data[entry.start + 3] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(zebrapack.DecodeError, match=r"split .*checksum"):
        zpa.read(splits[1], EXAMPLES, "A").read_all()


def test_unindexed_split_is_the_whole_file(tmp_path):
    records = a_records(30)
    path = tmp_path / "u.zpk"
    with EXAMPLES.writer(path, write_schema=True) as writer:
        writer.write_all(records)
    [split] = zebrapack.file_splits(path)
    assert zpa.read(split, EXAMPLES, "A").read_all().to_pydict() == expected_a(records)


def test_each_stream_call_is_a_fresh_reader_and_a_file_object_reads_once():
    data = encode_all(a_records(10))
    stream = zpa.read(data, EXAMPLES, "A")
    first = pa.RecordBatchReader.from_stream(stream).read_all()
    second = pa.RecordBatchReader.from_stream(stream).read_all()
    assert first.equals(second) and first.num_rows == 10
    once = zpa.read(io.BytesIO(data), EXAMPLES, "A")
    assert once.read_all().num_rows == 10
    with pytest.raises(ValueError, match="only be read once"):
        once.__arrow_c_stream__()


def test_read_next_batch_keeps_one_reader():
    stream = zpa.read(encode_all(a_records(10)), EXAMPLES, "A", batch_rows=4)
    sizes = [stream.read_next_batch().num_rows for _ in range(3)]
    assert sizes == [4, 4, 2]
    with pytest.raises(StopIteration):
        stream.read_next_batch()


def test_bad_sources_and_options():
    with pytest.raises(TypeError, match="a source is"):
        zpa.read(12, EXAMPLES, "A")
    with pytest.raises(ValueError, match="batch_rows"):
        zpa.read(b"", EXAMPLES, "A", batch_rows=0)
    with pytest.raises(FileNotFoundError):
        zpa.read("/nonexistent/x.zpk", EXAMPLES, "A").read_all()
    assert zpa.read(b"", EXAMPLES, "A").read_all().num_rows == 0


# -- batches ------------------------------------------------------------------------------


def test_batches_are_bounded_by_rows_and_bytes():
    data = encode_all(a_records(1000))
    batches = list(zpa.read(data, EXAMPLES, "A", batch_rows=64))
    assert [b.num_rows for b in batches] == [64] * 15 + [40]
    by_bytes = list(zpa.read(data, EXAMPLES, "A", batch_bytes=2000))
    assert sum(b.num_rows for b in by_bytes) == 1000 and len(by_bytes) > 10
    assert all(b.nbytes < 6000 for b in by_bytes)
    # a single record larger than batch_bytes still makes a batch of one
    big = EXAMPLES.encode(A(Name="y" * 10000))
    assert [b.num_rows for b in zpa.read(big * 3, EXAMPLES, "A", batch_bytes=100)] == [1, 1, 1]


# -- projection ---------------------------------------------------------------------------


def test_projection_reads_only_the_chosen_columns():
    records = [Compound(Ints=[i], Nested=Inner(X=i, Y=f"y{i}"), Ptr=Inner(X=-i, Y="p") if i % 2 else None,
                        Renamed=f"r{i}") for i in range(20)]
    data = encode_all(records)
    table = zpa.read(data, EXAMPLES, "Compound", columns=["Renamed", "Nested.Y", "Ptr.X"]).read_all()
    assert table.schema.names == ["Nested", "Ptr", "Renamed"]
    assert table.column("Nested").to_pylist() == [{"Y": f"y{i}"} for i in range(20)]
    assert table.column("Ptr").to_pylist() == [{"X": -i} if i % 2 else None for i in range(20)]
    assert table.column("Renamed").to_pylist() == [f"r{i}" for i in range(20)]


def test_unchosen_fields_are_not_type_checked_only_stepped_over():
    # Name holds an int (a type error for decode): left out, it is skipped
    record = b"\x82\x00\x05\x04\xcb" + struct.pack(">d", 2.5)
    with pytest.raises(zebrapack.DecodeError):
        EXAMPLES.decode(record, "A")
    assert zpa.read(record, EXAMPLES, "A", columns=["GPA"]).read_all().to_pydict() == {"GPA": [2.5]}


# -- values, nulls ------------------------------------------------------------------------


def test_nulls_where_python_has_none():
    records = [Compound(Ptr=None, PInt=None, PInners=[None, Inner(X=1)], Anys=[None, 5]),
               Compound(Ptr=Inner(X=2, Y="b"), PInt=7)]
    table = zpa.read(encode_all(records), EXAMPLES, "Compound").read_all()
    table.validate(full=True)
    assert table.column("Ptr").to_pylist() == [None, {"X": 2, "Y": "b"}]
    assert table.column("PInt").to_pylist() == [None, 7]
    assert table.column("PInners").to_pylist()[0] == [None, {"X": 1, "Y": ""}]
    anys = table.column("Anys").to_pylist()[0]
    assert anys == [None, b"\x05"]
    assert table.column("Ptr").null_count == 1


def test_zero_time_in_own_field_is_null_and_elsewhere_needs_microseconds():
    data = EXAMPLES.encode(A(Name="z", Bday=None))
    assert zpa.read(data, EXAMPLES, "A").read_all().column("Bday").to_pylist() == [None]
    zero = datetime(1, 1, 1, tzinfo=UTC)
    times = EXAMPLES.encode(Compound(Times=[zero]))
    with pytest.raises(zebrapack.DecodeError, match=r"timestamp\[ns\]") as info:
        zpa.read(times, EXAMPLES, "Compound").read_all()
    assert info.value.path == "Compound.Times[0]"
    got = zpa.read(times, EXAMPLES, "Compound", time_unit="us").read_all().column("Times").to_pylist()
    assert got == [[zero]]


def test_nanoseconds_kept_and_refused_by_microseconds():
    stamp = zebrapack.Timestamp(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC, nanosecond=789)
    data = EXAMPLES.encode(A(Bday=stamp))
    column = zpa.read(data, EXAMPLES, "A").read_all().column("Bday")
    assert column.cast(pa.int64()).to_pylist() == [int(stamp.timestamp()) * 10**9 + 123456789]
    with pytest.raises(zebrapack.DecodeError, match="cannot hold"):
        zpa.read(data, EXAMPLES, "A", time_unit="us").read_all()


def test_interface_values_are_their_own_msgpack_bytes():
    record = Prims(Any={"k": [1, "two", None]})
    data = EXAMPLES.encode(record)
    raw = zpa.read(data, EXAMPLES, "Prims").read_all().column("Any").to_pylist()[0]
    assert raw in data and EXAMPLES.decode(EXAMPLES.encode(Prims(Any=None)), "Prims").Any is None
    import msgpack
    assert msgpack.unpackb(raw) == {"k": [1, "two", None]}


def test_msgp_mode_and_records_without_struct_names():
    records = a_records(10)
    for options in ({"mode": "msgp"}, {"structnames": False}):
        data = encode_all(records, **options)
        assert zpa.read(data, EXAMPLES, "A").read_all().to_pydict() == expected_a(records), options


def test_unknown_zids_skipped_and_missing_fields_zero():
    # zid 9 unknown (a nested map), zid 3 missing
    record = b"\x83\x00\xa1x\x09\x81\xa1k\x92\x01\x02\x05\xc3"
    table = zpa.read(record, EXAMPLES, "A").read_all()
    assert table.to_pylist() == [{"Name": "x", "Bday": None, "Phone": "", "Sibs": 0, "GPA": 0.0, "Friend": True}]


def test_duplicate_field_keeps_the_last_as_decode():
    record = b"\x82\x00\xa1a\x00\xa1b"
    assert EXAMPLES.decode(record, "A").Name == "b"
    assert zpa.read(record, EXAMPLES, "A").read_all().column("Name").to_pylist() == ["b"]


def test_strict_accepts_exactly_what_decode_strict_accepts():
    uint_in_int = b"\x81\x03\xcc\x05"          # Sibs (int) as a uint8
    assert zpa.read(uint_in_int, EXAMPLES, "A").read_all().column("Sibs").to_pylist() == [5]
    with pytest.raises(zebrapack.DecodeError, match="strict"):
        EXAMPLES.decode(uint_in_int, "A", strict=True)
    with pytest.raises(zebrapack.DecodeError, match="strict") as info:
        zpa.read(uint_in_int, EXAMPLES, "A", strict=True).read_all()
    assert info.value.path == "A.Sibs"


# -- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(("record", "type_name", "path"), [
    (b"\x81\x03\xd1\x80\x00", "A", "A.Sibs"),                       # fits, an int16: fine (control)
    (b"\x81\x00\xa2\xff\xfe", "A", "A.Name"),                       # invalid UTF-8
    (b"\x81\x07\x81\x00\xcf" + b"\xff" * 8, "Compound", "Compound.Nested.X"),   # overflows int32
    (b"\x81\x03\x92\x01", "Compound", "Compound.Arr"),              # truncated
    (b"\x81\x05\x81\xa1k\xa1v", "Compound", "Compound.SMap['k']"),  # a str for an int64 value
    (b"\x81\x03\x92\x01\x02", "Compound", "Compound.Arr"),          # [3]float64 of 2
    (b"\x81\x0c\x91\x91\xc3", "Compound", "Compound.Matrix[0][0]"), # bool for int32
])
def test_errors_name_record_path_and_offset_as_decode(record, type_name, path):
    data = EXAMPLES.encode(Inner(X=1), structnames=False) if type_name == "Inner" else b""
    prefix = encode_all(a_records(3)) if type_name == "A" else EXAMPLES.encode(Compound())
    try:
        EXAMPLES.decode(record, type_name)
    except zebrapack.DecodeError as exc:
        expected = exc
    else:
        assert zpa.read(prefix + record, EXAMPLES, type_name).read_all().num_rows == (4 if type_name == "A" else 2)
        return
    with pytest.raises(zebrapack.DecodeError) as info:
        zpa.read(prefix + record + data, EXAMPLES, type_name).read_all()
    got = info.value
    if not data and expected.reason.startswith("input ends inside"):    # the input ends inside the record
        assert isinstance(got, zebrapack.TornTailError) and (got.path, got.offset) == ("$", len(prefix))
        return
    assert got.path == expected.path == path
    assert got.offset == len(prefix) + expected.offset
    assert got.record == (3 if type_name == "A" else 1)
    assert f"(record {got.record})" in str(got)


def test_c_stream_error_carries_the_same_text():
    bad = encode_all(a_records(2)) + b"\x81\x00\xa2\xff\xfe"
    with pytest.raises(zebrapack.DecodeError) as info:
        zpa.read(bad, EXAMPLES, "A").read_all()
    with pytest.raises(pa.ArrowException) as arrow_info:
        pa.RecordBatchReader.from_stream(zpa.read(bad, EXAMPLES, "A")).read_all()
    assert str(info.value) in str(arrow_info.value)


def test_depth_limited_like_decode():
    shallow = zebrapack.load(examples_init.replace("__init__.py", "zp.z"), max_depth=3)
    nested = b"\x81\x13\x91" + b"\x91" * 5 + b"\x01"     # Prims.Any: nested arrays
    record = b"\x81\x13" + b"\x91" * 5 + b"\x01"
    with pytest.raises(zebrapack.DecodeError, match="max_depth=3"):
        shallow.decode(record, "Prims")
    with pytest.raises(zebrapack.DecodeError, match="max_depth=3"):
        zpa.read(record, shallow, "Prims").read_all()
    del nested


# -- engines, threads, the GIL ----------------------------------------------------------------


def test_polars_and_duckdb_take_the_stream():
    pl = engine("polars")
    duckdb = engine("duckdb")
    records = a_records(100)
    data = encode_all(records)
    frame = pl.DataFrame(zpa.read(data, EXAMPLES, "A"))
    assert frame["Name"].to_list() == [r.Name for r in records]
    reader = zpa.read(data, EXAMPLES, "A")
    rows = duckdb.sql("select Friend, count(*) as n from reader group by Friend order by Friend").fetchall()
    assert rows == [(False, 50), (True, 50)]


def test_consumed_from_another_thread(tmp_path):
    records = a_records(2000)
    path = tmp_path / "t.zpk"
    path.write_bytes(encode_all(records))
    result = {}

    def consume(source):
        result[source] = pa.RecordBatchReader.from_stream(zpa.read(source, EXAMPLES, "A", batch_rows=100)).read_all()

    with open(path, "rb") as handle:
        threads = [threading.Thread(target=consume, args=(source,)) for source in (path, handle)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert all(table.num_rows == 2000 for table in result.values())


@pytest.mark.parametrize("source", ["bytes", "path"])
def test_threads_calling_read_next_batch_on_one_stream_get_each_row_once(tmp_path, source):
    """The stream's kept reader is made and read under a lock: threads take turns, so that
    every batch goes to one of them (it was made twice: the first batch twice)."""
    records = a_records(3000)
    data = encode_all(records)
    path = tmp_path / "t.zpk"
    path.write_bytes(data)
    for _ in range(10):
        stream = zpa.read(data if source == "bytes" else path, EXAMPLES, "A", batch_rows=50)
        names, errors = [], []
        start = threading.Barrier(4)

        def pull():
            start.wait()
            while True:
                try:
                    batch = stream.read_next_batch()
                except StopIteration:
                    return
                except RuntimeError as error:       # an error is allowed, a duplicate is not
                    errors.append(error)
                    return
                names.extend(batch.column("Name").to_pylist())

        threads = [threading.Thread(target=pull) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        assert sorted(names) == sorted(r.Name for r in records)


def test_gil_is_released_while_a_batch_decodes():
    data = encode_all(a_records(2000)) * 500       # 1M records: tens of milliseconds in one call
    reader = zpa.read(data, EXAMPLES, "A", batch_rows=1 << 30)._open()
    batch, ticks, seconds = ticks_during(reader.next_batch)
    assert batch is not None
    assert ticks >= 3, (seconds, ticks)


def test_recursive_struct_inner_occurrences_are_their_own_bytes():
    Tree = EXAMPLES.types.Tree
    leaf = Tree(Label="leaf", Weight=0.5)
    root = Tree(Label="root", Kids=[leaf, Tree(Label="mid", Kids=[leaf])], Up=Tree(Label="up"))
    data = EXAMPLES.encode(root)
    table = zpa.read(data, EXAMPLES, "Tree").read_all()
    table.validate(full=True)
    row = table.to_pylist()[0]
    assert row["Label"] == "root" and row["Weight"] == 0.0
    kids = [EXAMPLES.decode(raw, "Tree") for raw in row["Kids"]]
    assert kids == root.Kids
    assert EXAMPLES.decode(row["Up"], "Tree") == root.Up
    assert zpa.read(EXAMPLES.encode(Tree()), EXAMPLES, "Tree").read_all().column("Up").to_pylist() == [None]


def test_complex_and_ext_columns():
    record = Prims(C64=complex(1.5, -2), C128=complex(3, 4.25))
    table = zpa.read(EXAMPLES.encode(record), EXAMPLES, "Prims").read_all()
    assert table.column("C64").to_pylist() == [{"real": 1.5, "imag": -2.0}]
    assert table.column("C128").to_pylist() == [{"real": 3.0, "imag": 4.25}]


def test_maps_keep_wire_order():
    record = Compound(SMap={"b": 2, "a": 1, "c": 3}, IMap={5: "five", -1: "minus"})
    table = zpa.read(EXAMPLES.encode(record), EXAMPLES, "Compound").read_all()
    assert table.column("SMap").to_pylist() == [[("b", 2), ("a", 1), ("c", 3)]]
    assert table.column("IMap").to_pylist() == [[(5, "five"), (-1, "minus")]]


def test_an_exported_reader_is_read_by_its_consumer_only():
    reader = zpa.read(encode_all(a_records(10)), EXAMPLES, "A")._open()
    capsule = reader.export_stream()
    with pytest.raises(ValueError, match="handed to an Arrow consumer"):
        reader.next_batch()
    assert pa.RecordBatchReader._import_from_c_capsule(capsule).read_all().num_rows == 10
