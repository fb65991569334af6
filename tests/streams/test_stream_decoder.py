"""The push decoder (``schema.stream_decoder``): records out of bytes fed in pieces of
any size, each as soon as its last byte is fed; torn tails, limits, errors at stream
offsets, and a cost linear in the bytes however they are split."""

from __future__ import annotations

import pickle
import sys
import tracemalloc
import warnings
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.vectors import TESTS, VECTORS, vector_schema
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from support.strategies import structs
from test_stream_sources import cpu_seconds
from support.expected_values import same

import zebrapack
from zebrapack import DecodeError, TornTailError

sys.path.insert(0, str(TESTS / "fuzz"))
from decode_target import records_and_error  # noqa: E402  (the fuzz target checks the same)

STREAM = (VECTORS / "zp" / "A_stream.zpk").read_bytes()
COMPOUND = (VECTORS / "zp" / "Compound_full.zpk").read_bytes()
TREE = (VECTORS / "zp" / "Tree_deep.zpk").read_bytes()
ZP = vector_schema("zp.z")
ZPN = vector_schema("zpn.z")


#: How a piece is fed: as bytes (read in place), a memoryview of bytes (read in place
#: too), a bytearray the caller overwrites right after (copied), or as bytes without
#: taking the records before the next piece (the pieces wait in the decoder).
FEEDS = ("bytes", "memoryview", "bytearray", "bytes, records taken later")


def fed(decoder: zebrapack.StreamDecoder[Any], data: bytes, cuts: list[int],
        how: list[str] | None = None) -> Iterator[Any]:
    """Feed data cut at cuts (each piece as ``how`` says, bytes by default), giving the
    records after each piece; then close."""
    start = 0
    for number, cut in enumerate([*cuts, len(data)]):
        way = how[number % len(how)] if how else "bytes"
        if way == "bytearray":
            piece = bytearray(data[start:cut])
            decoder.feed(piece)
            piece[:] = b"\xc1" * len(piece)     # the caller may reuse its buffer at once
        else:
            decoder.feed(memoryview(data)[start:cut] if way == "memoryview" else data[start:cut])
        if way != "bytes, records taken later":
            for record in decoder:      # not yield from, which would close the decoder early
                yield record
        start = cut
    for record in decoder:
        yield record
    decoder.close()


def test_each_record_comes_out_when_its_last_byte_is_fed() -> None:
    records = ZP.decode_all(STREAM)
    ends = [len(b"".join(ZP.encode(r) for r in records[:i + 1])) for i in range(len(records))]
    decoder = ZP.stream_decoder()
    got: list[Any] = []
    for position in range(len(STREAM)):
        decoder.feed(STREAM[position:position + 1])
        got.extend(decoder)
        assert len(got) == sum(1 for end in ends if end <= position + 1)
        assert decoder.offset == max([0, *(end for end in ends if end <= position + 1)])
        assert decoder.buffered == position + 1 - decoder.offset
    decoder.close()
    assert got == records
    assert decoder.records == 5 and decoder.closed


@pytest.mark.parametrize("how", FEEDS)
@pytest.mark.parametrize("piece", [1, 3, 17, 64, 4096], ids=lambda piece: f"{piece}B")
def test_pieces_of_any_size_give_the_records_of_decode_all(piece: int, how: str) -> None:
    data = STREAM + COMPOUND + TREE + STREAM
    assert list(fed(ZP.stream_decoder(), data, list(range(piece, len(data), piece)), [how])) == ZP.decode_all(data)


def test_a_piece_of_bytes_is_read_in_place_and_only_what_completes_a_record_is_copied() -> None:
    records = STREAM * 200                   # 52 kB
    decoder = ZP.stream_decoder()
    tracemalloc.start()
    try:
        decoder.feed(records[:-10])
        first = len(list(decoder))
        copied_for_the_cut = tracemalloc.get_traced_memory()[1]
        decoder.feed(records[-10:] + records)
        rest = len(list(decoder))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (first, rest) == (999, 1001)
    # the first piece's records (~330 bytes each: list, instances, str, datetime), and
    # the pieces; never another copy of a whole piece
    assert copied_for_the_cut < 999 * 330 + 60_000
    assert peak < 1001 * 330 + 2 * 60_000


