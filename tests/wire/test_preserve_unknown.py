"""preserve_unknown: a reader on an older schema re-writes what it does not know, byte for byte."""

from __future__ import annotations

import copy
import json
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import pytest
from support.vectors import VECTORS

import zebrapack
from zebrapack import SchemaError

SCHEMAS = VECTORS / "schemas"
WRITTEN_BY_V2 = (VECTORS / "evo1" / "v2_as_v1.zpk").read_bytes()  # evo2 Person: zids 0, 2, 3, 4
WRITTEN_BY_V1 = (VECTORS / "evo2" / "v1_as_v2.zpk").read_bytes()  # evo1 Person: zids 0, 1, 2


def older(schema: str, struct: str, *dropped: str) -> dict[str, Any]:
    """A schema document like ``schema``'s, as an older version without the ``dropped`` fields of ``struct``."""
    document = json.loads((SCHEMAS / f"{schema}.z.json").read_text())
    fields = document["Structs"][struct]["Fields"]
    document["Structs"][struct]["Fields"] = [f for f in fields if f["FieldGoName"] not in dropped]
    return document


@pytest.fixture(scope="module")
def evo1() -> zebrapack.Schema:
    return zebrapack.load(SCHEMAS / "evo1.z", preserve_unknown=True)


def test_newer_data_reencodes_to_the_original_bytes(evo1: zebrapack.Schema) -> None:
    person = evo1.decode(WRITTEN_BY_V2)
    assert set(person.zebrapack_unknown) == {3, 4}
    assert evo1.encode(person) == WRITTEN_BY_V2


def test_read_modify_write_keeps_the_newer_fields(evo1: zebrapack.Schema) -> None:
    evo2 = zebrapack.load(SCHEMAS / "evo2.z")
    person = evo1.decode(WRITTEN_BY_V2)
    person.Email = "grace@navy.mil"
    person.Age = 85  # retired in evo2: its readers ignore it
    seen_by_v2 = evo2.decode(evo1.encode(person))
    original = evo2.decode(WRITTEN_BY_V2)
    assert seen_by_v2 == evo2.types.Person(Name=original.Name, Email="grace@navy.mil", Tags=original.Tags,
                                           Score=original.Score)


def test_unknown_entries_go_back_in_zid_order_among_the_known_ones() -> None:
    evo2 = zebrapack.load(SCHEMAS / "evo2.z", preserve_unknown=True)
    person = evo2.types.Person(Name="n", Email="e", Score=9)
    person.zebrapack_unknown = {5: b"\x07", 1: b"\x2a"}
    expected = "85" + "00a16e" + "012a" + "02a165" + "0409" + "0507"
    assert evo2.encode(person, structnames=False).hex() == expected


def test_retired_zid_of_older_data_is_kept_by_the_newer_reader() -> None:
    evo2 = zebrapack.load(SCHEMAS / "evo2.z", preserve_unknown=True)
    person = evo2.decode(WRITTEN_BY_V1)
    assert set(person.zebrapack_unknown) == {1}
    assert evo2.encode(person) == WRITTEN_BY_V1


def test_nested_structs_keep_their_own_unknown_entries() -> None:
    data = (VECTORS / "zp" / "Tree_small.zpk").read_bytes()
    schema = zebrapack.load(older("zp", "Tree", "Label"), preserve_unknown=True)
    tree = schema.decode(data)
    assert tree.zebrapack_unknown == {1: b"\xa4root"}
    assert tree.Kids[0].Kids[1].zebrapack_unknown == {1: b"\xa2a2"}
    assert tree.Kids[1].Up.zebrapack_unknown == {1: b"\xa9elsewhere"}
    assert schema.encode(tree) == data


def test_msgp_mode_keeps_unknown_keys_by_tag_name() -> None:
    data = (VECTORS / "mp" / "A_seed.zpk").read_bytes()  # the last field, Friend, is the one dropped
    schema = zebrapack.load(older("mp", "A", "Friend"), preserve_unknown=True)
    record = schema.decode(data, "A")
    assert record.zebrapack_unknown == {"Friend": b"\xc3"}
    assert schema.encode(record, mode="msgp", structnames=False) == data


