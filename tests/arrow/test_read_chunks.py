"""Records that cross the end of a read chunk read exactly as from one buffer: whatever
the partial first reading of such a record appended (to any column, nested child,
validity bitmap, offsets or data) is undone before it is read again. And a record
that cannot be read never leaves part of itself in a batch that is delivered."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from support.vectors import MANIFEST, vector_bytes, vector_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zebrapack
import zebrapack.arrow as zpa
import zebrapack.arrow._read as zpa_read
import zebrapack.examples
from zebrapack import DecodeError

from support.engines import engine

from .conftest import seeded_a_records
from .oracle import assert_same_table, validate_full

pa = engine("pyarrow")


@contextmanager
def read_chunk(size: int) -> Iterator[None]:
    """Files and file objects read ``size`` bytes at a time (1 MiB normally)."""
    with mock.patch.object(zpa_read, "_READ_CHUNK", size):
        yield


def _source(kind: str, data: bytes, directory: Path) -> Any:
    if kind == "BytesIO":
        return io.BytesIO(data)
    path = directory / "records.zpk"
    path.write_bytes(data)
    return path


COMPOUND_SCHEMA = vector_schema("zp.z")
#: Compound records of every shape (lists, maps, nested structs, interface{} values, times), up to 4 KiB.
COMPOUND_RECORDS = [vector_bytes(case) for case in MANIFEST if case["schema"] == "zp.z" and case["type"] == "Compound"
                    and len(vector_bytes(case)) <= 4096]
A_SCHEMA = zebrapack.load(zebrapack.examples.SCHEMA)
A_RECORDS = [A_SCHEMA.encode(record) for record in seeded_a_records(A_SCHEMA, 40)]
SHAPES = {"Compound": (COMPOUND_SCHEMA, COMPOUND_RECORDS), "A": (A_SCHEMA, A_RECORDS)}


def _table(source: Any, schema: zebrapack.Schema, type_name: str, **options: Any) -> Any:
    stream = zpa.read(source, schema, type_name, time_unit="us", **options)
    return pa.Table.from_batches(validate_full(stream), schema=stream.schema)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(sorted(SHAPES)), kind=st.sampled_from(["BytesIO", "path"]), data=st.data(),
       chunk=st.integers(1, 700), batch_rows=st.integers(1, 40))
def test_records_across_read_chunks_read_as_from_one_buffer(shape: str, kind: str, data: st.DataObject, chunk: int,
                                                             batch_rows: int) -> None:
    schema, pool = SHAPES[shape]
    picks = data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=30))
    whole = b"".join(pool[i] for i in picks)
    expected = _table(whole, schema, shape)
    assert expected.num_rows == len(picks)
    with tempfile.TemporaryDirectory() as directory, read_chunk(chunk):
        got = _table(_source(kind, whole, Path(directory)), schema, shape, batch_rows=batch_rows)
    assert_same_table(got, expected)


@pytest.mark.parametrize("chunk", [1, 3, 64, 4095, 65536, (1 << 20) - 1])
@pytest.mark.parametrize("kind", ["BytesIO", "path"])
def test_a_record_larger_than_any_chunk_reads_whole(kind: str, chunk: int, compound_file: Any, tmp_path: Path) -> None:
    """Compound_large (70,000 Ints) and its neighbours read through every chunk size."""
    data = compound_file.data[:len(compound_file.data) // 5]
    expected = _table(data, compound_file.schema, "Compound")
    with read_chunk(chunk):
        got = _table(_source(kind, data, tmp_path), compound_file.schema, "Compound")
    assert_same_table(got, expected)


@pytest.mark.parametrize("cut", ["truncated", "bad value"])
@pytest.mark.parametrize("source", ["bytes", "file object"])
def test_a_record_that_fails_leaves_nothing_in_delivered_batches(cut: str, source: str) -> None:
    """Batches delivered before the failing record hold exactly the records before it, whole."""
    good = A_RECORDS * 3
    if cut == "truncated":
        bad = A_RECORDS[5][:-3]
    else:       # a Phone that is an int: refused after Name and Bday were appended
        phone = A_SCHEMA.decode(A_RECORDS[5]).Phone.encode()
        at = A_RECORDS[5].index(bytes([0xa0 | len(phone)]) + phone)
        bad = A_RECORDS[5][:at] + b"\x05" + A_RECORDS[5][at + 1 + len(phone):]
    whole = b"".join(good) + bad + (b"" if cut == "truncated" else b"".join(A_RECORDS))
    stream = zpa.read(whole if source == "bytes" else io.BytesIO(whole), A_SCHEMA, "A", batch_rows=7)
    delivered = []
    with read_chunk(97), pytest.raises(DecodeError, match=rf"record {len(good)}\b"):
        for batch in stream:
            batch.validate(full=True)
            delivered.append(batch)
    assert sum(batch.num_rows for batch in delivered) <= len(good)
    if delivered:
        expected = _table(b"".join(good), A_SCHEMA, "A").slice(0, sum(batch.num_rows for batch in delivered))
        got = pa.Table.from_batches(delivered)
        assert_same_table(got.cast(expected.schema), expected)