def test_any_bytes_like_piece_is_taken_and_copied() -> None:
    decoder = ZP.stream_decoder()
    piece = bytearray(STREAM[:50])
    decoder.feed(piece)
    piece[:] = b"\x00" * 50         # the caller may reuse its buffer at once
    decoder.feed(memoryview(STREAM)[50:100])
    decoder.feed(memoryview(bytearray(STREAM[100:])).cast("B"))
    decoder.feed(b"")
    assert list(decoder) == ZP.decode_all(STREAM)


@dataclass
class _Split:
    records: list[Any]
    data: bytes
    cuts: list[int] = field(default_factory=list)
    how: list[str] = field(default_factory=list)


@st.composite
def split_streams(draw: st.DrawFn) -> _Split:
    names = st.sampled_from(["A", "Compound", "Tree", "Prims", "Inner"])
    records = draw(st.lists(names.flatmap(lambda name: structs(ZP, name)), max_size=6))
    data = b"".join(encoded(record) for record in records)
    cuts = sorted(draw(st.sets(st.integers(0, len(data)), max_size=12)))
    how = draw(st.lists(st.sampled_from(FEEDS), min_size=1, max_size=len(cuts) + 1))
    return _Split(records, data, cuts, how)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(split_streams())
def test_every_way_of_splitting_a_stream_gives_the_records_of_decode_all(split: _Split) -> None:
    records = list(fed(ZP.stream_decoder(), split.data, split.cuts, split.how))
    expected = ZP.decode_all(split.data)
    assert len(records) == len(expected)
    for record, expected_record in zip(records, expected):
        same(record, expected_record)           # NaN equals NaN


def encoded(record: Any) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # Compound.Old is deprecated
        return ZP.encode(record)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(split_streams(), st.data())
def test_every_way_of_splitting_a_damaged_stream_gives_the_records_and_error_of_iter_decode(
        split: _Split, data: st.DataObject) -> None:
    damaged = bytearray(split.data)
    for _ in range(data.draw(st.integers(0, 3)) if damaged else 0):
        damaged[data.draw(st.integers(0, len(damaged) - 1))] = data.draw(st.integers(0, 255))
    damaged = damaged[:data.draw(st.integers(0, len(damaged)))]          # perhaps cut short too
    cuts = [cut for cut in split.cuts if cut <= len(damaged)]
    note(f"damaged={bytes(damaged)!r}, cuts={cuts}")
    expected, expected_error = records_and_error(ZP.iter_decode(bytes(damaged)))
    # iter_decode of bytes has no max_record_size: nor has this decoder (a length the
    # damage makes up may claim gigabytes, which the default limit would refuse first).
    got, error = records_and_error(fed(ZP.stream_decoder(max_record_size=1 << 40), bytes(damaged), cuts, split.how))
    assert len(got) == len(expected)
    for record, expected_record in zip(got, expected):
        same(record, expected_record)           # NaN equals NaN; what damage made need not encode
    assert (type(error), error and error.offset) == (type(expected_error), expected_error and expected_error.offset)


# -- the end of the stream -------------------------------------------------------------------

def test_close_after_a_partial_record_is_a_torn_tail_at_its_start() -> None:
    last = ZP.encode(ZP.decode_all(STREAM)[-1])
    decoder = ZP.stream_decoder()
    decoder.feed(STREAM[:-3])
    assert list(decoder) == ZP.decode_all(STREAM)[:-1]
    with pytest.raises(TornTailError, match="torn tail") as caught:
        decoder.close()
    assert caught.value.offset == len(STREAM) - len(last)
    assert isinstance(caught.value, DecodeError)
    decoder.close()         # reported once: closing again says nothing more


def test_close_finds_a_torn_tail_behind_records_not_taken_yet() -> None:
    decoder = ZP.stream_decoder(offset=1000)
    decoder.feed(STREAM + STREAM[:7])
    with pytest.raises(TornTailError) as caught:
        decoder.close()
    assert caught.value.offset == 1000 + len(STREAM)
    assert len(list_until_error(decoder)) == 5      # the complete records are still there...
    with pytest.raises(TornTailError):               # ...and then the torn one again
        next(decoder)


