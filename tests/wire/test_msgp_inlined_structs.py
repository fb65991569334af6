"""In -msgp mode a struct the generator inlined into its parent (schema node Kind 25 with no
name: ``TypeRef.inlined``) is written with every field, omitempty or not; the same struct
written on its own, or where the schema names it (Kind 22), omits its empty omitempty
fields (FORMAT.md section 7, golden2/def: TestOmitEmpty.Inside1). zebrapack mode is not
concerned: it leaves every empty field out. The Arrow writer writes alike."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from support.vectors import TESTS

import zebrapack

DEF_JSON = TESTS / "golden2" / "schemas" / "def.z.json"
DEF = zebrapack.load(TESTS / "golden2" / "schemas" / "def.z")
#: OmitEmptyInside1 with every field written, its Inside2 (inlined there too) as well.
EVERY_FIELD = bytes.fromhex("83b2436f756e744f664d6f6e746543726973636f00a46e616d65a0a7496e736964653281a84e616d6553756579a0")
#: OmitEmptyInside1 written on its own: its empty omitempty name left out; Inside2 is a
#: struct value, never empty, and inlined in it: written with every field.
OMITTING = bytes.fromhex("82b2436f756e744f664d6f6e746543726973636f00a7496e736964653281a84e616d6553756579a0")


def test_inlined_struct_is_written_with_every_field_in_msgp_mode() -> None:
    written = DEF.encode(DEF.types.OmitSimple(), mode="msgp")
    assert written == bytes.fromhex("82ac436f756e7444726f63756c6100a7496e7369646531") + EVERY_FIELD


def test_the_same_struct_on_its_own_omits_its_empty_omitempty_fields() -> None:
    assert DEF.encode(DEF.types.OmitEmptyInside1(), mode="msgp") == OMITTING


def test_where_the_schema_names_the_struct_its_own_omitempty_rules_hold() -> None:
    document = json.loads(DEF_JSON.read_text())
    inside1 = next(f for f in document["Structs"]["OmitSimple"]["Fields"] if f["FieldGoName"] == "Inside1")
    inside1.update(FieldCategory=23, FieldPrimitive=22, FieldFullType={"Kind": 22, "Str": "OmitEmptyInside1"})
    named = zebrapack.load(document)
    assert named.encode(named.types.OmitSimple(), mode="msgp").endswith(OMITTING)


@pytest.mark.parametrize(("struct", "field", "value"), [
    ("X", "ManyFixed", lambda s: [s.types.Fixed()]),                        # in a slice
    ("SimpleTestType", "Obj", lambda s: s.types.PreviouslyAnon()),          # through a pointer
    ("Tree", "Parent", lambda s: s.types.Wrapper()),
])
def test_inlined_through_pointers_and_slices_too(struct: str, field: str, value: Any) -> None:
    record = DEF.types[struct](**{field: value(DEF)})
    assert DEF.decode(DEF.encode(record, mode="msgp"), type=struct, strict=True) == record


def test_zebrapack_mode_leaves_empty_fields_out_inlined_or_not() -> None:
    document = json.loads(DEF_JSON.read_text())
    for struct in document["Structs"].values():
        for number, field in enumerate(struct["Fields"]):
            field["Zid"] = number
    numbered = zebrapack.load(document)
    # struct values are never empty: Inside1 (zid 1) and its Inside2 (zid 2) are written, empty
    assert numbered.encode(numbered.types.OmitSimple(), structnames=False) == bytes.fromhex("8101810280")


def test_the_arrow_writer_writes_inlined_structs_with_every_field() -> None:
    pa = pytest.importorskip("pyarrow")
    import zebrapack.arrow
    out = io.BytesIO()
    zebrapack.arrow.write(pa.table({"CountDrocula": pa.array([0], pa.int64())}), out, DEF, "OmitSimple", mode="msgp")
    assert out.getvalue() == DEF.encode(DEF.types.OmitSimple(), mode="msgp")
    inside = pa.StructArray.from_arrays([pa.array([0], pa.int64()), pa.array([""])], names=["CountOfMonteCrisco", "Name"])
    out = io.BytesIO()
    zebrapack.arrow.write(pa.table({"Inside1": inside}), out, DEF, "OmitSimple", mode="msgp")
    assert out.getvalue().endswith(EVERY_FIELD)
