"""Bad input through zpa.read: wherever decode raises DecodeError, the Arrow reader raises
DecodeError too, naming the record (0-based, in the whole source), decode's field path and
decode's byte offset; never another exception, a crash or a hang. Where decode reads the
bytes, the reader makes the oracle's table. Inputs: the fuzz corpus read as every struct of
every vector schema, and every vector cut short and with a byte changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import zebrapack.arrow as zpa
from zebrapack import DecodeError

from support.engines import engine

from .checks import check_read
from .sources import SCHEMAS, SOURCES, Source

pa = engine("pyarrow")

CORPUS = sorted((Path(__file__).resolve().parents[1] / "fuzz" / "corpus").glob("*.zpk"))
VECTOR_SCHEMAS = ("zp", "zpn", "mp", "evo1", "evo2", "iface")
CONFIGS = [(name, struct) for name in VECTOR_SCHEMAS for struct in SCHEMAS[name].structs]
VECTORS = [source for source in SOURCES if source.id.startswith("vectors/")]


def as_source(schema_name: str, type_name: str) -> Source:
    return Source(f"{schema_name}/{type_name}", SCHEMAS[schema_name], type_name, b"", "zebrapack", True, False)


def _corpus_cases() -> list[Any]:
    return [pytest.param(path, schema_name, type_name, strict,
                         id=f"{path.stem}-{schema_name}-{type_name}{'-strict' if strict else ''}")
            for path in CORPUS for schema_name, type_name in CONFIGS for strict in (False, True)]


@pytest.mark.parametrize(("path", "schema_name", "type_name", "strict"), _corpus_cases())
def test_fuzz_corpus_input_is_read_or_refused_as_decode_does(path: Path, schema_name: str, type_name: str,
                                                             strict: bool) -> None:
    check_read(path.read_bytes(), as_source(schema_name, type_name), time_unit="us", strict=strict)


def _cuts(size: int) -> list[int]:
    return sorted({1, size // 3, size // 2, size - 1} - {0, size})


@pytest.mark.parametrize("source", VECTORS, ids=repr)
def test_a_vector_cut_short_is_refused_where_decode_refuses_it(source: Source) -> None:
    for cut in _cuts(len(source.data)):
        check_read(source.data[:cut], source, time_unit="us")
        # after good records: the record number and the offset count from the start of the source
        check_read(source.data + source.data[:cut], source, time_unit="us")


@pytest.mark.parametrize("source", VECTORS, ids=repr)
def test_a_vector_with_a_changed_byte_is_read_or_refused_as_decode_does(source: Source) -> None:
    data = source.data
    for position in sorted({0, 1, len(data) // 4, len(data) // 2, len(data) - 2} & set(range(len(data)))):
        for value in (0xc1, 0xc0, 0xa1, 0x7f, 0xff, 0xd9):        # never used, nil, a str, ints, a str8
            changed = data[:position] + bytes([value]) + data[position + 1:]
            check_read(changed, source, time_unit="us")


def test_a_recursive_struct_value_with_a_wrong_struct_name_is_refused_as_decode_refuses_it() -> None:
    tree = next(s for s in VECTORS if s.id == "vectors/zp/Tree_small")
    third = tree.data.index(b"\xa4Tree", tree.data.index(b"\xa4Tree", 3) + 1)    # Kids[0].Kids[0]'s -1 name
    data = tree.data[:third + 2] + b"\x7f" + tree.data[third + 3:]
    with pytest.raises(DecodeError, match="struct name"):
        tree.schema.decode(data, "Tree")
    with pytest.raises(DecodeError, match="struct name"):
        zpa.read(data, tree.schema, "Tree").read_all()