def list_until_error(decoder: zebrapack.StreamDecoder[Any]) -> list[Any]:
    records = []
    while True:
        try:
            records.append(next(decoder))
        except (StopIteration, DecodeError):
            return records


def test_close_at_a_record_boundary_is_clean() -> None:
    decoder = ZP.stream_decoder()
    decoder.close()
    assert list(decoder) == []
    decoder = ZP.stream_decoder()
    decoder.feed(STREAM)
    decoder.close()
    assert len(list(decoder)) == 5


def test_feed_after_close_is_an_error() -> None:
    decoder = ZP.stream_decoder()
    decoder.close()
    with pytest.raises(ValueError, match="feed after close"):
        decoder.feed(STREAM)


# -- limits ----------------------------------------------------------------------------------

def test_a_record_claiming_more_than_max_record_size_fails_before_its_bytes_come() -> None:
    first = ZP.encode(ZP.decode_all(STREAM)[0])
    decoder = ZP.stream_decoder(max_record_size=1000)
    decoder.feed(first + b"\x82\xff\xa1A\x00\xdb\xff\xff\xff\xff" + b"x" * 10)     # a 4 GB str announced
    assert next(decoder) == ZP.decode(first)
    with pytest.raises(DecodeError, match="max_record_size=1000") as caught:
        next(decoder)
    assert caught.value.offset == len(first)


def test_a_record_that_goes_on_and_on_fails_once_it_passes_max_record_size() -> None:
    # Inner with an unknown zid 99 holding arrays of 15 arrays, four deep (54 kB): no
    # header claims much, the record just grows.
    def tree(depth: int) -> bytes:
        return b"\x00" if depth == 0 else b"\x9f" + tree(depth - 1) * 15
    record = b"\x81\x63" + tree(4)
    decoder = ZP.stream_decoder("Inner", max_record_size=10_000)
    with pytest.raises(DecodeError, match="max_record_size=10000") as caught:
        for start in range(0, len(record), 100):
            decoder.feed(record[start:start + 100])
            assert list(decoder) == []
    assert caught.value.offset == 0
    assert 10_000 <= decoder.buffered <= 10_100
    whole = ZP.stream_decoder("Inner")
    whole.feed(record)
    assert list(whole) == [ZP.types.Inner()]


def test_a_whole_record_larger_than_max_record_size_is_refused_too() -> None:
    decoder = ZP.stream_decoder(max_record_size=20)
    decoder.feed(COMPOUND)
    with pytest.raises(DecodeError, match="max_record_size=20"):
        next(decoder)


def test_memory_goes_back_down_after_a_large_record() -> None:
    big = ZP.encode(ZP.types.A(Name="x" * (16 << 20)))
    tracemalloc.start()
    try:
        decoder = ZP.stream_decoder()
        base = tracemalloc.get_traced_memory()[0]
        for start in range(0, len(big), 1 << 16):
            decoder.feed(big[start:start + (1 << 16)])
            records = list(decoder)
        held_by_the_buffer = tracemalloc.get_traced_memory()[0] - base
        del records
        decoder.feed(STREAM)
        assert len(list(decoder)) == 5
        after = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert held_by_the_buffer > 16 << 20
    assert after < 1 << 20


# -- errors ----------------------------------------------------------------------------------

def test_a_malformed_record_is_an_error_at_its_stream_offset_and_ends_the_stream() -> None:
    corrupt = bytearray(STREAM)
    first = len(ZP.encode(ZP.decode_all(STREAM)[0]))
    corrupt[first + 5] = 0xc1
    decoder = ZP.stream_decoder(offset=100)
    decoder.feed(bytes(corrupt[:first + 20]))
    assert len(list_until_error(decoder)) == 1
    with pytest.raises(DecodeError) as again:
        next(decoder)
    assert again.value.offset == 100 + first + 5
    with pytest.raises(DecodeError):        # a DecodeError ends the stream: feed says so too
        decoder.feed(STREAM)


