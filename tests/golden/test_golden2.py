"""Every record of the reference's golden set 2 (tests/golden2: named Go types in ``acct``,
the reference repository's own ``_generated/def.go`` in ``def``, generated with ``-msgp``)
decodes strictly to its typed ``expect`` tree, re-encodes byte for byte where Go's encoding
is unique, and encodes the same from a value built by hand (golden_support.assert_golden_record);
both twins of each schema load to the same model."""

from __future__ import annotations

from typing import Any

import pytest
from support.golden import GOLDEN2, GOLDEN2_RECORDS, assert_golden_record

import zebrapack
from zebrapack import Kind


@pytest.mark.parametrize("record", GOLDEN2_RECORDS, ids=[r["id"] for r in GOLDEN2_RECORDS])
def test_golden2_record(record: dict[str, Any]) -> None:
    assert_golden_record(record)


def test_every_schema_flavor_and_mode_is_covered() -> None:
    assert {r["pkg"] for r in GOLDEN2_RECORDS} == {"acct", "def"}
    assert {r["flavor"] for r in GOLDEN2_RECORDS} == {"zero", "max", "min", "random"}
    assert {(r["pkg"], r["mode"]) for r in GOLDEN2_RECORDS} == {("acct", "zebrapack"), ("def", "msgp")}
    assert len(GOLDEN2_RECORDS) == 180


@pytest.mark.parametrize("name", ["acct", "def"])
def test_golden2_schema_loads_from_both_twins(name: str) -> None:
    schema = zebrapack.load(GOLDEN2 / "schemas" / f"{name}.z")
    assert schema.model == zebrapack.load(GOLDEN2 / "schemas" / f"{name}.z.json").model


def _inlined(schema: zebrapack.Schema) -> set[tuple[str, str]]:
    """(struct, field) whose type holds a struct the generator inlined."""
    found = set()
    for struct in schema.structs.values():
        for f in struct.wire_fields:
            assert f.type is not None
            node, stack = f.type, [f.type]
            while stack:
                node = stack.pop()
                if node.kind == Kind.STRUCT and node.inlined:
                    found.add((struct.name, f.go_name))
                stack += [part for part in (node.key, node.elem) if part is not None]
    return found


def test_inlined_structs_survive_dump_and_load(tmp_path: Any) -> None:
    # which structs the generator inlined is what -msgp writes by: it must outlive a dump
    schema = zebrapack.load(GOLDEN2 / "schemas" / "def.z")
    assert {("TestOmitEmpty", "Inside1"), ("OmitSimple", "Inside1"), ("X", "ManyFixed"),
            ("SimpleTestType", "Obj"), ("Tree", "Parent")} <= _inlined(schema)
    schema.dump(tmp_path / "def.z")
    assert _inlined(zebrapack.load(tmp_path / "def.z")) == _inlined(schema)
