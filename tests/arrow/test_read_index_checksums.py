"""An indexed split's entries are checked against their CRC-32 (zlib's) before their
records are read (zp_crc32: 64 bytes a step by carry-less multiplication where the
machine has it, eight bytes a step, then a byte a step): entries of every length from
one byte on read when intact, and a flipped bit anywhere in one is refused."""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest

import zebrapack
import zebrapack.arrow as zpa
from zebrapack import DecodeError

from support.engines import engine
from support.go_schemas import schema_from_go_text

pa = engine("pyarrow")

GO_SCHEMA = """package sums

type Row struct {
	S string `zid:"0"`
}
"""
#: The lengths of the records' strings: every record is an index entry of its own, of
#: each length around the steps (16, 64 and 8 bytes) and the tail's.
LENGTHS = [*range(0, 140), 200, 255, 1000, 4093, 65536 + 7]


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, GO_SCHEMA, "sums")


def record(n: int) -> bytes:
    return bytes(msgpack.packb({-1: "Row", 0: "".join(chr(48 + (n * 7 + i) % 75) for i in range(n))}))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = Path(tmp_path_factory.mktemp("sums")) / "rows.zpk"
    path.write_bytes(b"".join(record(n) for n in LENGTHS))
    zebrapack.build_index(path, every=1)
    return path


def test_entries_of_every_length_read_when_intact(schema: zebrapack.Schema, indexed: Path) -> None:
    splits = zebrapack.file_splits(indexed)
    assert [split.stop - split.start for split in splits] == [len(record(n)) for n in LENGTHS]
    for split, n in zip(splits, LENGTHS):
        assert zpa.read(split, schema, type="Row").read_all().column("S")[0].as_py() == msgpack.unpackb(record(n), strict_map_key=False)[0]


@pytest.mark.parametrize("n", [0, 15, 16, 63, 64, 65, 79, 80, 137, 1000, 65536 + 7])
def test_a_flipped_bit_anywhere_in_an_entry_is_refused(schema: zebrapack.Schema, indexed: Path,
                                                        tmp_path: Path, n: int) -> None:
    size = len(record(n))
    split = zebrapack.file_splits(indexed)[LENGTHS.index(n)]
    original = indexed.read_bytes()
    for at in sorted({size - 1, size // 2, max(size - 9, 0), max(size - 17, 0), min(63, size - 1)}):
        changed = bytearray(original)
        changed[split.start + at] ^= 0x40       # the same length, another character
        path = tmp_path / "changed.zpk"
        path.write_bytes(bytes(changed))
        moved = type(split)(str(path), split.start, split.stop, split.records, split.entries)
        with pytest.raises(DecodeError, match="do not match the index's checksum"):
            zpa.read(moved, schema, type="Row").read_all()
