"""A str is decoded from its UTF-8 by the core's own two passes (count and check, then
build the str at its final length and kind) and long ASCII in one pass: every string
decodes to what Python's own decoder makes of the same bytes, of the same kind, and
bytes that are not strict UTF-8 fail with Python's words and the same offset."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_one_ascii_character_is_pythons_own_str_of_it(schema: zebrapack.Schema) -> None:
    """A one-byte ASCII str (a field, a list item, an interface{} value) is the str
    Python's decoders give for it, one object per character, as ``chr`` gives it; the
    bytes after it are read as they are."""
    for code in range(128):
        char = chr(code)
        record = Text(S=char, L=[char, char + "b", "a" + char], A=[char, {char: char}])
        decoded = schema.decode(schema.encode(record))
        assert decoded.S == char and decoded.L == [char, char + "b", "a" + char]
        assert decoded.S is char and decoded.L[0] is char and decoded.A[0] is char
        assert decoded.A[1] == {char: char} and next(iter(decoded.A[1].values())) is char
    with pytest.raises(DecodeError):
        schema.decode(field_s(b"\x80"))        # one byte that is no character: refused as before


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


# -- the decoders' steps --------------------------------------------------------------
# The core's UTF-8 decoders take several characters a step where they can (eight ASCII
# bytes, four two-byte characters, two three-byte ones, two four-byte ones, Latin-1 eight
# bytes at a time) and one character elsewhere, then the last bytes one at a time: every
# arrangement of character lengths at every place relative to those steps, in every str
# kind and at its boundaries (U+00FF/U+0100, U+FFFF/U+10000), decodes to what Python's
# decoder makes of the same bytes; every invalid form at every place fails with Python's
# own message and byte offset.

def decode(schema: zebrapack.Schema, payload: bytes) -> str:
    return schema.decode(field_s(payload), Text).S


def assert_same_str(got: str, want: str) -> None:
    assert got == want
    # the same compact kind as Python's own str (its largest code point decides it)
    assert max(got, default="\x00") == max(want, default="\x00")
    assert got.encode("utf-8", "surrogatepass") == want.encode("utf-8")


# one character of each UTF-8 length, at the ends of its range, and the kind boundaries
ONE = ["a", "\x00", "\x7f"]
TWO = ["\x80", "é", "\xff", "\u0100", "\u07ff"]
THREE = ["\u0800", "日", "\ud7ff", "\ue000", "\uffff"]
FOUR = ["\U00010000", "😀", "\U0010ffff"]
# a first character that makes the str of each kind (and the decoder of each kind run)
KIND_LEADS = {"ucs1": "é", "ucs2": "\u0100", "ucs2-cjk": "日", "ucs4": "😀"}


@pytest.mark.parametrize("kind", list(KIND_LEADS))
@pytest.mark.parametrize("chars", [ONE, TWO, THREE, FOUR], ids=["one", "two", "three", "four"])
def test_runs_of_every_length_at_every_offset_decode_exactly(schema: zebrapack.Schema, kind: str,
                                                             chars: list[str]) -> None:
    lead = KIND_LEADS[kind]
    for pad in range(0, 17):
        for run in (1, 2, 3, 4, 5, 8, 9, 17, 40):
            run_text = "".join(chars[k % len(chars)] for k in range(run))
            for tail in ("", "z", "zzzzzzz", "zzzzzzzzzzzzzzzzzz"):
                text = lead + "x" * pad + run_text + tail
                if kind == "ucs1" and max(text) > "\xff":
                    continue
                assert_same_str(decode(schema, text.encode()), text)
                # and long, past the thresholds where the str goes to other paths
                long_text = text * 5 + lead + run_text * 7
                assert_same_str(decode(schema, long_text.encode()), long_text)


@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 63, 64, 65, 100, 257, 4099])
def test_random_mixes_of_every_length_decode_exactly(schema: zebrapack.Schema, size: int) -> None:
    rng = random.Random(size)
    alphabets = [ONE + TWO, ONE + THREE, ONE + FOUR, TWO + THREE, TWO + FOUR, THREE + FOUR,
                 ONE + TWO + THREE + FOUR, TWO, THREE, FOUR, ["é", "a"], ["\u0100", "a"], ["\uffff", "\U00010000"]]
    for alphabet in alphabets:
        for _ in range(4):
            text = "".join(rng.choice(alphabet) for _ in range(size))
            assert_same_str(decode(schema, text.encode()), text)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=200))
def test_any_text_decodes_as_it_was(text: str) -> None:
    schema = zebrapack.schema_from_dataclasses(Text, package="strs")
    for sample in (text, "é" + text, "日" + text, "😀" + text, text * 3 + "\U0010ffff"):
        assert_same_str(decode(schema, sample.encode()), sample)


def python_error_or_none(payload: bytes) -> str | None:
    try:
        payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        return str(exc)
    return None


def assert_decodes_as_python(schema: zebrapack.Schema, payload: bytes) -> None:
    """The str field of these UTF-8 bytes decodes to Python's str of them, or fails with
    Python's words at the str (its path and offset) where Python refuses them."""
    message = python_error_or_none(payload)
    if message is None:
        assert_same_str(decode(schema, payload), payload.decode())
        return
    with pytest.raises(DecodeError) as caught:
        schema.decode(field_s(payload), Text)
    assert str(caught.value.reason) == f"invalid UTF-8 in a str: {message}"
    assert (caught.value.path, caught.value.offset) == ("Text.S", 2)


