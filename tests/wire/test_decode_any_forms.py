"""interface{} values by their first byte: every one of the 256 lead bytes reads as the
Go type Go reads it as (msgp's ReadIntfBytes), whether the value is an interface{}
field, an item of []interface{} or a value of map[string]interface{}; and every cut of
every form is a DecodeError saying how many bytes it needs, at the value's offset, with
the same words in each of the three places."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from support.go_schemas import schema_from_go_text

import zebrapack
from zebrapack import DecodeError, Ext, GoFloat32, GoUint64

HOLDER_GO = '''package anyforms

type Holder struct {
	Any  interface{}            `zid:"0"`
	List []interface{}          `zid:"1"`
	Map  map[string]interface{} `zid:"2"`
}
'''

#: An encoded value for each lead byte from 0xc0 on, and what it reads as.
OTHER_FORMS: dict[int, tuple[bytes, Any]] = {
    0xc0: (b"\xc0", None),
    0xc1: (b"\xc1", None),              # never used: an error, below
    0xc2: (b"\xc2", False),
    0xc3: (b"\xc3", True),
    0xc4: (b"\xc4\x02ab", b"ab"),
    0xc5: (b"\xc5\x00\x02ab", b"ab"),
    0xc6: (b"\xc6\x00\x00\x00\x02ab", b"ab"),
    0xc7: (b"\xc7\x02\x07ab", Ext(7, b"ab")),
    0xc8: (b"\xc8\x00\x02\x07ab", Ext(7, b"ab")),
    0xc9: (b"\xc9\x00\x00\x00\x02\x07ab", Ext(7, b"ab")),
    0xca: (b"\xca" + struct.pack(">f", 1.5), GoFloat32(1.5)),
    0xcb: (b"\xcb" + struct.pack(">d", 2.5), 2.5),
    0xcc: (b"\xcc\xff", GoUint64(255)),
    0xcd: (b"\xcd\xff\xff", GoUint64(65535)),
    0xce: (b"\xce\xff\xff\xff\xff", GoUint64(2**32 - 1)),
    0xcf: (b"\xcf" + b"\xff" * 8, GoUint64(2**64 - 1)),
    0xd0: (b"\xd0\x80", -128),
    0xd1: (b"\xd1\x80\x00", -(2**15)),
    0xd2: (b"\xd2\x80\x00\x00\x00", -(2**31)),
    0xd3: (b"\xd3\x80" + b"\x00" * 7, -(2**63)),
    0xd4: (b"\xd4\x07a", Ext(7, b"a")),
    0xd5: (b"\xd5\x07ab", Ext(7, b"ab")),
    0xd6: (b"\xd6\x07abcd", Ext(7, b"abcd")),
    0xd7: (b"\xd7\x07" + b"a" * 8, Ext(7, b"a" * 8)),
    0xd8: (b"\xd8\x07" + b"a" * 16, Ext(7, b"a" * 16)),
    0xd9: (b"\xd9\x03abc", "abc"),
    0xda: (b"\xda\x00\x03abc", "abc"),
    0xdb: (b"\xdb\x00\x00\x00\x03abc", "abc"),
    0xdc: (b"\xdc\x00\x02\x01\xd1\x01\x00", [1, 256]),
    0xdd: (b"\xdd\x00\x00\x00\x02\x01\xd1\x01\x00", [1, 256]),
    0xde: (b"\xde\x00\x01\xa1k\xcb" + struct.pack(">d", 0.5), {"k": 0.5}),
    0xdf: (b"\xdf\x00\x00\x00\x01\xa1k\xcb" + struct.pack(">d", 0.5), {"k": 0.5}),
}


def form(lead: int) -> tuple[bytes, Any]:
    """An encoded value whose first byte is ``lead``, and the Python value it reads as."""
    if lead <= 0x7f or lead >= 0xe0:
        return bytes([lead]), struct.unpack(">b", bytes([lead]))[0]
    count = lead & 0x0f
    if lead <= 0x8f:
        entries = {chr(ord("a") + i): i - 5 for i in range(count)}
        return bytes([lead]) + b"".join(b"\xa1" + k.encode() + struct.pack(">b", v) for k, v in entries.items()), entries
    if lead <= 0x9f:
        return bytes([lead]) + bytes(range(count)), list(range(count))
    if lead <= 0xbf:
        text = "é" * ((lead & 0x1f) // 2) + "x" * ((lead & 0x1f) % 2)
        return bytes([lead]) + text.encode(), text
    return OTHER_FORMS[lead]


LEADS = [lead for lead in range(256) if lead != 0xc1]

#: Each place an interface{} value is read: the zid of its field; how the value is put
#: there first, with another after it (so the reader must stop where the value ends), and
#: where it starts then; how it is put there last (a cut then ends the input inside it,
#: not inside a header before it that claims more values), and where it starts then;
#: how the decoded record holds it.
PLACES: dict[str, tuple[int, Any, int, Any, int, Any]] = {
    "field": (0, lambda v: v, 0, lambda v: v, 0, lambda got: got.Any),
    "list item": (1, lambda v: b"\x92" + v + b"\x07", 1, lambda v: b"\x92\x07" + v, 2, lambda got: got.List[0]),
    "map value": (2, lambda v: b"\x82\xa1k" + v + b"\xa1z\x07", 3, lambda v: b"\x82\xa1z\x07\xa1k" + v, 6,
                  lambda got: got.Map["k"]),
}


@pytest.fixture(scope="module")
def holder(tmp_path_factory: pytest.TempPathFactory) -> zebrapack.Schema:
    return schema_from_go_text(tmp_path_factory, HOLDER_GO, "anyforms")


def record(zid: int, body: bytes) -> bytes:
    return b"\x82\xff\xa6Holder" + bytes([zid]) + body


HEAD = len(record(0, b""))


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("lead", LEADS, ids=lambda lead: f"{lead:#04x}")
def test_every_lead_byte_reads_as_the_go_type_of_its_form(holder: zebrapack.Schema, lead: int, place: str) -> None:
    encoded, expected = form(lead)
    zid, put, _, _, _, held = PLACES[place]
    got = holder.decode(record(zid, put(encoded)))
    value = held(got)
    assert value == expected
    assert type(value) is type(expected)
    if place == "list item":
        assert got.List[1] == 7
    if place == "map value":
        assert got.Map["z"] == 7


#: The header's size of the forms whose length follows the lead byte (str, bin, ext).
HEADER_SIZES = {0xc4: 2, 0xc5: 3, 0xc6: 5, 0xc7: 3, 0xc8: 4, 0xc9: 6, 0xd9: 2, 0xda: 3, 0xdb: 5}


def is_container(lead: int) -> bool:
    return 0x80 <= lead <= 0x9f or 0xdc <= lead <= 0xdf


@pytest.mark.parametrize("lead", LEADS, ids=lambda lead: f"{lead:#04x}")
def test_every_cut_of_every_form_is_the_same_decode_error_in_every_place(holder: zebrapack.Schema,
                                                                        lead: int) -> None:
    encoded, _ = form(lead)
    for cut in range(1, len(encoded)):
        seen = set()
        for place, (zid, _, _, put, start, _) in PLACES.items():
            with pytest.raises(DecodeError, match="input ends inside a value") as caught:
                holder.decode(record(zid, put(encoded)[:start + cut]))
            offset = caught.value.offset - HEAD - start
            message = str(caught.value).split(": ", 1)[1]
            assert 0 <= offset <= cut, (place, cut, message)
            if not is_container(lead):
                # at the value's first byte: the header it needs, or the whole value once the header is there
                header = HEADER_SIZES.get(lead, len(encoded))
                needed = header if cut < header else len(encoded)
                assert offset == 0, (place, cut, message)
                assert message.startswith(f"input ends inside a value: {needed} bytes needed, {cut} left"), message
            seen.add((message.split(" (byte offset")[0], offset))
        assert len(seen) == 1, seen


@pytest.mark.parametrize("place", PLACES)
def test_0xc1_is_never_used_in_every_place(holder: zebrapack.Schema, place: str) -> None:
    zid, put, start, _, _, _ = PLACES[place]
    with pytest.raises(DecodeError, match="0xc1 is never used in msgpack") as caught:
        holder.decode(record(zid, put(b"\xc1")))
    assert caught.value.offset == HEAD + start
