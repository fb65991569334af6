"""``zebrapack encode``: typed JSON lines to records, the reverse of dump."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from support.cli import SCHEMAS, call_main, cli_env, error_line, run_cli
from support.vectors import MANIFEST, VECTORS, case_id, vector_bytes, vector_schema

ZP = SCHEMAS / "zp.z"
A_SEED = {"$type": "A", "Name": "Atlanta", "Bday": {"$time": "1990-12-20T00:00:00Z"}, "Phone": "650-555-1212",
          "Sibs": 3, "GPA": 3.95, "Friend": True}


def jsonl(*documents: dict[str, Any]) -> bytes:
    return "".join(json.dumps(document) + "\n" for document in documents).encode()


def encode_args(case: dict[str, Any]) -> list[str]:
    args = ["--schema", str(SCHEMAS / case["schema"])]
    if not case["structnames_on_wire"]:
        args += ["--type", case["type"]]
        if case["mode"] == "zebrapack":
            args.append("--no-structnames")
    if case["mode"] == "msgp":
        args.append("--msgp")
    return args


def library_round_trip(case: dict[str, Any]) -> bytes:
    """What decode -> encode gives for the vector: the bytes dump | encode must give back."""
    schema = vector_schema(case["schema"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return b"".join(schema.encode(record, structnames=case["structnames_on_wire"], mode=case["mode"])
                        for record in schema.decode_all(vector_bytes(case), type=case["type"]))


# Sorted map keys change the order of maps with several entries, which have no
# single encoding anyway: only the byte-exact vectors go through a sorted dump.
ROUND_TRIPS = [pytest.param(case, False, id=f"{case_id(case)}-sorted") for case in MANIFEST if case["byte_exact"]]
ROUND_TRIPS += [pytest.param(case, True, id=f"{case_id(case)}-wire-order") for case in MANIFEST]


@pytest.mark.parametrize(("case", "wire_order"), ROUND_TRIPS)
def test_dump_then_encode_gives_back_the_decoded_records_bytes(monkeypatch: pytest.MonkeyPatch,
                                                               case: dict[str, Any], wire_order: bool) -> None:
    dump_args = ["--type", case["type"]] + (["--wire-order"] if wire_order else [])
    status, typed_json, _ = call_main(monkeypatch, "dump", "-s", SCHEMAS / case["schema"], *dump_args,
                                      VECTORS / case["file"])
    assert status == 0
    status, data, _ = call_main(monkeypatch, "encode", *encode_args(case), stdin=typed_json)
    assert status == 0
    assert data == library_round_trip(case)


@pytest.mark.parametrize("name", ["Compound_full", "Compound_large"])
def test_wire_order_reproduces_records_whose_maps_have_several_entries(name: str) -> None:
    path = VECTORS / "zp" / f"{name}.zpk"
    dumped = run_cli("dump", "-s", ZP, "--wire-order", path)
    encoded = run_cli("encode", "-s", ZP, stdin=dumped.stdout)
    assert encoded.returncode == 0
    assert encoded.stdout == path.read_bytes()


def test_encode_reads_a_file_argument_and_writes_standard_output(tmp_path: Path) -> None:
    source = tmp_path / "a.jsonl"
    source.write_bytes(jsonl(A_SEED))
    result = run_cli("encode", "-s", ZP, "-t", "A", source)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == (VECTORS / "zp/A_seed.zpk").read_bytes()


def test_no_structnames_and_msgp_write_as_the_go_flags_do() -> None:
    plain = run_cli("encode", "-s", SCHEMAS / "zpn.z", "-t", "A", "--no-structnames", stdin=jsonl(A_SEED))
    assert plain.stdout == (VECTORS / "zpn/A_seed.zpk").read_bytes()
    msgp = run_cli("encode", "-s", SCHEMAS / "mp.z", "-t", "A", "--msgp", stdin=jsonl(A_SEED))
    assert msgp.stdout == (VECTORS / "mp/A_seed.zpk").read_bytes()


def test_encode_reads_pretty_dump_output_and_skips_blank_lines() -> None:
    pretty = run_cli("dump", "-s", ZP, "--pretty", VECTORS / "zp/A_stream.zpk").stdout
    result = run_cli("encode", "-s", ZP, stdin=b"\n" + pretty.replace(b"}\n{", b"}\n\n{"))
    assert result.returncode == 0
    assert result.stdout == (VECTORS / "zp/A_stream.zpk").read_bytes()


def test_json_that_does_not_fit_names_line_record_and_field_after_the_complete_records() -> None:
    good = dict(A_SEED)
    bad = {"$type": "Compound", "Inners": [{}, {}, {"X": 2 ** 40}]}
    result = run_cli("encode", "-s", ZP, stdin=jsonl(good, good) + b"\n" + jsonl(bad))
    assert error_line(result) == ("zebrapack encode: error: <stdin>: line 4: record 3: Compound.Inners[2].X: "
                                  "1099511627776 is outside the range of int32 (-2147483648..2147483647)")
    assert result.stdout == (VECTORS / "zp/A_seed.zpk").read_bytes() * 2


@pytest.mark.parametrize(("stdin", "message"), [
    (b'{"$type": "A", "Sibs": "3"}\n', '<stdin>: line 1: record 1: A.Sibs: expected int, found string "3"'),
    (b'{"Name": "x"}\n', '<stdin>: line 1: record 1: $: the record has no "$type" naming its struct'),
    (b'{"$type": "A"}\n{"$type": "A", "Name": }\n', "<stdin>: line 2: not valid JSON: Expecting value (column 24)"),
    (b'{"$type": "A", "GPA": NaN}\n', '<stdin>: line 1: NaN is not JSON; typed JSON writes {"$float": ...}'),
    (b'{"$type": "A",\n  "Name": "x"\n', "<stdin>: line 1: the input ends inside this JSON value"),
    (b'{"$type": "A", "Name": "\xff"}\n', "<stdin>: line 1: not UTF-8 text (invalid start byte at column 25)"),
])
def test_bad_input_is_a_one_line_error(stdin: bytes, message: str) -> None:
    assert error_line(run_cli("encode", "-s", ZP, stdin=stdin)) == f"zebrapack encode: error: {message}"


def test_writing_a_deprecated_field_warns_once_on_stderr() -> None:
    result = run_cli("encode", "-s", ZP, stdin=jsonl({"$type": "Compound", "Old": 1}, {"$type": "Compound", "Old": 2}))
    assert result.returncode == 0
    assert result.stderr.decode() == ("zebrapack encode: warning: Compound.Old (zid 13) is deprecated in the schema "
                                      "but was written\n")


def test_encode_refuses_to_write_binary_to_a_terminal() -> None:
    leader, follower = pty.openpty()
    try:
        result = subprocess.run([sys.executable, "-m", "zebrapack", "encode", "-s", str(ZP)], input=jsonl(A_SEED),
                                stdout=follower, stderr=subprocess.PIPE, env=cli_env(), timeout=60, check=False)
    finally:
        os.close(follower)
        os.close(leader)
    assert result.returncode == 2
    assert result.stderr.decode() == ("zebrapack encode: error: refusing to write binary records to a terminal; "
                                      "redirect standard output\n")


def test_schema_is_required() -> None:
    result = run_cli("encode", stdin=jsonl(A_SEED))
    assert result.returncode == 2
    assert "the following arguments are required: -s/--schema" in result.stderr.decode()