# every invalid form: stray continuations, overlong two-, three- and four-byte forms, the
# leads 0xc0, 0xc1 and 0xf5-0xff, surrogates, above U+10FFFF, sequences cut by ASCII or
# by another lead, and the input's end
INVALID_FORMS = [
    b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xc2", b"\xc2\x41", b"\xc3\xc3", b"\xdf\xc0",
    b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xe1\x80", b"\xe1\x41\x80", b"\xef\xbf\x41", b"\xe8\x80\xe8",
    b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xb0\x80",
    b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf7\xbf\xbf\xbf",
    b"\xf1\x80\x80", b"\xf1\x80\x80\x41", b"\xf0\x9f\x98", b"\xf8\x88\x80\x80\x80", b"\xfc\x80", b"\xff",
    b"\xfe",
]
# runs the steps take several characters at a time from, for the invalid form to sit in
CONTEXTS = {
    "ascii": "abcdefgh" * 3, "latin1": "é" * 12, "two": "\u0100\u07ff" * 8, "cjk": "日本" * 8,
    "emoji": "😀" * 8, "mixed": "a\u0100日😀" * 4,
}


@pytest.mark.parametrize("context", list(CONTEXTS))
@pytest.mark.parametrize("bad", INVALID_FORMS, ids=lambda b: b.hex())
def test_every_invalid_form_at_every_place_fails_with_pythons_words(schema: zebrapack.Schema, context: str,
                                                                     bad: bytes) -> None:
    run = CONTEXTS[context].encode()
    for lead in ("", "\u0100", "😀"):
        for at in range(0, 18):
            for after in (b"", run, run * 5):
                # (a cut may happen to land between characters: then it decodes)
                assert_decodes_as_python(schema, lead.encode() + run[:at] + bad + after)


def test_mutated_valid_text_is_refused_exactly_when_python_refuses_it(schema: zebrapack.Schema) -> None:
    rng = random.Random(2611)
    base = ("aé\u0100\u07ff\u0800日\ud7ff\ue000\uffff\U00010000😀\U0010ffff" * 12).encode()
    for _ in range(4000):
        payload = bytearray(base[: rng.randrange(1, len(base))])
        for _ in range(rng.randrange(1, 3)):
            payload[rng.randrange(len(payload))] = rng.choice(
                [0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x41, 0xa0, 0x90])
        assert_decodes_as_python(schema, bytes(payload))


