"""interface{} maps and lists of the exact built-in types are written by their own loops
(write_any_map, write_any_list), which write the containers inside them themselves. The
reference is the same value with every list and dict replaced by a subclass: a list
subclass takes write_any's general path item by item, and every value inside a dict
subclass goes through write_any. Both must give the same bytes, and the same error
(message, field path, byte offset) for any value, at any depth."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.hostile import Inner
from support.vectors import VECTORS, vector_schema

import zebrapack
from zebrapack import EncodeError

ZP = vector_schema("zp.z")


class ListSub(list):
    pass


class DictSub(dict):
    pass


class Unwritable:
    def __repr__(self) -> str:
        return "Unwritable()"


def subclassed(value: Any) -> Any:
    """value with every exact list and dict replaced by ListSub and DictSub (the reference)."""
    if type(value) is list:
        return ListSub(subclassed(item) for item in value)
    if type(value) is dict:
        return DictSub((key, subclassed(item)) for key, item in value.items())
    return value


UTC_TIMES = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)).map(
    lambda moment: moment.replace(tzinfo=timezone.utc))
ATOMS = st.one_of(
    st.integers(min_value=-2**63, max_value=2**64 - 1), st.floats(allow_nan=False), st.text(max_size=40),
    st.binary(max_size=40), st.booleans(), st.none(), UTC_TIMES,
    st.datetimes(timezones=st.just(timezone(timedelta(hours=2)))))
KEYS = st.text(max_size=20)
VALUES = st.recursive(ATOMS, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                     st.dictionaries(KEYS, inner, max_size=6)), max_leaves=60)
#: What write_any refuses or writes out of the loops, mixed in: an object of no
#: interface{} type, ints beyond uint64 and int64, a surrogate, a tuple.
ODD = st.one_of(st.builds(Unwritable), st.just(2**64), st.just(-2**63 - 1), st.just("bad \udc80"),
                st.tuples(ATOMS, ATOMS))
ODD_VALUES = st.recursive(st.one_of(ATOMS, ODD), lambda inner: st.one_of(
    st.lists(inner, max_size=5),
    st.dictionaries(st.one_of(KEYS, st.just("k\udc80"), st.binary(max_size=4), st.integers(0, 3)), inner,
                    max_size=5)), max_leaves=40)


def outcome(value: Any) -> tuple[Any, ...]:
    try:
        return ("bytes", ZP.encode(ZP.types.Prims(Any=value)))
    except EncodeError as exc:
        return ("error", str(exc), exc.path, exc.offset)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_exact_containers_write_what_the_general_path_writes(value: Any) -> None:
    data = ZP.encode(ZP.types.Prims(Any=value))
    assert outcome(subclassed(value)) == ("bytes", data)


@settings(max_examples=300, deadline=None)
@given(ODD_VALUES)
def test_exact_containers_raise_what_the_general_path_raises(value: Any) -> None:
    assert outcome(value) == outcome(subclassed(value))


def test_an_error_deep_inside_names_its_path_and_offset() -> None:
    value = {"a": [1, {"b": [2.5, "x", {"c": Unwritable()}]}]}
    with pytest.raises(EncodeError, match="Unwritable.. cannot be written as interface") as caught:
        ZP.encode(ZP.types.Prims(Any=value))
    assert caught.value.path == "Prims.Any['a'][1]['b'][2]['c']"
    assert outcome(value) == outcome(subclassed(value))
    with pytest.raises(EncodeError, match="its keys must be str") as caught:
        ZP.encode(ZP.types.Prims(Any=[[{"k": 1, 7: 2}]]))
    assert caught.value.path == "Prims.Any[0][0][7]"


def test_keys_other_than_exact_str_take_write_any() -> None:
    class Key(str):
        pass

    value = {Key("sub"): [1], b"raw": {"x": None}, "grüß": 1, "plain": {}}
    back = ZP.decode(ZP.encode(ZP.types.Prims(Any=value)))
    assert back.Any == {"sub": [1], b"raw": {"x": None}, "grüß": 1, "plain": {}}


@pytest.mark.parametrize("make", [lambda inner: [inner], lambda inner: {"k": inner},
                                  lambda inner: [1, {"k": ["x", inner]}]], ids=["list", "map", "mixed"])
def test_the_depth_limit_is_exact_for_nested_containers(make: Any) -> None:
    limited = zebrapack.load(VECTORS / "schemas" / "zp.z", max_depth=40)
    value: Any = None
    while True:
        deeper = make(value)
        try:
            limited.encode(limited.types.Prims(Any=deeper))
        except EncodeError as exc:
            assert "nesting deeper than max_depth=40" in str(exc)
            reference = subclassed(deeper)
            with pytest.raises(EncodeError) as caught:
                limited.encode(limited.types.Prims(Any=reference))
            assert (str(caught.value), caught.value.path, caught.value.offset) == \
                (str(exc), exc.path, exc.offset)
            break
        value = deeper


USER = zebrapack.load(VECTORS / "schemas" / "zp.z", types={"Inner": Inner})


@pytest.mark.parametrize("make_list", [list, ListSub])
def test_an_interface_list_emptied_while_it_is_encoded_is_an_encode_error(make_list: type) -> None:
    items = make_list([1, "a", None, 2])
    items.insert(1, Inner(on_read=items.clear))
    with pytest.raises(EncodeError, match="list changed size while it was encoded") as caught:
        USER.encode(USER.types.Prims(Any={"k": items}))
    assert caught.value.path == "Prims.Any['k'][2]"


@pytest.mark.parametrize("make_dict", [dict, DictSub])
def test_an_interface_dict_grown_while_it_is_encoded_is_an_encode_error(make_dict: type) -> None:
    entries = make_dict(a=1)
    entries["b"] = Inner(on_read=lambda: entries.update(c=0))
    with pytest.raises(EncodeError, match="dict changed size while it was encoded") as caught:
        USER.encode(USER.types.Prims(Any=[entries]))
    assert caught.value.path == "Prims.Any[0]"


def test_a_key_dropped_while_its_value_is_written_stays_alive_for_the_path() -> None:
    entries: dict[str, Any] = {}

    def drop() -> None:
        entries.clear()
        raise ValueError("dropped")

    entries["".join(["only", "key"])] = [Inner(on_read=drop)]
    with pytest.raises(EncodeError, match="dropped") as caught:
        USER.encode(USER.types.Prims(Any=entries))
    assert caught.value.path == "Prims.Any['onlykey'][0].X"
