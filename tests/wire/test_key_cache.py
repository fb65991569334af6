"""Short ASCII map keys come from a cache shared by every decode: whatever the cache
holds, each key read is the key written, for map[string]T and interface{} maps."""

from __future__ import annotations

import pytest

import zebrapack
from zebrapack import DecodeError


def keys_of_every_kind() -> list[str]:
    keys = ["", "a", "é", "ké", "x" * 16, "y" * 17, "z" * 31, "\x7f"]
    keys += [f"k{i}" for i in range(2000)]     # more keys than cache slots: slots are replaced
    return keys


def test_interface_map_keys_round_trip_through_the_cache(zp: zebrapack.Schema) -> None:
    prims = zp.types.Prims
    document = {key: [key, {key: len(key)}] for key in keys_of_every_kind()}
    for _ in range(3):                          # first reads fill the cache, later ones hit it
        decoded = zp.decode(zp.encode(prims(Any=document))).Any
        assert decoded == document
        assert all(type(key) is str for key in decoded)


def test_string_keyed_map_keys_round_trip_through_the_cache(zp: zebrapack.Schema) -> None:
    compound = zp.types.Compound
    smap = {key: i for i, key in enumerate(keys_of_every_kind())}
    for _ in range(3):
        assert zp.decode(zp.encode(compound(SMap=smap))).SMap == smap


def test_truncated_cached_key_is_still_an_error(zp: zebrapack.Schema) -> None:
    data = zp.encode(zp.types.Compound(SMap={"abcdef": 1}))
    cut = data[:data.index(b"abcdef") + 3]
    with pytest.raises(DecodeError, match="SMap"):
        zp.decode(cut)


@pytest.mark.parametrize("length", range(18))
def test_a_key_near_the_end_of_the_input_reads_as_one_far_from_it(zp: zebrapack.Schema, length: int) -> None:
    # a key within 16 bytes of the input's end is loaded byte-exact (nothing past the
    # end read), one further from it as whole words: the same key either way, the
    # cached str itself once cached
    key = "q" * length
    document = {"a": 1, key: {key: 2}}
    record = zp.encode(zp.types.Prims(Any=document))
    seen: list[str] = []
    for _ in range(3):
        for decoded in [zp.decode(record).Any, *(r.Any for r in zp.decode_all(record * 3))]:
            assert decoded == document
            seen.append(next(k for k in decoded if k == key))
    if length <= 16:
        assert all(k is seen[-1] for k in seen[1:])


def test_string_keyed_map_keys_near_the_end_and_past_the_cache(zp: zebrapack.Schema) -> None:
    compound = zp.types.Compound
    for smap in ({f"k{i}": i for i in range(600)}, {"é" * 3: 1, "x" * 16: 2, "y" * 17: 3}):
        record = zp.encode(compound(SMap=smap))
        for _ in range(2):
            assert zp.decode(record).SMap == smap
            assert [r.SMap for r in zp.decode_all(record * 2)] == [smap, smap]


@pytest.mark.parametrize("length", range(17))
def test_keys_near_the_end_that_differ_in_one_byte_stay_apart(zp: zebrapack.Schema, length: int) -> None:
    """Keys that differ in one byte, at any position, each read back as itself near the
    input's end (the inner key: its last bytes a key's) and far from it, and as the one
    cached str of it: the near read finds the far read's str, and the other way round."""
    base = "abcdefghijklmnop"[:length]
    keys = [base] + [base[:i] + "Z" + base[i + 1:] for i in range(length)]
    prims = zp.types.Prims
    for near_first in (True, False):
        for key in keys:
            near = ({"a": 1, key: {key: 2}}, "a")
            far = ({key: {key: 2}, "pad": "x" * 20}, "pad")
            inner = []
            for document, other in (near, far) if near_first else (far, near):
                decoded = zp.decode(zp.encode(prims(Any=document))).Any
                assert decoded == document and decoded[other] == document[other]
                inner.append(next(iter(decoded[key])))
            assert inner[0] == key and inner[0] is inner[1]
