"""Nesting limits: max_depth (default DEFAULT_MAX_DEPTH, configurable on load) stops
any nesting of arrays, maps, recursive structs and skipped unknown values with a
DecodeError / EncodeError, and the C stack guard whatever the decoder and encoder
nest by recursion (everything but skipped values), in the main thread and in a
thread with a small stack, whatever max_depth a caller sets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from support.threads import SMALL_STACK, in_thread
from support.vectors import VECTORS, vector_schema

import zebrapack
from zebrapack import DecodeError, EncodeError
from zebrapack._core import OPTIMIZED_BUILD

MILLION = 1_000_000
ZP_PATH = VECTORS / "schemas" / "zp.z"
#: Debug and sanitizer builds have C frames several times bigger: the stack guard then
#: stops nesting earlier, by design.
needs_ordinary_frames = pytest.mark.skipif(not OPTIMIZED_BUILD, reason="debug or sanitizer build: bigger C frames")


def name_entry(name: str) -> bytes:
    return b"\xff" + bytes([0xa0 | len(name)]) + name.encode()


#: Inputs nested `depth` levels deep: each level is one container or struct.
DEEP_INPUTS: dict[str, Callable[[int], bytes]] = {
    "interface-arrays": lambda depth: b"\x82" + name_entry("Prims") + b"\x13" + b"\x91" * depth + b"\xc0",
    "interface-maps": lambda depth: b"\x82" + name_entry("Prims") + b"\x13" + b"\x81\xa1k" * depth + b"\xc0",
    "struct-pointers": lambda depth: (b"\x82" + name_entry("Tree") + b"\x03") * depth + b"\x80",
    "struct-slices": lambda depth: (b"\x82" + name_entry("Tree") + b"\x00\x91") * (depth // 2) + b"\x80",
    "skipped-arrays": lambda depth: b"\x82" + name_entry("Tree") + b"\x09" + b"\x91" * depth + b"\xc0",
    "skipped-maps": lambda depth: b"\x82" + name_entry("Tree") + b"\x09" + b"\x81\x00" * depth + b"\xc0",
}

#: A schema whose struct holds itself in a map: map[string]Node.
NODE_SCHEMA = {"Structs": {"Node": {"StructName": "Node", "Fields": [{
    "Zid": 0, "FieldGoName": "Kids", "FieldTypeStr": "map[string]Node", "FieldCategory": 24,
    "FieldFullType": {"Kind": 24, "Str": "Map", "Domain": {"Kind": 2, "Str": "string"},
                      "Range": {"Kind": 22, "Str": "Node"}}}]}}}


def node_input(depth: int) -> bytes:
    return (b"\x82" + name_entry("Node") + b"\x00\x81\xa1k") * (depth // 2) + b"\x80"


def test_default_max_depth_is_high_enough_for_the_vectors() -> None:
    assert zebrapack.DEFAULT_MAX_DEPTH == 1000
    assert vector_schema("zp.z").max_depth == zebrapack.DEFAULT_MAX_DEPTH
    deep = (VECTORS / "zp" / "Tree_deep.zpk").read_bytes()     # 200 levels
    assert vector_schema("zp.z").decode(deep).Label == "199"


@pytest.mark.parametrize("kind", DEEP_INPUTS)
def test_a_million_levels_are_a_decode_error_at_max_depth(kind: str) -> None:
    with pytest.raises(DecodeError, match="nesting deeper than max_depth=1000") as caught:
        vector_schema("zp.z").decode(DEEP_INPUTS[kind](MILLION))
    assert caught.value.offset < 20 * 1000


def test_a_million_levels_of_maps_of_structs_are_a_decode_error_at_max_depth() -> None:
    with pytest.raises(DecodeError, match="nesting deeper than max_depth=1000"):
        zebrapack.load(NODE_SCHEMA).decode(node_input(MILLION))


@pytest.mark.parametrize("kind", DEEP_INPUTS)
def test_a_million_levels_are_a_decode_error_in_a_thread_with_a_256_kib_stack(kind: str) -> None:
    data = DEEP_INPUTS[kind](MILLION)
    with pytest.raises(DecodeError, match="nesting deeper than"):
        in_thread(lambda: vector_schema("zp.z").decode(data))


@pytest.mark.parametrize("kind", DEEP_INPUTS)
def test_max_depth_set_on_load_is_the_exact_limit(kind: str) -> None:
    schema = zebrapack.load(ZP_PATH, max_depth=50)
    levels = 50 - 1                 # the record's own struct is the first level
    schema.decode(DEEP_INPUTS[kind](levels))
    with pytest.raises(DecodeError, match="nesting deeper than max_depth=50"):
        schema.decode(DEEP_INPUTS[kind](levels + 2))


@pytest.mark.parametrize("kind", [kind for kind in DEEP_INPUTS if not kind.startswith("skipped")])
def test_the_stack_guard_stops_what_a_huge_max_depth_lets_through(kind: str) -> None:
    schema = zebrapack.load(ZP_PATH, max_depth=10 * MILLION)
    data = DEEP_INPUTS[kind](MILLION)
    with pytest.raises(DecodeError, match="C stack allows"):
        in_thread(lambda: schema.decode(data))
    with pytest.raises(DecodeError, match="C stack allows"):
        schema.decode(data)


@pytest.mark.parametrize("kind", [kind for kind in DEEP_INPUTS if kind.startswith("skipped")])
def test_skipped_values_nest_as_deep_as_a_huge_max_depth_allows_without_using_the_c_stack(kind: str) -> None:
    """The skipper keeps its levels on the heap (16 bytes a level, one byte of input at
    least), not in C frames: max_depth alone bounds a skipped value."""
    schema = zebrapack.load(ZP_PATH, max_depth=10 * MILLION)
    data = DEEP_INPUTS[kind](MILLION)
    assert in_thread(lambda: schema.decode(data)) == schema.types.Tree()
    assert schema.decode(data) == schema.types.Tree()
    with pytest.raises(DecodeError, match=f"nesting deeper than max_depth={MILLION // 2}"):
        in_thread(lambda: zebrapack.load(ZP_PATH, max_depth=MILLION // 2).decode(data))


@needs_ordinary_frames
def test_the_vectors_decode_and_encode_in_a_thread_with_a_256_kib_stack() -> None:
    schema = vector_schema("zp.z")
    deep = (VECTORS / "zp" / "Tree_deep.zpk").read_bytes()
    assert in_thread(lambda: schema.encode(schema.decode(deep))) == deep


@needs_ordinary_frames
def test_nesting_up_to_the_default_limit_decodes_in_a_thread_with_a_256_kib_stack() -> None:
    schema = vector_schema("zp.z")
    data = DEEP_INPUTS["interface-arrays"](zebrapack.DEFAULT_MAX_DEPTH - 1)
    assert schema.encode(in_thread(lambda: schema.decode(data))) == data   # == would recurse too deep


@pytest.mark.parametrize("max_depth", [zebrapack.DEFAULT_MAX_DEPTH, 10 * MILLION])
def test_encoding_a_million_levels_is_an_encode_error_in_a_small_thread(max_depth: int) -> None:
    schema = zebrapack.load(ZP_PATH, max_depth=max_depth)
    tree = schema.types.Tree()
    nested: Any = None
    for _ in range(MILLION // 10):
        tree = schema.types.Tree(Up=tree)
        nested = [nested]
    for value in (tree, schema.types.Prims(Any=nested)):
        with pytest.raises(EncodeError, match="nesting deeper than"):
            in_thread(lambda: schema.encode(value))      # noqa: B023 - called at once


def traceback_length(exc: BaseException) -> int:
    length, tb = 0, exc.__traceback__
    while tb is not None:
        length, tb = length + 1, tb.tb_next
    return length


@pytest.mark.parametrize("kind", [kind for kind in DEEP_INPUTS if not kind.startswith("skipped")])
def test_an_error_deep_in_a_value_carries_a_short_traceback(kind: str) -> None:
    """CPython frees a traceback by recursion, one C frame per entry (more once tracemalloc
    has run): an error that left thousands of levels must not carry thousands of entries,
    or freeing it later, in a thread with a small stack, overflows that stack."""
    schema = zebrapack.load(ZP_PATH, max_depth=10 * MILLION)
    for limited in (schema, zebrapack.load(ZP_PATH)):
        with pytest.raises(DecodeError) as caught:
            in_thread(lambda: limited.decode(DEEP_INPUTS[kind](MILLION)))     # noqa: B023 - called at once
        assert traceback_length(caught.value) < 64
        assert traceback_length(caught.value.__cause__ or caught.value) < 64


def test_an_encode_error_deep_in_a_value_carries_a_short_traceback() -> None:
    schema = zebrapack.load(ZP_PATH, max_depth=10 * MILLION)
    nested: Any = None
    for _ in range(MILLION // 10):
        nested = [nested]
    with pytest.raises(EncodeError) as caught:
        in_thread(lambda: schema.encode(schema.types.Prims(Any=nested)))
    assert traceback_length(caught.value) < 64

