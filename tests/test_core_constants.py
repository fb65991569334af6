"""The compiled core and the Python package agree on every constant they share.

The core takes what it can from the package when it loads (the zeros records share,
the attribute of unknown entries, Go's zero time). What it needs as C constants (the
plan kinds its switches compare, the seconds its time checks use) is written in
``cython/``; these tests read those files and fail when a copy drifts from the
package's one."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import zebrapack
from zebrapack.schema.model import IMMUTABLE_ZEROS, SCALAR_KINDS, UNKNOWN_ATTR, Kind, python_name
from zebrapack.values.gotime import DATETIME_MAX_SECONDS, DATETIME_MIN_SECONDS, GO_ZERO_TIME

CORE = Path(__file__).resolve().parent.parent / "cython"
#: Plan kinds spelled differently from their Kind; every other K_NAME is Kind.NAME.
PLAN_KIND_SPELLINGS = {"F32": "FLOAT32", "F64": "FLOAT64", "C64": "COMPLEX64", "C128": "COMPLEX128",
                       "IFACE": "IDENT_IFACE"}
#: Plan kinds of the core's own, with no Kind: a [N]byte array, an unusable field.
PLAN_ONLY_KINDS = {"BYTEARRAY", "UNUSABLE"}
#: Kinds only a schema document holds: parse_schema resolves them to other kinds.
DOCUMENT_ONLY_KINDS = {Kind.INVALID, Kind.IDENT, Kind.BASE_ELEM}


def plan_kinds() -> dict[str, int]:
    """The K_* enum of cython/_plan.pxi, by name without its K_."""
    source = (CORE / "_plan.pxi").read_text()
    block = re.search(r"cdef enum:\n((?:    .*\n)+)", source[source.index("K_BYTES = ") - 200:])
    assert block is not None
    kinds = {name: int(number) for name, number in re.findall(r"^    K_(\w+) = (\d+)", block.group(1), re.M)}
    assert "BYTES" in kinds and "UNUSABLE" in kinds
    return kinds


def c_define(header: str, name: str) -> int:
    match = re.search(rf"#define {name} \((-?\d+)LL\)", (CORE / header).read_text())
    assert match is not None, f"{name} not in {header}"
    return int(match.group(1))


def test_every_plan_kind_is_the_number_of_its_kind() -> None:
    kinds = plan_kinds()
    shared = {name: number for name, number in kinds.items() if name not in PLAN_ONLY_KINDS}
    assert {name: Kind[PLAN_KIND_SPELLINGS.get(name, name)].value for name in shared} == shared
    assert {Kind[PLAN_KIND_SPELLINGS.get(name, name)] for name in shared} == set(Kind) - DOCUMENT_ONLY_KINDS


def test_the_core_s_own_plan_kinds_are_no_kind_s_number() -> None:
    kinds = plan_kinds()
    own = {kinds[name] for name in PLAN_ONLY_KINDS}
    assert len(own) == len(PLAN_ONLY_KINDS)
    assert not own & {kind.value for kind in Kind}


def test_the_core_s_time_limits_are_go_s_zero_time_and_datetime_s_range() -> None:
    go_zero_seconds = (GO_ZERO_TIME - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(seconds=1)
    assert c_define("zp_civil.h", "ZP_GO_ZERO_SECONDS") == go_zero_seconds
    assert c_define("zp_civil.h", "ZP_MIN_SECONDS") == DATETIME_MIN_SECONDS == go_zero_seconds
    assert c_define("zp_civil.h", "ZP_MAX_SECONDS") == DATETIME_MAX_SECONDS


def test_decoded_zeros_are_the_package_s_shared_zeros(zp: zebrapack.Schema) -> None:
    """A field left out decodes to IMMUTABLE_ZEROS's object itself: the core builds its
    table of shared zeros from it."""
    prims = zp.decode(zp.encode(zp.types.Prims()))
    checked = 0
    for field in zp.model.structs["Prims"].fields:
        kind = field.type.kind
        if kind in IMMUTABLE_ZEROS and kind in SCALAR_KINDS and kind != Kind.TIME:
            assert getattr(prims, python_name(field.go_name)) is IMMUTABLE_ZEROS[kind], field.go_name
            checked += 1
    assert checked >= 5


def test_unknown_entries_are_kept_under_the_package_s_attribute() -> None:
    lenient = zebrapack.load(Path(__file__).parent / "vectors" / "schemas" / "zp.z", preserve_unknown=True)
    record = lenient.types.Prims()
    setattr(record, UNKNOWN_ATTR, {999: b"\x01"})
    assert getattr(lenient.decode(lenient.encode(record)), UNKNOWN_ATTR) == {999: b"\x01"}
