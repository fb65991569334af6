"""A str is decoded from its UTF-8 by the core's own two passes (count and check, then
build the str at its final length and kind) and long ASCII in one pass: every string
decodes to what Python's own decoder makes of the same bytes, of the same kind, and
bytes that are not strict UTF-8 fail with Python's words and the same offset."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

import zebrapack
from zebrapack import DecodeError


@dataclass(slots=True)
class Text:
    S: str = field(default="", metadata={"zid": 0})
    L: list[str] = field(default_factory=list, metadata={"zid": 1})
    A: Any = field(default=None, metadata={"zid": 2})


@pytest.fixture(scope="module")
def schema() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(Text, package="strs")


def str_header(n: int) -> bytes:
    if n < 32:
        return bytes([0xa0 | n])
    if n < 256:
        return bytes([0xd9, n])
    if n < 65536:
        return b"\xda" + n.to_bytes(2, "big")
    return b"\xdb" + n.to_bytes(4, "big")


def field_s(payload: bytes) -> bytes:
    """A Text record whose S field holds the str of these UTF-8 bytes, as written."""
    return b"\x81\x00" + str_header(len(payload)) + payload


# One of each boundary of every UTF-8 length and str kind: the last ASCII, the first and
# last Latin-1, the first UCS2, the last two-byte, the first three-byte, around the
# surrogates, the last UCS2, the first four-byte and the last code point.
EDGES = ["\x00", "\x7f", "\x80", "\xff", "\u0100", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff",
         "\U00010000", "\U0010ffff"]
ALPHABETS = ["abcdefgh", "aéü ñç", "aé\u0100", "日本語テキスト", "a😀b", "é\u07ff\u0800\U0010ffff"]


def texts() -> list[str]:
    rng = random.Random(26)
    out = ["", "a", *EDGES, "".join(EDGES)]
    for n in (1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 255, 256, 257, 1000, 70000):
        for alphabet in ALPHABETS:
            out.append("".join(rng.choice(alphabet) for _ in range(n)))
    # long ASCII with one wider character at every kind of place: first, inside the
    # first 32-byte block, after it, last
    for wide in ("é", "\u0800", "😀"):
        for at in (0, 5, 31, 32, 33, 299, 300):
            out.append("x" * at + wide + "y" * (300 - at))
    return out


@pytest.mark.parametrize("text", texts(), ids=lambda t: f"{len(t)}:{max(t, default='')!a}"[:40])
def test_every_str_decodes_as_pythons_decoder_makes_it(schema: zebrapack.Schema, text: str) -> None:
    decoded = schema.decode(schema.encode(Text(S=text, L=[text, text], A={text: [text]}))).S
    assert decoded == text
    # the same compact kind as Python's own str of it (repr and hashing rely on it)
    assert decoded.encode("utf-8", "surrogatepass") == text.encode("utf-8")
    assert max(decoded, default="\x00") == max(text, default="\x00")


def python_error(payload: bytes) -> str:
    try:
        payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        return str(exc)
    raise AssertionError(f"{payload!r} is valid UTF-8")


INVALID = [
    b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xc2", b"\xc2\x41", b"\xdf\xc0",      # stray, overlong, cut, bad
    b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xe1\x80", b"\xe1\x41\x80", b"\xef\xbf\x41",    # three-byte
    b"\xed\xa0\x80", b"\xed\xbf\xbf",                                                   # surrogates
    b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80",   # four-byte: overlong, too big
    b"\xf1\x80\x80", b"\xf1\x80\x80\x41", b"\xf8\x88\x80\x80\x80", b"\xff", b"\xfe",
]


@pytest.mark.parametrize("bad", INVALID, ids=lambda b: b.hex())
@pytest.mark.parametrize("where", ["alone", "after ascii", "after latin1", "after cjk", "long"])
def test_invalid_utf8_fails_with_pythons_words_at_the_str(schema: zebrapack.Schema, bad: bytes, where: str) -> None:
    prefix = {"alone": b"", "after ascii": b"abcdefghij", "after latin1": "é".encode() * 5,
              "after cjk": "日本".encode(), "long": b"x" * 300}[where]
    payload = prefix + bad + b"tail"
    data = field_s(payload)
    with pytest.raises(DecodeError) as caught:
        schema.decode(data, Text)
    assert str(caught.value.reason) == f"invalid UTF-8 in a str: {python_error(payload)}"
    assert caught.value.path == "Text.S"
    assert caught.value.offset == 2


def test_random_bytes_decode_exactly_when_python_decodes_them(schema: zebrapack.Schema) -> None:
    rng = random.Random(2026)
    pieces = [b"a", b"\x7f", b"\x80", b"\xbf", b"\xc2", b"\xc3", b"\xdf", b"\xe0", b"\xed", b"\xef", b"\xf0",
              b"\xf4", b"\xf5", b"\xa0", b"\x9f", b"\x90", b"\x8f", "é".encode(), "日".encode(), "😀".encode()]
    for _ in range(3000):
        payload = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12)))
        if rng.random() < 0.2:
            payload = b"z" * rng.choice([8, 31, 257, 300]) + payload
        try:
            expected: str | None = payload.decode("utf-8")
        except UnicodeDecodeError:
            expected = None
        if expected is None:
            with pytest.raises(DecodeError, match="invalid UTF-8"):
                schema.decode(field_s(payload), Text)
        else:
            assert schema.decode(field_s(payload), Text).S == expected


@pytest.mark.parametrize("size", [63, 64, 65, 66, 126, 127, 128, 129, 255, 256, 257])
@pytest.mark.parametrize("wide", ["é", "日", "😀"])
def test_strs_around_the_lengths_where_the_decoding_path_changes(schema: zebrapack.Schema, size: int,
                                                                  wide: str) -> None:
    for text in (wide * (size // len(wide.encode()) - 1) + "a" * (size % len(wide.encode())) + wide,
                 "a" * (size - len(wide.encode())) + wide, "a" * size):
        assert len(text.encode()) in (size, size - len(wide.encode()) + len(wide.encode()))
        assert schema.decode(schema.encode(Text(S=text)), Text).S == text


def test_a_fixstr_field_cut_short_or_exactly_at_the_end(schema: zebrapack.Schema) -> None:
    assert schema.decode(b"\x81\x00\xa3abc", Text).S == "abc"           # ends exactly at the input's end
    assert schema.decode(b"\x81\x00\xa0", Text).S == ""
    for cut in (b"\x81\x00\xa3ab", b"\x81\x00\xa3", b"\x81\x00\xbf" + b"x" * 30):
        with pytest.raises(DecodeError, match="input ends inside a value") as caught:
            schema.decode(cut, Text)
        assert (caught.value.path, caught.value.offset) == ("Text.S", 2)