# -- Latin-1 text, 16 bytes a step ----------------------------------------------------
# Text of U+0000-U+00FF only (ASCII and two-byte characters 0xc2/0xc3 + continuation) is
# decoded 16 bytes a step where the machine has SSSE3, at every length over 16 bytes,
# then 8 bytes a step and one character at a time: a lead as a step's last byte (its
# continuation in the next step), runs of ASCII that fill whole steps, and every invalid
# byte at every place of a step decode or fail exactly as Python's decoder does.

LATIN1_CHARS = "aZ .,\x00\x7f\x80\xa0\xbf\xc0\xe9\xf1\xff"


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from(LATIN1_CHARS), max_size=120), st.integers(0, 40))
def test_latin1_text_of_any_length_and_offset_decodes_as_it_was(text: str, ascii_run: int) -> None:
    schema = zebrapack.schema_from_dataclasses(Text, package="strs")
    for sample in (text, "é" + text, "x" * ascii_run + text, text + "x" * ascii_run + text,
                   text * 9 + "ÿ" * (ascii_run % 17)):
        assert_same_str(decode(schema, sample.encode()), sample)


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(LATIN1_CHARS + "\u0100\u03a9\u0416\u05d0\u07ff"), max_size=120), st.integers(0, 40))
def test_two_byte_text_then_any_wider_decodes_as_it_was(text: str, ascii_run: int) -> None:
    # the 16-byte steps of str kind UCS2 (Greek, Cyrillic, Hebrew...) up to a three- or
    # four-byte character, and the plain steps from there
    schema = zebrapack.schema_from_dataclasses(Text, package="strs")
    for sample in ("\u0100" + text, text + "日" + text, "x" * ascii_run + text * 5 + "\uffff" + text,
                   text * 3 + "😀" + text):
        assert_same_str(decode(schema, sample.encode()), sample)


def test_latin1_text_with_a_lead_at_every_place_of_a_step_decodes_exactly(schema: zebrapack.Schema) -> None:
    for before in range(0, 40):
        for after in range(0, 40):
            text = "a" * before + "é" + "b" * after + "ñ"
            assert_same_str(decode(schema, text.encode()), text)
            text = "ü" * before + "c" * after + "\xff"
            assert_same_str(decode(schema, text.encode()), text)
            # a step of two-byte characters left at a three-byte one (from its lead on)
            text = "a" * before + "\u0416" + "日" * (after % 3 + 1) + "ж" * after
            assert_same_str(decode(schema, text.encode()), text)


# bytes that make Latin-1 text invalid: stray continuations, the overlong leads 0xc0
# and 0xc1, a lead cut by ASCII, by another lead or by the end, leads of wider
# characters cut short
LATIN1_BREAKERS = [b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xc2", b"\xc3", b"\xc3\xc3", b"\xc2\x41",
                   b"\xdf", b"\xe0", b"\xed\xa0", b"\xf0\x9f", b"\xff"]


@pytest.mark.parametrize("bad", LATIN1_BREAKERS, ids=lambda b: b.hex())
def test_every_invalid_byte_in_latin1_text_at_every_place_fails_with_pythons_words(schema: zebrapack.Schema,
                                                                                  bad: bytes) -> None:
    base = ("éa ñü" * 3 + "x" * 40 + "àç" * 12 + "éa ñü" * 3).encode()
    for at in range(0, len(base) + 1):
        for payload in (base[:at] + bad + base[at:], base[:at] + bad, base[:at] + bad + b"y" * 40):
            assert_decodes_as_python(schema, payload)


def test_mutated_latin1_text_is_refused_exactly_when_python_refuses_it(schema: zebrapack.Schema) -> None:
    rng = random.Random(2612)
    base = ("Ça été où à l'œil nu, señor: ¿qué? " * 20).replace("œ", "oe").encode()
    for _ in range(4000):
        payload = bytearray(base[rng.randrange(0, 40): rng.randrange(41, len(base))])
        for _ in range(rng.randrange(1, 3)):
            payload[rng.randrange(len(payload))] = rng.choice([0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xdf,
                                                               0xe0, 0xf0, 0xff, 0x41, 0xa9, 0x20])
        assert_decodes_as_python(schema, bytes(payload))


