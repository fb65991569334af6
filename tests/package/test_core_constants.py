"""The compiled core and the Python package agree on every constant they share.

The core sits below the schema layer and imports nothing of it, so it keeps its own
copies of what it shares with ``zebrapack.schema.model``: the plan kinds its switches
compare (``Kind``'s numbers), the zeros records share (``IMMUTABLE_ZEROS``), the
attribute of unknown entries (``UNKNOWN_ATTR``), and the seconds its time checks use
(``values.gotime``). These tests read those copies in ``cython/`` and fail when one
drifts from the package's."""

from __future__ import annotations

import ast
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from support.vectors import VECTORS

import zebrapack
from zebrapack.schema.model import IMMUTABLE_ZEROS, SCALAR_KINDS, UNKNOWN_ATTR, Kind, python_name
from zebrapack.values.gotime import DATETIME_MAX_SECONDS, DATETIME_MIN_SECONDS, GO_ZERO_TIME

CORE = Path(__file__).resolve().parents[2] / "cython"
PLAN = (CORE / "_plan.pxi").read_text()
#: Plan kinds spelled differently from their Kind; every other K_NAME is Kind.NAME.
PLAN_KIND_SPELLINGS = {"F32": "FLOAT32", "F64": "FLOAT64", "C64": "COMPLEX64", "C128": "COMPLEX128",
                       "IFACE": "IDENT_IFACE"}
#: Plan kinds of the core's own, with no Kind: a [N]byte array, an unusable field.
PLAN_ONLY_KINDS = {"BYTEARRAY", "UNUSABLE"}
#: Kinds only a schema document holds: parse_schema resolves them to other kinds.
DOCUMENT_ONLY_KINDS = {Kind.INVALID, Kind.IDENT, Kind.BASE_ELEM}


def plan_kinds() -> dict[str, int]:
    """The K_* enum of _plan.pxi, by name without its K_."""
    block = re.search(r"cdef enum:\n((?:    .*\n)+)", PLAN[PLAN.index("K_BYTES = ") - 200:])
    assert block is not None
    kinds = {name: int(number) for name, number in re.findall(r"^    K_(\w+) = (\d+)", block.group(1), re.M)}
    assert "BYTES" in kinds and "UNUSABLE" in kinds
    return kinds


def kind_of(plan_name: str) -> Kind:
    return Kind[PLAN_KIND_SPELLINGS.get(plan_name, plan_name)]


def core_zeros() -> dict[str, Any]:
    """_plan.pxi's _IMMUTABLE_ZEROS, by plan kind name (_GO_ZERO_TIME read as GO_ZERO_TIME)."""
    table = re.search(r"^cdef dict _IMMUTABLE_ZEROS = \{\n(.*?)\n\}", PLAN, re.M | re.S)
    assert table is not None
    entries = re.findall(r"K_(\w+): ([^,]+)", table.group(1))
    return {name: GO_ZERO_TIME if text == "_GO_ZERO_TIME" else ast.literal_eval(text) for name, text in entries}


def c_define(header: str, name: str) -> int:
    match = re.search(rf"#define {name} \((-?\d+)LL\)", (CORE / header).read_text())
    assert match is not None, f"{name} not in {header}"
    return int(match.group(1))


def test_every_plan_kind_is_the_number_of_its_kind() -> None:
    shared = {name: number for name, number in plan_kinds().items() if name not in PLAN_ONLY_KINDS}
    assert {name: kind_of(name).value for name in shared} == shared
    assert {kind_of(name) for name in shared} == set(Kind) - DOCUMENT_ONLY_KINDS


def test_the_core_s_own_plan_kinds_are_no_kind_s_number() -> None:
    own = {plan_kinds()[name] for name in PLAN_ONLY_KINDS}
    assert len(own) == len(PLAN_ONLY_KINDS)
    assert not own & {kind.value for kind in Kind}


def test_the_kinds_the_core_takes_as_they_are_are_the_scalar_kinds() -> None:
    assert "cdef frozenset _SCALAR_KINDS = frozenset(range(K_BYTES, K_EXT + 1)) | {K_RAW, K_NUMBER}" in PLAN
    kinds = plan_kinds()
    numbers = set(range(kinds["BYTES"], kinds["EXT"] + 1)) | {kinds["RAW"], kinds["NUMBER"]}
    assert numbers == {kind.value for kind in SCALAR_KINDS}


def test_the_core_s_shared_zeros_are_the_model_s() -> None:
    zeros = core_zeros()
    assert zeros.pop("UNUSABLE") is None
    assert {kind_of(name): zero for name, zero in zeros.items()} == dict(IMMUTABLE_ZEROS)
    for name, zero in zeros.items():
        assert type(zero) is type(IMMUTABLE_ZEROS[kind_of(name)]), name


def test_the_core_keeps_unknown_entries_under_the_model_s_attribute() -> None:
    assert re.search(r'^cdef str UNKNOWN_ATTR = "(\w+)"$', PLAN, re.M)[1] == UNKNOWN_ATTR  # type: ignore[index]
    lenient = zebrapack.load(VECTORS / "schemas" / "zp.z", preserve_unknown=True)
    record = lenient.types.Prims()
    setattr(record, UNKNOWN_ATTR, {999: b"\x01"})
    assert getattr(lenient.decode(lenient.encode(record)), UNKNOWN_ATTR) == {999: b"\x01"}


def test_the_core_s_time_limits_are_go_s_zero_time_and_datetime_s_range() -> None:
    go_zero_seconds = (GO_ZERO_TIME - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(seconds=1)
    assert c_define("zp_civil.h", "ZP_GO_ZERO_SECONDS") == go_zero_seconds
    assert c_define("zp_civil.h", "ZP_MIN_SECONDS") == DATETIME_MIN_SECONDS == go_zero_seconds
    assert c_define("zp_civil.h", "ZP_MAX_SECONDS") == DATETIME_MAX_SECONDS


def test_fields_left_out_decode_to_the_model_s_zeros(zp: zebrapack.Schema) -> None:
    prims = zp.decode(b"\x80", "Prims")
    checked = 0
    for field in zp.model.structs["Prims"].fields:
        kind = field.type.kind
        if kind in IMMUTABLE_ZEROS and kind in SCALAR_KINDS and kind != Kind.TIME:
            value = getattr(prims, python_name(field.go_name))
            assert value == IMMUTABLE_ZEROS[kind] and type(value) is type(IMMUTABLE_ZEROS[kind]), field.go_name
            checked += 1
    assert checked >= 5
