"""``zebrapack dump``: typed JSON lines with a schema, the raw structure without one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import SCHEMAS, call_main, error_line, run_cli
from support.vectors import MANIFEST, VECTORS, case_id

A_STREAM = VECTORS / "zp/A_stream.zpk"
ZP = SCHEMAS / "zp.z"


def type_args(case: dict[str, Any]) -> list[str]:
    return [] if case["structnames_on_wire"] else ["--type", case["type"]]


def as_vector_json(value: Any) -> Any:
    """Dump's typed JSON without the Go types of interface{} numbers, which the vectors'
    typed JSON does not carry ({"$f32": x} is x there, {"$uint": n} is n)."""
    if isinstance(value, list):
        return [as_vector_json(item) for item in value]
    if not isinstance(value, dict):
        return value
    if list(value) in (["$f32"], ["$uint"]):
        return next(iter(value.values()))
    if list(value) == ["$complex64"]:
        return {"$complex": value["$complex64"]}
    return {key: as_vector_json(item) for key, item in value.items()}


@pytest.mark.parametrize("case", MANIFEST, ids=case_id)
def test_dump_of_every_vector_is_its_expected_typed_json(monkeypatch: pytest.MonkeyPatch,
                                                         case: dict[str, Any]) -> None:
    status, out, err = call_main(monkeypatch, "dump", "--schema", SCHEMAS / case["schema"], *type_args(case),
                                 VECTORS / case["file"])
    assert (status, err) == (0, "")
    lines = out.decode().splitlines()
    dumped = [json.loads(line) for line in lines]
    expected = case["expect"] if "count" in case else [case["expect"]]
    if case_id(case) == "zp/Prims_boundary_b":
        # The vectors' typed JSON has no NaN payload; dump keeps it (see _typed_json).
        assert dumped[0]["F64"].pop("$bits") == "7ff8000000000001"
    assert as_vector_json(dumped) == expected
    assert all(list(record)[0] == "$type" for record in dumped)


def test_dump_reads_a_stream_from_stdin() -> None:
    result = run_cli("dump", "-s", ZP, "-", stdin=A_STREAM.read_bytes())
    assert result.returncode == 0 and result.stderr == b""
    names = [json.loads(line)["Name"] for line in result.stdout.decode().splitlines()]
    assert names == ["rec0", "rec1", "rec2", "rec3", "rec4"]


def test_dump_pretty_indents_each_record() -> None:
    result = run_cli("dump", "--schema", ZP, "--pretty", VECTORS / "zp/A_seed.zpk")
    assert result.returncode == 0
    text = result.stdout.decode()
    assert text.startswith('{\n  "$type": "A",\n  "Name": "Atlanta",\n')
    assert json.loads(text)["Bday"] == {"$time": "1990-12-20T00:00:00Z"}


def test_dump_without_schema_shows_offsets_wire_types_and_values() -> None:
    result = run_cli("dump", VECTORS / "zp/A_seed.zpk")
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout.decode().splitlines() == [
        "# record 1 at offset 0, 57 bytes",
        "         0  fixmap(7)",
        '         2    [-1] fixstr(1) "A"',
        '         5    [0] fixstr(7) "Atlanta"',
        "        14    [1] ext8(12) type 5: time 1990-12-20T00:00:00Z",
        '        30    [2] fixstr(12) "650-555-1212"',
        "        44    [3] fixint 3",
        "        46    [4] float64 3.95",
        "        56    [5] bool true",
    ]


def test_raw_dump_labels_nested_containers_string_keys_and_every_record_of_a_stream() -> None:
    outer = run_cli("dump", VECTORS / "mp/Outer.zpk").stdout.decode().splitlines()
    assert outer[1:4] == ["         0  fixmap(5)", '         4    ["In"] fixmap(2)', '         7      ["X"] fixint 1']
    assert '        38    ["I"] int16 -300' in outer
    stream = run_cli("dump", "-", stdin=A_STREAM.read_bytes()).stdout.decode()
    assert [line for line in stream.splitlines() if line.startswith("#")][-1] == "# record 5 at offset 218, 56 bytes"


def test_raw_dump_shows_nan_bits_and_cuts_long_strings() -> None:
    lines = run_cli("dump", VECTORS / "zp/Prims_boundary_b.zpk").stdout.decode().splitlines()
    assert "       537    [3] float64 nan (bits 7ff8000000000001)" in lines
    assert lines[3] == f'        11    [0] str16(256) "{"w" * 60}"...'


def test_missing_input_file_is_a_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.zpk"
    assert error_line(run_cli("dump", "-s", ZP, missing)) == f"zebrapack dump: error: {missing}: No such file or directory"


def test_missing_and_unreadable_schemas_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.z"
    bad.write_bytes(b"\x91\x01")
    assert error_line(run_cli("dump", "-s", tmp_path / "none.z", A_STREAM)) == \
        f"zebrapack dump: error: {tmp_path / 'none.z'}: No such file or directory"
    assert error_line(run_cli("dump", "-s", bad, A_STREAM)) == \
        f"zebrapack dump: error: {bad}: a schema is a map, not list"


def test_malformed_record_names_file_record_field_and_offset_after_the_complete_records(tmp_path: Path) -> None:
    data = A_STREAM.read_bytes()
    corrupt = bytearray(data)
    corrupt[106 + 41] = 0xA2          # record 3's Sibs (int16 200) becomes a str of its two bytes
    path = tmp_path / "corrupt.zpk"
    path.write_bytes(bytes(corrupt))
    result = run_cli("dump", "-s", ZP, path)
    assert error_line(result) == (f"zebrapack dump: error: {path}: record 3: A.Sibs: "
                                  f"expected int, found str (byte offset 147)")
    assert [json.loads(line)["Name"] for line in result.stdout.decode().splitlines()] == ["rec0", "rec1"]


def test_input_ending_inside_a_record_is_an_error_after_the_complete_records(tmp_path: Path) -> None:
    path = tmp_path / "cut.zpk"
    path.write_bytes(A_STREAM.read_bytes()[:120])
    typed = run_cli("dump", "-s", ZP, path)
    tear = (f"zebrapack dump: error: {path}: torn tail: record 3, from byte 106, is cut short by the end of "
            "the input; the 2 records before it are complete, and the valid data ends at byte 106 "
            "(zebrapack.recover reads such a file, and truncates it there)")
    assert error_line(typed) == tear
    assert len(typed.stdout.splitlines()) == 2
    raw = run_cli("dump", path)
    assert error_line(raw) == tear
    assert raw.stdout.decode().count("# record") == 2


def test_records_without_struct_names_need_type() -> None:
    path = VECTORS / "zpn/A_seed.zpk"
    assert error_line(run_cli("dump", "-s", SCHEMAS / "zpn.z", path)) == (
        f"zebrapack dump: error: {path}: record 1: $: the record names no struct of this schema (key -1): "
        f"give --type (byte offset 0)")


def test_unknown_type_and_typed_options_without_schema_are_errors() -> None:
    assert error_line(run_cli("dump", "-s", ZP, "-t", "Nope", A_STREAM)) == \
        "zebrapack dump: error: the schema has no struct 'Nope' (it has A, Prims, Inner, Compound, Tree)"
    assert error_line(run_cli("dump", "--pretty", A_STREAM)) == "zebrapack dump: error: --pretty needs a schema: --schema, or a stream that carries its schema"
