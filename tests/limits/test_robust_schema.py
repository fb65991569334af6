"""Malformed schemas: wrong types, cycles, absurd sizes and deep nesting are a
SchemaError (a DecodeError for a stream's leading schema), never a crash, a
hang or a huge allocation."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import msgpack
import pytest
from support.vectors import VECTORS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zebrapack
from zebrapack import DecodeError, EncodeError, SchemaError
from zebrapack.streams.self_describing import MAX_SCHEMA_SIZE

VECTOR_DOCUMENTS = {name: json.loads((VECTORS / "schemas" / f"{name}.z.json").read_text())
                    for name in ("zp", "zpn", "mp", "evo1", "evo2", "iface")}
INT64 = {"Kind": 17, "Str": "int64"}


def field(zid: int, name: str, full_type: Any, type_str: str = "") -> dict[str, Any]:
    return {"Zid": zid, "FieldGoName": name, "FieldTypeStr": type_str, "FieldFullType": full_type}


def schema_of(**structs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"Structs": {name: {"StructName": name, "Fields": fields} for name, fields in structs.items()}}


def array(length: int, element: Any) -> dict[str, Any]:
    return {"Kind": 27, "Str": "Array", "Domain": {"Kind": length, "Str": str(length)}, "Range": element}


def ident(name: str) -> dict[str, Any]:
    return {"Kind": 22, "Str": name}


def nested_slices(depth: int) -> dict[str, Any]:
    type_tree: dict[str, Any] = INT64
    for _ in range(depth):
        type_tree = {"Kind": 26, "Str": "Slice", "Domain": type_tree}
    return type_tree


MALFORMED = {
    "not-a-map": [1, 2],
    "no-structs": {"SourcePackage": "p"},
    "structs-a-string": {"Structs": "A"},
    "fields-a-map": {"Structs": {"A": {"StructName": "A", "Fields": {}}}},
    "zid-a-string": schema_of(A=[{"Zid": "0", "FieldGoName": "X", "FieldFullType": INT64}]),
    "zid-below-int32": schema_of(A=[field(-2**31 - 1, "X", INT64)]),
    "zid-huge": schema_of(A=[field(2**40, "X", INT64)]),
    "zid-twice": schema_of(A=[field(0, "X", INT64), field(0, "Y", INT64)]),
    "kind-a-string": schema_of(A=[field(0, "X", {"Kind": "17"})]),
    "kind-unknown": schema_of(A=[field(0, "X", {"Kind": 99})]),
    "name-not-an-identifier": schema_of(A=[field(0, "X-1", INT64)]),
    "type-missing": schema_of(A=[{"Zid": 0, "FieldGoName": "X"}]),
    "slice-without-element": schema_of(A=[field(0, "X", {"Kind": 26})]),
    "array-length-huge": schema_of(A=[field(0, "X", array(2**40, INT64))]),
    "zero-value-too-big": schema_of(A=[field(0, "X", array(1 << 20, array(1 << 20, INT64)))]),
    "zero-value-too-big-through-structs": schema_of(
        A=[field(0, "X", array(1 << 12, ident("B")))], B=[field(0, "Y", array(1 << 12, INT64))]),
    "self-by-value": schema_of(A=[field(0, "Me", ident("A"))]),
    "cycle-by-value": schema_of(A=[field(0, "B", ident("B"))], B=[field(0, "A", ident("A"))]),
    "cycle-through-an-array": schema_of(A=[field(0, "Me", array(2, ident("A")))]),
    "cycle-through-an-empty-array": schema_of(A=[field(0, "Me", array(0, ident("A")))]),
    "type-nested-400-deep": schema_of(A=[field(0, "X", nested_slices(400))]),
    "structs-by-value-3000-deep": schema_of(**{f"S{i}": [field(0, "Next", ident(f"S{i + 1}"))] for i in range(3000)},
                                            S3000=[]),
    "zero-value-200-deep": schema_of(**{f"S{i}": [field(0, "Next", ident(f"S{i + 1}"))] for i in range(200)},
                                     S200=[]),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_schema_is_a_schema_error(name: str) -> None:
    document = MALFORMED[name]
    if isinstance(document, dict):
        with pytest.raises(SchemaError):
            zebrapack.load(document)
    with pytest.raises(SchemaError):
        zebrapack.load(msgpack.packb(document))


def test_type_nested_100000_deep_in_a_dict_is_a_schema_error() -> None:
    with pytest.raises(SchemaError, match="nested more than 100 levels"):
        zebrapack.load(schema_of(A=[field(0, "X", nested_slices(100_000))]))


def test_cycles_through_pointers_slices_and_maps_are_fine() -> None:
    schema = zebrapack.load(schema_of(Node=[
        field(0, "Up", {"Kind": 28, "Domain": ident("Node")}, "*Node"),
        field(1, "Kids", {"Kind": 26, "Domain": ident("Node")}, "[]Node"),
        field(2, "ByName", {"Kind": 24, "Domain": {"Kind": 2}, "Range": ident("Node")}, "map[string]Node"),
    ]))
    node = schema.types.Node(Up=schema.types.Node(), Kids=[schema.types.Node()], ByName={"k": schema.types.Node()})
    assert schema.decode(schema.encode(node)) == node


MALFORMED_BYTES = {
    "never-used-byte": b"\xc1",
    "truncated": msgpack.packb(VECTOR_DOCUMENTS["zp"])[:-7],
    "trailing": msgpack.packb(VECTOR_DOCUMENTS["zp"]) + b"\x00",
    "unhashable-key": b"\x81\x91\x00\x00",
    "nested-100000-deep": b"\x91" * 100_000 + b"\xc0",
    "claims-4-gib": b"\x81\xa7Structs\xdb\xff\xff\xff\xff",
    "invalid-utf8": b"\x81\xa7Structs\xa1\xff",
}


@pytest.mark.parametrize("name", MALFORMED_BYTES)
def test_malformed_schema_bytes_are_a_schema_error(name: str, tmp_path: Path) -> None:
    with pytest.raises(SchemaError):
        zebrapack.load(MALFORMED_BYTES[name])
    path = tmp_path / "bad.z"
    path.write_bytes(MALFORMED_BYTES[name])
    with pytest.raises(SchemaError):
        zebrapack.load(path)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"Structs": ', "\udcff", "[1, 2]"],
                         ids=["nested-100000-deep", "truncated", "not-utf8", "a-list"])
def test_malformed_json_schema_file_is_a_schema_error(text: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.z.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(SchemaError):
        zebrapack.load(path)


@pytest.mark.parametrize("name", MALFORMED_BYTES)
def test_stream_whose_leading_schema_is_malformed_is_a_decode_or_schema_error(name: str) -> None:
    data = MALFORMED_BYTES[name]
    for source in (data, io.BytesIO(data)):
        with pytest.raises((DecodeError, SchemaError)):
            list(zebrapack.open_stream(source))


class CountingReader(io.RawIOBase):
    """An endless stream of one str32 header claiming 4 GiB, then zeros; counts what was read."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        head = b"\xdb\xff\xff\xff\xff"[self.given:]
        chunk = (head + bytes(len(buffer)))[:len(buffer)]
        buffer[:len(chunk)] = chunk
        self.given += len(chunk)
        return len(chunk)


