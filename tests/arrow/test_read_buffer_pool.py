"""The reader's buffer pool (zp_pool.h): a batch the consumer has released is the memory
of the reader's next batches (and of the reader that follows it, a decoder thread's next
range), bits and all cleared where Arrow needs them clear; at most two batches' bytes
are kept."""

from __future__ import annotations

import gc
from typing import Any

import msgpack
import pytest

import zebrapack
import zebrapack.arrow as zpa

from support.engines import engine
from support.go_schemas import schema_from_go_text

pa = engine("pyarrow")

GO_SCHEMA = """package pool

type Inner struct {
	N int64 `zid:"0"`
}

type Row struct {
	Name string   `zid:"0"`
	P    *int64   `zid:"1"`
	Ok   bool     `zid:"2"`
	Tags []string `zid:"3"`
	In   *Inner   `zid:"4"`
}
"""

ROWS = 4096     # a batch: its int64 column alone is 32 KiB, above what the pool keeps
BITMAP_ROWS = 40_000    # a batch whose bitmaps (5,000 bytes) are kept too


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, GO_SCHEMA, "pool")


def row(i: int, set_: bool) -> bytes:
    value: dict[int, Any] = {-1: "Row", 0: f"name {i}", 1: i if set_ else None, 2: set_,
                             3: [f"t{i}", "u"] if set_ else [], 4: {-1: "Inner", 0: i} if set_ else None}
    return bytes(msgpack.packb(value))


def rows(start: int, count: int, set_: bool) -> bytes:
    return b"".join(row(i, set_) for i in range(start, start + count))


def addresses(batch: Any) -> set[int]:
    """The addresses of every buffer of the batch's columns and their children."""
    found: set[int] = set()

    def walk(array: Any) -> None:
        found.update(buffer.address for buffer in array.buffers() if buffer is not None)
    for column in batch.columns:
        walk(column)
    return found


def reader(schema: zebrapack.Schema, data: bytes, **options: Any) -> Any:
    options.setdefault("batch_rows", ROWS)
    made = zpa.read(data, schema, "Row", **options)._new_reader()
    made.add_buffer(data, 0)
    return made


def next_batch(made: Any) -> Any:
    capsules = made.next_batch()
    return None if capsules is None else pa.RecordBatch._import_from_c_capsule(*capsules)


def test_a_released_batch_is_the_memory_of_the_next(schema):
    made = reader(schema, rows(0, 3 * ROWS, True))
    first = next_batch(made)
    used = addresses(first)
    del first
    gc.collect()
    assert made.pooled_bytes > 0
    second = next_batch(made)
    assert addresses(second) & used             # written into the released batch's buffers
    assert second.column("Name").to_pylist() == [f"name {i}" for i in range(ROWS, 2 * ROWS)]


def test_a_batch_held_is_never_written_into(schema):
    made = reader(schema, rows(0, 3 * ROWS, True))
    held = [next_batch(made) for _ in range(3)]
    assert made.pooled_bytes == 0
    assert not set.intersection(*(addresses(batch) for batch in held))
    assert [name for batch in held for name in batch.column("Name").to_pylist()] == \
        [f"name {i}" for i in range(3 * ROWS)]


def test_validity_and_bool_bits_of_reused_buffers_start_clear(schema):
    # every bit set in the first batch (values present, true), none in the second; the
    # bitmaps of BITMAP_ROWS rows are large enough to be kept
    data = rows(0, BITMAP_ROWS, True) + rows(BITMAP_ROWS, BITMAP_ROWS, False)
    made = reader(schema, data, batch_rows=BITMAP_ROWS)
    first = next_batch(made)
    bitmaps = {buffer.address for name in ("P", "In", "Ok") for buffer in first.column(name).buffers()
               if buffer is not None and buffer.size >= 4096}
    del first
    gc.collect()
    second = next_batch(made)
    assert bitmaps and bitmaps <= addresses(second)     # every bitmap written into again
    assert second.column("P").null_count == BITMAP_ROWS
    assert second.column("In").null_count == BITMAP_ROWS
    assert second.column("Ok").to_pylist() == [False] * BITMAP_ROWS
    assert second.column("Tags").to_pylist() == [[]] * BITMAP_ROWS
    expected = zpa.read(data, schema, "Row", batch_rows=BITMAP_ROWS).read_all().slice(BITMAP_ROWS)
    assert pa.Table.from_batches([second]).equals(expected.combine_chunks())


def test_a_reader_that_follows_an_ended_one_writes_into_its_released_batches(schema):
    first = reader(schema, rows(0, 2 * ROWS, True))
    last_used: set[int] = set()
    while (batch := next_batch(first)) is not None:
        last_used = addresses(batch)
        del batch
        gc.collect()
    followed = reader(schema, rows(2 * ROWS, ROWS, False))
    followed.follow(first)
    kept = first.pooled_bytes
    assert kept > 0 and followed.pooled_bytes == kept          # one pool now
    batch = next_batch(followed)
    assert addresses(batch) & last_used
    assert followed.pooled_bytes < kept
    assert batch.column("Name").to_pylist() == [f"name {i}" for i in range(2 * ROWS, 3 * ROWS)]
    assert batch.column("P").null_count == ROWS


def test_the_pool_keeps_at_most_two_batches_bytes(schema):
    batch_bytes = 64 << 10
    made = reader(schema, rows(0, 8 * ROWS, True), batch_bytes=batch_bytes)
    held = []
    while (batch := next_batch(made)) is not None:
        held.append(batch)
    assert len(held) > 4
    del held, batch
    gc.collect()
    assert 0 < made.pooled_bytes <= 2 * batch_bytes


def test_batches_outliving_their_reader_keep_their_values_and_are_freed(schema):
    # the pool goes with its last holder: batches held past their reader still read
    # their own values (under the sanitizer build, a buffer freed or handed on too early
    # is a report; docs/sanitizers-and-fuzzing.md)
    made = reader(schema, rows(0, 2 * ROWS, True))
    held = [next_batch(made), next_batch(made)]
    del made
    gc.collect()
    assert [name for batch in held for name in batch.column("Name").to_pylist()] == \
        [f"name {i}" for i in range(2 * ROWS)]
    assert [p for batch in held for p in batch.column("P").to_pylist()] == list(range(2 * ROWS))
    del held
    gc.collect()