# -- long ASCII, then the rest ----------------------------------------------------------
# A long str that starts as ASCII is copied as ASCII in one pass until its first
# non-ASCII byte; the ASCII found is kept (copied, or widened for a str of two or four
# bytes a character) and only the rest is measured and decoded, from its own first byte
# on: at every length of that prefix, through the 32- and 8-byte steps of the copy and
# its overlapping last word, the str is what Python's decoder makes of the bytes, and a
# byte that is not strict UTF-8 right after the prefix or later (a stray continuation
# first of all) fails with Python's words and offset.

AFTER_ASCII = {"latin1": "é", "latin1-last": "\xff", "ucs2": "\u0100", "ucs2-cjk": "日", "ucs4": "😀"}
AFTER_ASCII_BAD = [b"\x80", b"\xbf", b"\xc3", b"\xc3\x41", b"\xc0\x80", b"\xe6\x97", b"\xed\xa0\x80", b"\xf0\x9f\x98",
                   b"\xf5\x80\x80\x80", b"\xff"]
# prefixes: short, then past the 256 bytes a str is first checked whole, at every place
# of the 32-byte steps, and near the end, where the last word overlaps
PREFIXES = [*range(0, 41), *range(256, 297), *range(1000, 1041)]


def long_after_ascii(prefix: int, middle: str, tail: int) -> str:
    """prefix ASCII characters, then middle, then tail more ASCII ones (seeded text)."""
    ascii_text = "".join(random.Random(prefix * 7 + tail).choices("abcdefghij KLMNOP.,0123", k=prefix + tail))
    return ascii_text[:prefix] + middle + ascii_text[prefix:]


@pytest.mark.parametrize("kind", list(AFTER_ASCII))
def test_long_ascii_then_a_wider_character_keeps_the_ascii_and_decodes_the_rest(schema: zebrapack.Schema,
                                                                                kind: str) -> None:
    char = AFTER_ASCII[kind]
    for prefix in PREFIXES:
        for middle in (char, char + "é", char * 9 + "x" + char * 17, char + "é\u0100日😀"[: 1 + prefix % 4]):
            for tail in (0, 1, 7, 8, 9, 300):
                text = long_after_ascii(prefix, middle, tail)
                assert_same_str(decode(schema, text.encode()), text)
    # the rest at every length up to the end, one wide character as the last
    for size in (257, 300, 1024):
        for at in range(size - 40, size):
            text = long_after_ascii(at, char, 0)
            assert_same_str(decode(schema, text.encode()), text)


@pytest.mark.parametrize("bad", AFTER_ASCII_BAD, ids=lambda b: b.hex())
def test_long_ascii_then_invalid_utf8_fails_with_pythons_words(schema: zebrapack.Schema, bad: bytes) -> None:
    for prefix in PREFIXES:
        for tail in (0, 5, 300):
            text = long_after_ascii(prefix, "", tail).encode()
            # right after the ASCII, after a valid character, and at the end
            assert_decodes_as_python(schema, text[:prefix] + bad + text[prefix:])
            assert_decodes_as_python(schema, text[:prefix] + "é".encode() + bad + text[prefix:])
            assert_decodes_as_python(schema, text[:prefix] + "日".encode() + text[prefix:] + bad)


def test_long_ascii_then_a_character_decodes_in_lists_and_interface_values(schema: zebrapack.Schema) -> None:
    for char in AFTER_ASCII.values():
        text = long_after_ascii(700, char, 300)
        decoded = schema.decode(schema.encode(Text(S=text, L=[text, "a" + text], A={text: [text]})))
        assert decoded.L == [text, "a" + text] and decoded.A == {text: [text]}
        assert_same_str(decoded.S, text)
