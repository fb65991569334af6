"""zpa.write checks a block of rows in bulk (ROWS at a time: offsets in order and inside
their buffer, UTF-8 of the block's string bytes and no character split between two
values, integer ranges, nulls) and writes a clean block without a check per value; a
block that is not clean goes to the checked lanes. Either way every row writes what
encode writes, and the first bad value is refused at its own row, whichever block it is
in, after the rows before it."""

from __future__ import annotations

import array
import io
import random
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import zebrapack
from zebrapack import EncodeError

from support.engines import engine
from .writing import encoded, written

pa = engine("pyarrow")

#: Rows checked in bulk at a time (ZP_CLEAN_ROWS in cython/zp_arrow_write.h).
ROWS = 1024
UTC = timezone.utc
GO_ZERO = datetime(1, 1, 1, tzinfo=UTC)

SOURCE = """package p

import "time"

type Row struct {
	Label   string    `zid:"0"`
	Blob    []byte    `zid:"1"`
	Small   int32     `zid:"2"`
	Count   int64     `zid:"3"`
	Ratio   float64   `zid:"4"`
	Flag    bool      `zid:"5"`
	When    time.Time `zid:"6"`
	Maybe   *int16    `zid:"7"`
	Missing string    `zid:"8"`
	Remark  string    `zid:"9" msg:"a_remark_of_a_long_name"`
}
"""

TEXTS = ["", "a", "Ann Lee", "x" * 31, "y" * 40, "é", "日本語", "🙂 ok", "naïve café"]


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    path = tmp_path_factory.mktemp("bulk") / "row.go"
    path.write_text(SOURCE)
    return zebrapack.schema_from_go(path)


def _values(count: int, seed: int = 26, ascii_only: bool = False) -> dict[str, list[Any]]:
    rng = random.Random(seed)
    texts = [t for t in TEXTS if t.isascii()] if ascii_only else TEXTS
    return {"Label": [rng.choice(texts) + rng.choice(texts) for _ in range(count)],
            "Blob": [bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 5, 20]))) for _ in range(count)],
            "Small": [rng.choice([0, 1, -1, 2**31 - 1, -2**31, 300]) for _ in range(count)],
            "Count": [rng.choice([0, 7, -2**63, 2**63 - 1, 1 << 40]) for _ in range(count)],
            "Ratio": [rng.choice([0.0, -0.0, 1.5, float("inf"), 1e300]) for _ in range(count)],
            "Flag": [rng.random() < 0.5 for _ in range(count)],
            "When": [datetime(2000, 1, 1, tzinfo=UTC) + timedelta(microseconds=rng.randrange(-10**15, 10**15))
                     for _ in range(count)],
            "Maybe": [rng.choice([0, 5, -32768, 32767]) for _ in range(count)],
            "Remark": [rng.choice(texts) for _ in range(count)]}


TYPES = {"Label": pa.string(), "Blob": pa.binary(), "Small": pa.int64(), "Count": pa.int64(), "Ratio": pa.float64(),
         "Flag": pa.bool_(), "When": pa.timestamp("us", "UTC"), "Maybe": pa.int64(), "Remark": pa.string()}


def _table(values: dict[str, list[Any]], **columns: Any) -> Any:
    arrays = {name: columns.get(name, pa.array(column, TYPES[name])) for name, column in values.items()}
    return pa.table(arrays)


def _records(schema: zebrapack.Schema, values: dict[str, list[Any]]) -> list[Any]:
    Row = schema.types.Row
    names = list(values)
    return [Row(**{name: (GO_ZERO if name == "When" and value is None else value)
                   for name, value in zip(names, row)}) for row in zip(*values.values())]


def _strings(data: bytes, ends: list[int]) -> Any:
    """A string column over data, not checked by pyarrow: value k is data[ends[k-1]:ends[k]]."""
    return pa.Array.from_buffers(pa.string(), len(ends), [None, pa.py_buffer(array.array("i", [0, *ends]).tobytes()),
                                                          pa.py_buffer(data)])


def _refused_at(schema: zebrapack.Schema, table: Any, records: list[Any], row: int, message: str) -> None:
    """Refused at row, naming it; the chunks written before it hold the rows before it."""
    out = io.BytesIO()
    with pytest.raises(EncodeError, match=re.escape(f"row {row}, {message}")):
        zebrapack.arrow.write(table, out, schema, "Row", chunk_bytes=2000)
    assert encoded(schema, records[:row]).startswith(out.getvalue())
    assert len(out.getvalue()) > 0 or row < 40


@pytest.mark.parametrize("ascii_only", [False, True])
@pytest.mark.parametrize("options", [{}, {"mode": "msgp"}, {"structnames": False}])
def test_clean_blocks_write_as_encode_in_every_mode_and_chunking(schema: zebrapack.Schema, ascii_only: bool,
                                                                  options: dict[str, Any]) -> None:
    # msgp mode keys Remark by a tag of more than 8 bytes: the checked lanes write those rows
    values = _values(3 * ROWS + 17, ascii_only=ascii_only)
    table = _table(values)
    records = _records(schema, values)
    for chunk_bytes in (1, 777, 1 << 20):
        assert written(table, schema, "Row", chunk_bytes=chunk_bytes, **options) == encoded(schema, records, **options)
    for start, length in ((0, ROWS), (ROWS - 1, 2), (ROWS + 1, ROWS - 2), (1000, 2100), (3 * ROWS, 17)):
        assert written(table.slice(start, length), schema, "Row", **options) == \
            encoded(schema, records[start:start + length], **options)


