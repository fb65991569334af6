"""Lists and maps inside lists and maps (``[][]T``, ``[]map[K]V``, ``map[K][]T``,
``map[K]map[K]V``, fixed arrays and pointers to lists among them) read straight by the
container's reader: the values, a nil's zero, and each error's words, path and offset
are those of a field of the same type."""

from __future__ import annotations

from typing import Any

import pytest
from support.go_schemas import schema_from_go_text

import zebrapack
from zebrapack import DecodeError

NEST_GO = '''package nest

type Nest struct {
	LL [][]int64                   `zid:"0"`
	LM []map[string]int64          `zid:"1"`
	ML map[string][]int64          `zid:"2"`
	MM map[string]map[string]int64 `zid:"3"`
	MA map[string][2]int64         `zid:"4"`
	LA [][2]int64                  `zid:"5"`
	PL []*[]int64                  `zid:"6"`
}
'''

FIELDS = ["LL", "LM", "ML", "MM", "MA", "LA", "PL"]


@pytest.fixture(scope="module")
def nest(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, NEST_GO, "nest")


def record(field: str, body: bytes) -> bytes:
    return b"\x82\xff\xa4Nest" + bytes([FIELDS.index(field)]) + body


READS: list[tuple[str, bytes, Any]] = [
    ("LL", b"\x93\x92\x01\x02\xc0\x90", [[1, 2], [], []]),
    ("LM", b"\x92\x81\xa1a\x01\xc0", [{"a": 1}, {}]),
    ("ML", b"\x82\xa1a\x92\x01\x02\xa1b\xc0", {"a": [1, 2], "b": []}),
    ("MM", b"\x82\xa1a\x81\xa1b\x02\xa1c\xc0", {"a": {"b": 2}, "c": {}}),
    ("MA", b"\x82\xa1a\x92\x01\x02\xa1b\xc0", {"a": [1, 2], "b": [0, 0]}),
    ("LA", b"\x92\x92\x01\x02\xc0", [[1, 2], [0, 0]]),
    ("PL", b"\x92\x92\x01\x02\xc0", [[1, 2], None]),
    ("ML", b"\x81\xa1a\xdc\x00\x02\x01\x02", {"a": [1, 2]}),          # array16
    ("MM", b"\x81\xa1a\xde\x00\x01\xa1b\x02", {"a": {"b": 2}}),        # map16
]


@pytest.mark.parametrize(("field", "body", "expected"), READS)
def test_nested_lists_and_maps_read_with_nils_as_their_zeros(nest: zebrapack.Schema, field: str, body: bytes,
                                                           expected: Any) -> None:
    assert getattr(nest.decode(record(field, body)), field) == expected


ERRORS: list[tuple[str, bytes, str, str, int]] = [
    ("LL", b"\x92\x91\x01\xa1x", "expected []int64, found str", "Nest.LL[1]", 11),
    ("LL", b"\x92\x91\x01\x92\x01", "input ends inside a value: 2 bytes needed, 1 left", "Nest.LL[1]", 12),
    ("LM", b"\x92\x81\xa1a\x01\x05", "expected map[string]int64, found positive fixint", "Nest.LM[1]", 13),
    ("ML", b"\x81\xa1a\xa1x", "expected []int64, found str", "Nest.ML['a']", 11),
    ("ML", b"\x81\xa1a\x92\x01", "input ends inside a value: 2 bytes needed, 1 left", "Nest.ML['a']", 12),
    ("ML", b"\x81\xa1a\x91\x91", "expected int64, found array", "Nest.ML['a'][0]", 12),
    ("MM", b"\x81\xa1a\x91\x01", "expected map[string]int64, found array", "Nest.MM['a']", 11),
    ("MA", b"\x81\xa1a\x91\x01", "expected [2]int64 (2 elements), found an array of 1", "Nest.MA['a']", 12),
    ("LA", b"\x91\x93\x01\x02\x03", "expected [2]int64 (2 elements), found an array of 3", "Nest.LA[0]", 10),
    ("PL", b"\x91\xa1x", "expected []int64, found str", "Nest.PL[0]", 9),
]


@pytest.mark.parametrize(("field", "body", "words", "path", "offset"), ERRORS)
def test_nested_container_errors_name_their_path_and_offset(nest: zebrapack.Schema, field: str, body: bytes,
                                                            words: str, path: str, offset: int) -> None:
    with pytest.raises(DecodeError) as caught:
        nest.decode(record(field, body))
    assert str(caught.value) == f"{path}: {words} (byte offset {offset})"
    assert caught.value.path == path
    assert caught.value.offset == offset
