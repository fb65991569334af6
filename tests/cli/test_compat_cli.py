"""``zebrapack check``, ``zebrapack schema`` and ``zebrapack go`` as a user runs them: output and exit status."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

from support.cli import SCHEMAS, error_line, run_cli

import zebrapack


def zebrapack_cli(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``run_cli`` with its output as text."""
    result = run_cli(*args, cwd=cwd)
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(), result.stderr.decode())


def test_check_exits_0_when_compatible_and_prints_the_information() -> None:
    result = zebrapack_cli("check", SCHEMAS / "evo1.z", SCHEMAS / "evo2.z")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "info: Person zid 1 (Age): retired (int32 -> struct{}, deprecated)",
        "info: Person zid 3 (Tags): new field []string",
        "info: Person zid 4 (Score): new field uint64",
        "compatible",
    ]


def test_check_says_compatible_when_there_is_nothing_else_to_say() -> None:
    result = zebrapack_cli("check", SCHEMAS / "evo1.z", SCHEMAS / "evo1.go")
    assert (result.returncode, result.stdout, result.stderr) == (0, "compatible\n", "")


def test_check_exits_1_on_conflicts_and_reads_go_source() -> None:
    result = zebrapack_cli("check", SCHEMAS / "evo2.go", SCHEMAS / "evo1.z.json")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "conflict: Person zid 1 (Age): type struct{} -> int32 (a retired zid is never reused)"
    assert lines[-1] == "incompatible: 3 conflicts"


def test_check_json_lists_the_same_findings() -> None:
    result = zebrapack_cli("check", "--json", SCHEMAS / "evo2.z", SCHEMAS / "evo1.z")
    expected = zebrapack.check_compatible(SCHEMAS / "evo2.z", SCHEMAS / "evo1.z").findings
    assert result.returncode == 1
    assert json.loads(result.stdout) == [finding.as_dict() for finding in expected]


def test_check_json_and_finding_speak_one_vocabulary() -> None:
    """The JSON keys are the Finding's fields, the severities the words check prints."""
    report = zebrapack.check_compatible(SCHEMAS / "evo2.z", SCHEMAS / "evo1.z")
    finding = report.findings[0]
    assert list(finding.as_dict()) == [f.name for f in dataclasses.fields(finding)]
    assert {f.severity for f in report.findings} == {"conflict"} and report.conflicts == report.findings
    text = str(report).splitlines()
    assert all(line.startswith(f"{f.severity}: ") for line, f in zip(text, report.findings, strict=True))


def test_check_exits_2_on_an_unreadable_schema(tmp_path: Path) -> None:
    bad = tmp_path / "bad.go"
    bad.write_text('package p\n\ntype T struct {\n\tA int `zid:"1"`\n}\n')
    assert error_line(run_cli("check", tmp_path / "absent.z", SCHEMAS / "evo1.z")) == (
        f"zebrapack check: error: {tmp_path / 'absent.z'}: No such file or directory")
    assert error_line(run_cli("check", SCHEMAS / "evo1.z", bad)) == (
        f"zebrapack check: error: {bad}:4: T.A: zids must run from 0 without gaps: zid 0 unused")
    usage = zebrapack_cli("check", "--bogus")
    assert (usage.returncode, usage.stdout) == (2, "") and usage.stderr.startswith("usage: zebrapack check")


def test_schema_writes_z_and_json_beside_the_source(tmp_path: Path) -> None:
    source = tmp_path / "zp.go"
    shutil.copy(SCHEMAS / "zp.go", source)
    result = zebrapack_cli("schema", "zp.go", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    reference = zebrapack.load(SCHEMAS / "zp.z").model
    assert zebrapack.load(tmp_path / "zp.z").structs == reference.structs
    assert zebrapack.load(tmp_path / "zp.z.json").model.source_path == "zp.go"


def test_schema_output_and_json(tmp_path: Path) -> None:
    result = zebrapack_cli("schema", SCHEMAS / "iface.go", "-o", tmp_path / "out.z", "--json")
    assert result.returncode == 0
    printed = json.loads(result.stdout)
    assert printed == json.loads((tmp_path / "out.z.json").read_text())
    assert zebrapack.load(printed).structs == zebrapack.load(SCHEMAS / "iface.z").structs
    only_json = zebrapack_cli("schema", SCHEMAS / "evo1.go", "--json", cwd=tmp_path)
    assert json.loads(only_json.stdout)["SourcePackage"] == "evo1"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out.z", "out.z.json"]


def test_schema_error_is_one_line_with_file_and_line(tmp_path: Path) -> None:
    source = tmp_path / "bad.go"
    source.write_text('package p\n\ntype T struct {\n\tA chan int `zid:"0"`\n}\n')
    assert error_line(run_cli("schema", source)) == (
        f"zebrapack schema: error: {source}:4: T.A: chan type chan int cannot be serialized: the reference warns "
        'that the field is unsupported and makes it a Skip field; say so with msg:"-"')


def test_go_prints_source_that_compiles_back(tmp_path: Path) -> None:
    result = zebrapack_cli("go", SCHEMAS / "zp.z", "-o", tmp_path / "zp.go")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert zebrapack.schema_from_go(tmp_path / "zp.go").structs == zebrapack.load(SCHEMAS / "zp.z").structs
    printed = zebrapack_cli("go", SCHEMAS / "evo2.z.json", "--package", "people")
    assert printed.returncode == 0 and "package people\n" in printed.stdout


def test_go_refuses_names_go_cannot_export(tmp_path: Path) -> None:
    document = json.loads((SCHEMAS / "evo1.z.json").read_text())
    document["Structs"]["Person"]["Fields"][0]["FieldGoName"] = "name"
    (tmp_path / "lower.z.json").write_text(json.dumps(document))
    assert "Person.name: field name is not exported in Go" in error_line(run_cli("go", tmp_path / "lower.z.json"))


GOLDEN_SCHEMAS = Path(__file__).parent.parent / "golden" / "schemas"


def test_commands_that_compile_go_source_take_unexported() -> None:
    # my2.go is the reference's testdata, compiled with -unexported
    refused = zebrapack_cli("check", GOLDEN_SCHEMAS / "my2.go", GOLDEN_SCHEMAS / "my2.z")
    assert refused.returncode == 2 and "--unexported" in refused.stderr and refused.stderr.count("\n") == 1
    result = zebrapack_cli("check", "--unexported", GOLDEN_SCHEMAS / "my2.go", GOLDEN_SCHEMAS / "my2.z")
    assert (result.returncode, result.stdout, result.stderr) == (0, "compatible\n", "")
    go = zebrapack_cli("go", "--unexported", GOLDEN_SCHEMAS / "my2.go")
    assert go.returncode == 0 and "package my2" in go.stdout and "\ntype tr struct" in go.stdout.lower()
    record = sorted((GOLDEN_SCHEMAS.parent / "records" / "my2").glob("Tr_*.zpk"))[0]
    dumped = zebrapack_cli("dump", "--unexported", "-s", GOLDEN_SCHEMAS / "my2.go", "--type", "Tr", record)
    assert dumped.returncode == 0 and dumped.stdout.startswith('{"$type": "Tr"')
