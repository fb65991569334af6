"""Nesting through the Arrow reader: the same guard as decode's (zp_trail.h), max_depth
and the thread's C stack, so that a record nested deeper than the stack holds is a
DecodeError, never a crash, in the main thread and in a thread with a small stack,
whatever max_depth the schema was loaded with."""

from __future__ import annotations

from typing import Any

import pytest
from support.engines import engine
from support.threads import in_thread
from support.vectors import VECTORS

import zebrapack
import zebrapack.arrow as zpa

pa = engine("pyarrow")

ZP_PATH = VECTORS / "schemas" / "zp.z"


def pointer_chain(depth: int) -> bytes:
    """Tree records linked by their pointer field Up (zid 3), depth levels deep."""
    return (b"\x82\xff\xa4Tree\x03") * depth + b"\x80"


def read_tree(schema: zebrapack.Schema, data: bytes) -> Any:
    return zpa.read(data, schema, "Tree").read_all()


def test_the_stack_guard_stops_what_a_huge_max_depth_lets_through() -> None:
    schema = zebrapack.load(ZP_PATH, max_depth=10_000_000)
    data = pointer_chain(1_000_000)
    with pytest.raises(zebrapack.DecodeError, match="C stack allows") as caught:
        in_thread(lambda: read_tree(schema, data))
    assert caught.value.path.startswith("Tree.Up.Up.")
    with pytest.raises(zebrapack.DecodeError, match="C stack allows"):
        read_tree(schema, data)


def test_max_depth_is_the_exact_limit() -> None:
    schema = zebrapack.load(ZP_PATH, max_depth=50)
    assert read_tree(schema, pointer_chain(49)).num_rows == 1     # the record's own struct is the first level
    with pytest.raises(zebrapack.DecodeError, match="nesting deeper than max_depth=50") as caught:
        read_tree(schema, pointer_chain(50))
    assert caught.value.path == "Tree" + ".Up" * 50
