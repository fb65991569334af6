"""The encoder against hostile Python values: values that contain themselves,
user code that mutates what is being encoded, or resizes the target buffer."""

from __future__ import annotations

from typing import Any

import pytest
from support.hostile import Inner
from support.vectors import VECTORS, vector_schema
from test_limits_depth import in_thread

import zebrapack
from zebrapack import EncodeError

ZP = vector_schema("zp.z")
A_SEED = (VECTORS / "zp" / "A_seed.zpk").read_bytes()


def self_containing_values() -> dict[str, Any]:
    types = ZP.types
    by_pointer = types.Tree()
    by_pointer.Up = by_pointer
    by_slice = types.Tree()
    by_slice.Kids = [by_slice]
    in_list: list[Any] = []
    in_list.append(in_list)
    in_dict: dict[str, Any] = {}
    in_dict["self"] = in_dict
    struct_in_interface = types.Prims()
    struct_in_interface.Any = [struct_in_interface]
    return {"pointer": by_pointer, "slice": by_slice, "interface-list": types.Prims(Any=in_list),
            "interface-dict": types.Prims(Any=in_dict), "struct-in-interface": struct_in_interface}


@pytest.mark.parametrize("kind", self_containing_values())
def test_a_value_that_contains_itself_is_an_encode_error(kind: str) -> None:
    value = self_containing_values()[kind]
    with pytest.raises(EncodeError, match="does a value contain itself"):
        ZP.encode(value)
    with pytest.raises(EncodeError, match="does a value contain itself"):
        in_thread(lambda: ZP.encode(value))
    assert ZP.encode(ZP.decode(A_SEED)) == A_SEED


SCHEMA = zebrapack.load(VECTORS / "schemas" / "zp.z", types={"Inner": Inner})


@pytest.mark.parametrize("offset", [0, 4, -1])
@pytest.mark.parametrize("resize", [lambda b: b.extend(bytes(10_000)), lambda b: b.clear(), lambda b: b.__delitem__(slice(0, 2))],
                         ids=["grow", "clear", "shrink"])
def test_encode_into_a_bytearray_resized_mid_call_is_refused_and_the_buffer_restored(offset: int, resize: Any) -> None:
    target = bytearray(b"head")
    value = SCHEMA.types.Compound(Nested=Inner(), Inners=[Inner(X=1), Inner(X=2, on_read=lambda: resize(target))])
    with pytest.raises(EncodeError, match="BufferError") as caught:
        SCHEMA.encode_into(value, target, offset)
    assert caught.value.path == "Compound.Inners[1].X"
    assert target == b"head"[:len(b"head") if offset == -1 else offset]
    value.Inners[1].on_read = None
    SCHEMA.encode_into(value, target, -1)
    assert SCHEMA.decode(target[len(b"head") if offset == -1 else offset:]).Inners[1].X == 2


class ShrinkingIndex:
    """An int-like value whose conversion empties the list it is in."""

    def __init__(self, container: list[Any]) -> None:
        self.container = container

    def __index__(self) -> int:
        self.container.clear()
        return 1


class GrowingIndex:
    """An int-like value whose conversion adds an entry to the dict it is in."""

    def __init__(self, container: dict[str, Any]) -> None:
        self.container = container

    def __index__(self) -> int:
        self.container[f"k{len(self.container)}"] = 0
        return 1


def test_a_list_emptied_while_it_is_encoded_is_an_encode_error() -> None:
    ints: list[Any] = [0, 1]
    ints.insert(1, ShrinkingIndex(ints))
    with pytest.raises(EncodeError, match="list changed size"):
        ZP.encode(ZP.types.Compound(Ints=ints))


def test_a_dict_grown_while_it_is_encoded_is_an_encode_error() -> None:
    smap: dict[str, Any] = {"a": 0}
    smap["b"] = GrowingIndex(smap)
    with pytest.raises(EncodeError, match="dict changed size"):
        ZP.encode(ZP.types.Compound(SMap=smap))


def test_an_exception_from_user_code_is_an_encode_error_with_the_path() -> None:
    def fail() -> None:
        raise KeyError("from user code")

    value = SCHEMA.types.Compound(Nested=Inner(X=1, on_read=fail))
    with pytest.raises(EncodeError, match="KeyError") as caught:
        SCHEMA.encode(value)
    assert caught.value.path == "Compound.Nested.X"