def test_a_stream_whose_schema_never_ends_is_read_no_further_than_max_schema_size() -> None:
    reader = CountingReader()
    with pytest.raises(DecodeError, match="MAX_SCHEMA_SIZE"):
        zebrapack.open_stream(reader, chunk_size=1 << 20)
    assert reader.given <= MAX_SCHEMA_SIZE


MUTATION_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.sampled_from([0, 1, 2, 17, 22, 23, 24, 25, 26, 27, 28, 29, 30]),
    st.text(max_size=12), st.sampled_from(["Tree", "Inner", "[]Inner", "*Tree", "map[string]*Inner", "[3]float64"]),
    st.just([]), st.just({}), st.builds(lambda n: {"Kind": n, "Str": str(n)}, st.integers(0, 30)),
)


def mutate(document: Any, path: list[int], value: Any) -> None:
    """Replace the value that path (indexes into the items at each level) leads to."""
    node = document
    for step, index in enumerate(path):
        if isinstance(node, dict) and node:
            key = list(node)[index % len(node)]
            if step == len(path) - 1 or not isinstance(node[key], (dict, list)):
                node[key] = value
                return
            node = node[key]
        elif isinstance(node, list) and node:
            position = index % len(node)
            if step == len(path) - 1 or not isinstance(node[position], (dict, list)):
                node[position] = value
                return
            node = node[position]
        else:
            return


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(VECTOR_DOCUMENTS)),
       mutations=st.lists(st.tuples(st.lists(st.integers(0, 50), min_size=1, max_size=8), MUTATION_VALUES),
                          min_size=1, max_size=4))
def test_mutated_vector_schemas_load_or_are_a_schema_error(name: str, mutations: list[tuple[list[int], Any]]) -> None:
    document = copy.deepcopy(VECTOR_DOCUMENTS[name])
    for path, value in mutations:
        mutate(document, path, value)
    try:
        schema = zebrapack.load(document)
    except SchemaError:
        return
    for struct_name, cls in schema.types.items():      # what loads also works
        try:
            encoded = schema.encode(cls())
        except EncodeError:
            continue
        schema.decode(encoded, struct_name)