def test_nulls_in_a_block_at_its_edges(schema: zebrapack.Schema) -> None:
    # a null pointer is nil, a null time Go's zero time: rows the lanes leave, in clean blocks
    values = _values(3 * ROWS)
    for row in (0, ROWS - 1, ROWS, ROWS + 1, 2 * ROWS + 500, 3 * ROWS - 1):
        values["Maybe"][row] = None
        values["When"][row + 1 if row + 1 < 3 * ROWS else 0] = None
    table = _table(values)
    records = _records(schema, values)
    assert written(table, schema, "Row") == encoded(schema, records)
    assert written(table, schema, "Row", chunk_bytes=500) == encoded(schema, records)


def test_a_value_out_of_range_under_a_null_is_not_read(schema: zebrapack.Schema) -> None:
    # the block's range check sees it and sends the block to the checked lanes, which skip nulls
    values = _values(2 * ROWS)
    values["Maybe"][ROWS + 3] = None
    table = _table(values)
    maybe = table.column("Maybe").combine_chunks()
    data = array.array("q", [0 if v is None else v for v in values["Maybe"]])
    data[ROWS + 3] = 1 << 40
    maybe = pa.Array.from_buffers(pa.int64(), len(data), [maybe.buffers()[0], pa.py_buffer(data.tobytes())])
    table = table.set_column(table.schema.get_field_index("Maybe"), "Maybe", maybe)
    assert written(table, schema, "Row") == encoded(schema, _records(schema, values))


def test_an_index_gets_every_record_end_of_clean_blocks(schema: zebrapack.Schema, tmp_path: Path) -> None:
    values = _values(2 * ROWS + 3)
    records = _records(schema, values)
    with schema.writer(tmp_path / "default.zpk", index=True) as writer:
        writer.write_all(records)
    assert zebrapack.arrow.write(_table(values), tmp_path / "arrow.zpk", schema, "Row", index=True,
                                 chunk_bytes=3000) == len(records)
    for name in ("default.zpk", "default.zpk.zpi"):
        assert (tmp_path / name.replace("default", "arrow")).read_bytes() == (tmp_path / name).read_bytes()


EDGES = [0, ROWS - 1, ROWS, ROWS + 1, 3 * ROWS - 1]


@pytest.mark.parametrize("row", EDGES)
def test_an_int_outside_the_field_range_is_refused_at_its_row(schema: zebrapack.Schema, row: int) -> None:
    values = _values(3 * ROWS)
    values["Small"][row] = 2**31
    records = _records(schema, values)
    _refused_at(schema, _table(values), records, row,
                "Row.Small: 2147483648 is outside the range of int32 (-2147483648..2147483647)")


@pytest.mark.parametrize("row", EDGES)
@pytest.mark.parametrize("bad", [b"\xff", b"\xed\xa0\x80", b"\xe6\x97"])
def test_invalid_utf8_in_a_block_is_refused_at_its_row(schema: zebrapack.Schema, row: int, bad: bytes) -> None:
    values = _values(3 * ROWS)
    labels = [label.encode() for label in values["Label"]]
    labels[row] = b"ok" + bad + "日".encode()
    _labels_refused_at(schema, values, labels, row)


def _labels_refused_at(schema: zebrapack.Schema, values: dict[str, Any], labels: list[bytes], row: int) -> None:
    """The Label column made of these UTF-8 bytes is refused at ``row`` as invalid UTF-8."""
    data = b"".join(labels)
    ends = [sum(map(len, labels[:k + 1])) for k in range(len(labels))]
    _refused_at(schema, _table(values, Label=_strings(data, ends)), _records(schema, values), row,
                "Row.Label: invalid UTF-8 in a string")


@pytest.mark.parametrize("row", EDGES[:-1])
def test_a_character_split_between_two_rows_is_refused_at_the_first(schema: zebrapack.Schema, row: int) -> None:
    # the block's bytes are valid UTF-8 together; row `row` ends inside a character
    values = _values(3 * ROWS)
    labels = [label.encode() for label in values["Label"]]
    labels[row] = "ab日".encode()[:-1]
    labels[row + 1] = "日".encode()[-1:] + b"cd"
    _labels_refused_at(schema, values, labels, row)


@pytest.mark.parametrize("row", EDGES[:-1])
def test_offsets_out_of_order_are_refused_at_their_row(schema: zebrapack.Schema, row: int) -> None:
    values = _values(3 * ROWS, ascii_only=True)
    labels = [label.encode() for label in values["Label"]]
    labels[row] = labels[row + 1] = b"abcd"
    data = b"".join(labels)
    ends = [sum(map(len, labels[:k + 1])) for k in range(len(labels))]
    ends[row] -= 6                      # row ends before it starts; the next one holds all 8 bytes
    records = _records(schema, values)
    _refused_at(schema, _table(values, Label=_strings(data, ends)), records, row,
                "Row.Label: offsets out of order or past the data buffer (invalid Arrow data)")
