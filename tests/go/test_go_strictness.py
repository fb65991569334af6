"""The Go peer's reader is as strict as the reference's, which is the problem
zebrapack solves: a generic msgpack writer picks encodings by value, Go reads
by declared type.

Records are written out by hand (hex) so that every byte under test is visible.
"""

from __future__ import annotations

import msgpack
import pytest
from support.vectors import vector_schema
from support.go_peer import GoPeer, GoRejected, go_peer  # noqa: F401  (go_peer is a fixture)

A_NAME = "ffa141"  # -1: "A"
PRIMS_NAME = "ffa55072696d73"  # -1: "Prims"


def test_go_rejects_msgpack_packb_of_a_signed_field_holding_200_but_accepts_zebrapack(go_peer: GoPeer) -> None:
    # The same logical record: an A whose Sibs (a Go int, zid 3) is 200.
    packed = msgpack.packb({-1: "A", 3: 200})
    assert packed == bytes.fromhex(f"82{A_NAME}03ccc8")  # 200 as uint8, by its value
    with pytest.raises(GoRejected, match=r'zid 3: msgp: attempted to decode type "uint" with method for "int"'):
        go_peer.roundtrip("zp", "A", packed)

    zp = vector_schema("zp.z")
    ours = zp.encode(zp.types.A(Sibs=200))
    assert ours == bytes.fromhex(f"82{A_NAME}03d100c8")  # 200 as int16, by the declared type
    assert go_peer.roundtrip("zp", "A", ours) == ours


@pytest.mark.parametrize(("type_name", "record", "error"), [
    pytest.param("A", f"82{A_NAME}03cc05", r'zid 3: .*type "uint" with method for "int"',
                 id="signed_rejects_uint_family"),
    pytest.param("Prims", f"82{PRIMS_NAME}08d005", r'zid 8: .*type "int" with method for "uint"',
                 id="unsigned_rejects_int_family"),
    pytest.param("Prims", f"82{PRIMS_NAME}07ff", r'zid 7: .*type "int" with method for "uint"',
                 id="unsigned_rejects_negative_fixint"),
    pytest.param("Prims", f"82{PRIMS_NAME}0dd10080", r"zid 13: msgp: 128 overflows int8",
                 id="int8_rejects_128"),
    pytest.param("Prims", f"82{PRIMS_NAME}0ed2ffff7fff", r"zid 14: msgp: -32769 overflows int16",
                 id="int16_rejects_minus_32769"),
    pytest.param("Prims", f"82{PRIMS_NAME}07cd0100", r"zid 7: msgp: 256 overflows uint8",
                 id="uint8_rejects_256"),
    pytest.param("Prims", f"82{PRIMS_NAME}02cb3ff0000000000000", r'zid 2: .*type "float64" with method for "float32"',
                 id="float32_rejects_float64"),
    pytest.param("A", f"82{A_NAME}00c40161", r'zid 0: .*type "bin" with method for "str"',
                 id="string_rejects_bin"),
    pytest.param("Prims", f"82{PRIMS_NAME}01a161", r'zid 1: .*type "str" with method for "bin"',
                 id="bytes_rejects_str"),
    pytest.param("A", f"82{A_NAME}01d6ff00000001", r"zid 1: time: want an ext8 of 12 bytes and type 5, got ext",
                 id="time_rejects_msgpack_timestamp"),
    pytest.param("A", "81ffa142", r'the struct name on the wire is "B"',
                 id="struct_name_must_match"),
    pytest.param("Prims", f"82{PRIMS_NAME}1381ff00", r'zid 19: map key: .*type "int" with method for "str"',
                 id="interface_rejects_integer_keyed_map"),
])
def test_go_strict_reader_rejects(go_peer: GoPeer, type_name: str, record: str, error: str) -> None:
    with pytest.raises(GoRejected, match=error):
        go_peer.roundtrip("zp", type_name, bytes.fromhex(record))


@pytest.mark.parametrize(("type_name", "record", "rewritten"), [
    pytest.param("A", f"82{A_NAME}04ca3fc00000", f"82{A_NAME}04cb3ff8000000000000",
                 id="float64_accepts_float32"),
    pytest.param("A", f"83{A_NAME}09a17800a142", f"82{A_NAME}00a142",
                 id="unknown_zid_skipped"),
    pytest.param("A", "80", f"81{A_NAME}",
                 id="missing_fields_zero"),
    pytest.param("A", f"83{A_NAME}00c003c0", f"81{A_NAME}",
                 id="nil_reads_as_zero_value"),
    pytest.param("A", "8100a142", f"82{A_NAME}00a142",
                 id="struct_name_optional"),
    pytest.param("Prims", f"82{PRIMS_NAME}0a05", f"83{PRIMS_NAME}0a0513c0",
                 id="unsigned_accepts_positive_fixint"),
    pytest.param("Prims", f"82{PRIMS_NAME}13cb8000000000000000", f"82{PRIMS_NAME}13cb8000000000000000",
                 id="interface_keeps_minus_zero"),
    # Go never considers an interface{} field empty (nor does zebrapack, see test_encode)
    pytest.param("Prims", f"81{PRIMS_NAME}", f"82{PRIMS_NAME}13c0",
                 id="nil_interface_written_as_nil"),
])
def test_go_strict_reader_accepts(go_peer: GoPeer, type_name: str, record: str, rewritten: str) -> None:
    assert go_peer.roundtrip("zp", type_name, bytes.fromhex(record)) == bytes.fromhex(rewritten)
