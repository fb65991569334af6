"""Lists of fixed byte arrays (``[][N]byte``: UUIDs, hashes) are written and read item
by item without the general dispatch, as lists of ``[]byte`` are: each item a bin of
exactly N bytes; an item of another length is refused at its index, with the words of
a single ``[N]byte`` value, either way."""

from __future__ import annotations

import msgpack
import pytest

import zebrapack
from zebrapack import DecodeError, EncodeError
from support.go_schemas import schema_from_go_text

GO_SCHEMA = """package arrays

type Ids struct {
    V [][4]byte `zid:"0"`
    One [4]byte `zid:"1"`
    Pairs [2][3]byte `zid:"2"`
}
"""


def reason(error: ValueError) -> str:
    """What an error says, without its path and offset."""
    return str(error).split(": ", 1)[1].split(" (byte offset")[0]


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, GO_SCHEMA, "arrays")


def test_byte_array_items_are_bins_of_their_length(schema: zebrapack.Schema) -> None:
    ids = [bytes([i % 256, (i * 7) % 256, i // 256, 0xff]) for i in range(300)]
    value = schema.types.Ids(V=ids, One=b"abcd", Pairs=[b"xyz", b"\x00\x01\x02"])
    data = schema.encode(value)
    assert msgpack.packb(ids, use_bin_type=True) in data
    assert msgpack.packb([b"xyz", b"\x00\x01\x02"], use_bin_type=True) in data
    assert schema.decode(data) == value
    assert schema.encode(schema.types.Ids(V=tuple(ids), One=b"abcd", Pairs=(b"xyz", b"\x00\x01\x02"))) == data


@pytest.mark.parametrize("wrong", [b"abc", b"abcde", b""])
def test_an_item_of_another_length_is_refused_at_its_index_when_written(schema: zebrapack.Schema,
                                                                     wrong: bytes) -> None:
    with pytest.raises(EncodeError) as single:
        schema.encode(schema.types.Ids(One=wrong))
    for items in ([b"abcd", b"efgh", wrong], [b"abcd", b"efgh", bytearray(wrong)]):
        with pytest.raises(EncodeError) as caught:
            schema.encode(schema.types.Ids(V=items))
        assert caught.value.path == "Ids.V[2]"
        assert reason(caught.value) == reason(single.value)


@pytest.mark.parametrize("wrong", [b"\xc4\x03abc", b"\xc4\x05abcde", b"\xc4\x00", b"\x05"])
def test_an_item_of_another_length_or_kind_is_refused_at_its_index_when_read(schema: zebrapack.Schema,
                                                                          wrong: bytes) -> None:
    head = b"\x81\x00\x93" + b"\xc4\x04abcd" * 2
    with pytest.raises(DecodeError) as single:
        schema.decode(b"\x81\x01" + wrong, schema.types.Ids)
    with pytest.raises(DecodeError) as caught:
        schema.decode(head + wrong, schema.types.Ids)
    assert (caught.value.path, caught.value.offset) == ("Ids.V[2]", len(head))
    assert reason(caught.value) == reason(single.value)
    assert schema.decode(head + b"\xc4\x04efgh", schema.types.Ids).V == [b"abcd", b"abcd", b"efgh"]
    assert schema.decode(head + b"\xc0", schema.types.Ids).V == [b"abcd", b"abcd", b"\x00" * 4]