def test_streams_keep_each_records_unknown_entries(evo1: zebrapack.Schema) -> None:
    records = list(evo1.iter_decode(WRITTEN_BY_V2 + WRITTEN_BY_V1))
    assert [set(r.zebrapack_unknown or {}) for r in records] == [{3, 4}, set()]
    assert b"".join(evo1.encode(r) for r in records) == WRITTEN_BY_V2 + WRITTEN_BY_V1


def test_unknown_entries_ride_along_without_changing_the_value(evo1: zebrapack.Schema) -> None:
    person = evo1.decode(WRITTEN_BY_V2)
    plain = evo1.types.Person(Name=person.Name, Age=person.Age, Email=person.Email)
    assert person == plain and repr(person) == repr(plain)
    assert copy.copy(person).zebrapack_unknown == person.zebrapack_unknown
    with pytest.raises(TypeError):
        evo1.types.Person(zebrapack_unknown={})


def test_off_by_default_newer_fields_are_dropped() -> None:
    schema = zebrapack.load(SCHEMAS / "evo1.z")
    person = schema.decode(WRITTEN_BY_V2)
    assert not hasattr(person, "zebrapack_unknown")
    assert zebrapack.load(SCHEMAS / "evo2.z").decode(schema.encode(person)).Tags == []


@dataclass(slots=True)
class Person:
    Name: str = ""
    Age: int = 0
    Email: str = ""
    zebrapack_unknown: Optional[dict[Union[int, str], bytes]] = field(default=None, compare=False)


@dataclass(slots=True)
class PersonWithoutRoom:
    Name: str = ""
    Age: int = 0
    Email: str = ""


def test_user_class_with_a_zebrapack_unknown_field_keeps_them() -> None:
    schema = zebrapack.load(SCHEMAS / "evo1.z", types={"Person": Person}, preserve_unknown=True)
    person = schema.decode(WRITTEN_BY_V2)
    assert type(person) is Person and set(person.zebrapack_unknown or {}) == {3, 4}
    assert schema.encode(person) == WRITTEN_BY_V2


def test_user_class_without_room_for_them_is_refused() -> None:
    with pytest.raises(SchemaError, match="preserve_unknown needs a 'zebrapack_unknown' field"):
        zebrapack.load(SCHEMAS / "evo1.z", types={"Person": PersonWithoutRoom}, preserve_unknown=True)


def test_malformed_unknown_entries_are_an_encode_error(evo1: zebrapack.Schema) -> None:
    person = evo1.types.Person(Name="n")
    person.zebrapack_unknown = {3: "not bytes"}
    with warnings.catch_warnings(), pytest.raises(zebrapack.EncodeError, match="raw msgpack bytes"):
        evo1.encode(person)


def test_unknown_entry_whose_zid_the_schema_knows_yields_to_the_field(evo1: zebrapack.Schema) -> None:
    # An instance read by an older schema and written by a newer one that knows the zid:
    # the field is written once, from the instance, not a second time from the raw entry.
    person = evo1.types.Person(Name="n", Email="e")
    person.zebrapack_unknown = {2: b"\x2a", 7: b"\xc3"}
    data = evo1.encode(person)
    assert evo1.decode(data) == person
    assert data.count(b"\x02\xa1e") == 1 and b"\x02\x2a" not in data and data.endswith(b"\x07\xc3")


def test_unknown_entry_whose_zid_a_sparse_field_has_yields_to_the_field() -> None:
    # A zid far above the others is looked up by search, not in the dense table: the
    # field it names is known all the same.
    document = json.loads((SCHEMAS / "evo1.z.json").read_text())
    document["Structs"]["Person"]["Fields"][2]["Zid"] = 65535
    schema = zebrapack.load(document, preserve_unknown=True)
    person = schema.types.Person(Name="n", Email="e")
    person.zebrapack_unknown = {65535: b"\x2a", 7: b"\xc3"}
    data = schema.encode(person)
    assert data == b"\x84\xff\xa6Person\x00\xa1n\x07\xc3\xd2\x00\x00\xff\xff\xa1e"
    assert schema.decode(data) == person