def test_a_record_that_is_not_a_map_is_an_error() -> None:
    decoder = ZP.stream_decoder()
    decoder.feed(b"\x93\x01\x02\x03")
    with pytest.raises(DecodeError, match="struct map") as caught:
        next(decoder)
    assert caught.value.offset == 0


def test_too_deep_a_record_is_an_error_even_in_pieces() -> None:
    schema = zebrapack.load(VECTORS / "schemas" / "zp.z", max_depth=20)
    decoder = schema.stream_decoder("Inner")
    for piece in (b"\x81\x63", b"\x91" * 10, b"\x91" * 20):     # zid 99: a value Inner skips
        decoder.feed(piece)
        with pytest.raises(DecodeError, match="max_depth=20") if len(piece) == 20 else nullcontext():
            assert list(decoder) == []


def test_strict_and_type_are_decode_s() -> None:
    inner = ZPN.encode(ZPN.types.Inner(X=1))
    decoder = ZPN.stream_decoder("Inner")
    decoder.feed(inner * 3)
    assert list(decoder) == [ZPN.types.Inner(X=1)] * 3
    signed_as_uint = b"\x81\x00\xcc\x05"            # Inner.X is an int: 0xcc is Go's uint8
    lax, strict = ZPN.stream_decoder("Inner"), ZPN.stream_decoder("Inner", strict=True)
    lax.feed(signed_as_uint)
    strict.feed(signed_as_uint)
    assert list(lax) == [ZPN.types.Inner(X=5)]
    with pytest.raises(DecodeError):
        list(strict)
    with pytest.raises(ValueError, match="not a struct"):
        ZP.stream_decoder("Nope")


def test_records_written_in_msgp_mode_come_out_too() -> None:
    out = bytearray()
    for name in ("a", "b"):
        ZP.encode_into(ZP.types.A(Name=name, Sibs=2), out, -1, mode="msgp")
    decoder = ZP.stream_decoder(ZP.types.A)
    assert list(fed(decoder, bytes(out), [3, 9])) == [ZP.types.A(Name="a", Sibs=2), ZP.types.A(Name="b", Sibs=2)]


def test_a_record_s_post_init_may_not_use_its_decoder() -> None:
    decoders: list[Any] = []

    @dataclass
    class Inner:
        X: int = 0
        Y: str = ""

        def __post_init__(self) -> None:
            decoders[0].feed(b"")

    schema = zebrapack.load(VECTORS / "schemas" / "zp.z", types={"Inner": Inner})
    decoders.append(schema.stream_decoder())
    decoders[0].feed(schema.encode(Inner(X=1)))
    with pytest.raises(DecodeError, match="RuntimeError"):
        list(decoders[0])


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="max_record_size"):
        ZP.stream_decoder(max_record_size=0)
    with pytest.raises(ValueError, match="offset"):
        ZP.stream_decoder(offset=-1)
    with pytest.raises(TypeError):
        ZP.stream_decoder().feed("text")        # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pickle.dumps(ZP.stream_decoder())


# -- cost ------------------------------------------------------------------------------------

def test_a_large_record_in_small_pieces_costs_about_what_it_costs_whole() -> None:
    record = ZP.encode(ZP.types.Compound(Inners=[ZP.types.Inner(X=i, Y="y" * (i % 20)) for i in range(60_000)]))
    whole = cpu_seconds(lambda: ZP.decode(record))
    pieces = [record[i:i + 1024] for i in range(0, len(record), 1024)]      # ~1000 pieces

    def in_pieces() -> Any:
        decoder = ZP.stream_decoder()
        for piece in pieces:
            decoder.feed(piece)
            list(decoder)
        decoder.close()

    # Parsing the record again at each piece would cost ~500 times decode; linear costs ~2-3.
    assert cpu_seconds(in_pieces) < 8 * whole + 0.05


def test_the_decoder_is_generic_for_type_checkers() -> None:
    assert zebrapack.StreamDecoder[int] is not None
    assert "offset=0 buffered=0 records=0" in repr(ZP.stream_decoder())
