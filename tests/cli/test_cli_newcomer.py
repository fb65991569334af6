"""What a newcomer runs into at the command line: streams that carry their schema,
inputs that are not records, empty inputs, Go sources as --schema, defaults."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support.cli import SCHEMAS, error_line, run_cli
from support.vectors import VECTORS

import zebrapack

ZP = SCHEMAS / "zp.z"
A_STREAM = VECTORS / "zp/A_stream.zpk"


def self_describing(schema_name: str, *records: dict[str, object], structnames: bool = True) -> bytes:
    """A stream written with write_schema=True: the schema document, then the records."""
    schema = zebrapack.load(SCHEMAS / schema_name)
    out = io.BytesIO()
    with schema.writer(out, write_schema=True, structnames=structnames) as writer:
        for fields in records:
            writer.write(schema.types.A(**fields))
    return out.getvalue()


def dumped(result: object) -> list[dict[str, object]]:
    assert getattr(result, "returncode") == 0, getattr(result, "stderr")
    return [json.loads(line) for line in getattr(result, "stdout").decode().splitlines()]


TWO_RECORDS = ({"Name": "one", "Sibs": 1}, {"Name": "two", "Sibs": 2})


@pytest.fixture
def stream_file(tmp_path: Path) -> Path:
    path = tmp_path / "with_schema.zpk"
    path.write_bytes(self_describing("zp.z", *TWO_RECORDS))
    return path


def test_dump_reads_a_stream_with_the_schema_it_carries(stream_file: Path) -> None:
    records = dumped(run_cli("dump", stream_file))
    assert [(r["$type"], r["Name"], r["Sibs"]) for r in records] == [("A", "one", 1), ("A", "two", 2)]


def test_dump_with_schema_and_type_prints_exactly_the_records_of_a_stream_with_its_schema(stream_file: Path) -> None:
    """Issue 10: the schema document was printed as an all-zero A before the records."""
    for extra in ([], ["--type", "A"]):
        records = dumped(run_cli("dump", "--schema", ZP, *extra, stream_file))
        assert [r["Name"] for r in records] == ["one", "two"]


def test_dump_reads_a_stream_with_its_schema_from_stdin_and_no_struct_names() -> None:
    data = self_describing("zpn.z", {"Name": "solo", "Sibs": 3}, structnames=False)
    assert [r["Name"] for r in dumped(run_cli("dump", "--type", "A", stdin=data))] == ["solo"]
    assert "give --type" in error_line(run_cli("dump", stdin=data))
    assert error_line(run_cli("dump", "--type", "Nope", stdin=data)).startswith(
        "zebrapack dump: error: the schema has no struct 'Nope'")


def test_dump_refuses_a_schema_that_is_not_a_version_of_the_carried_one(stream_file: Path) -> None:
    assert error_line(run_cli("dump", "--schema", SCHEMAS / "evo1.z", stream_file)) == (
        f"zebrapack dump: error: {stream_file}: the schema at the start of the stream: the stream's schema is "
        "not a version of the given one: A: struct removed (structs, like fields, are never deleted)")


def test_dump_raw_shows_the_schema_document_of_a_stream_as_msgpack(stream_file: Path) -> None:
    result = run_cli("dump", "--raw", stream_file)
    lines = result.stdout.decode().splitlines()
    assert result.returncode == 0 and lines[0].startswith("# record 1 at offset 0")
    assert '["SourcePackage"] fixstr(2) "zp"' in result.stdout.decode()
    assert sum(line.startswith("# record ") for line in lines) == 3
    assert error_line(run_cli("dump", "--raw", "--schema", ZP, stream_file)) == \
        "zebrapack dump: error: --raw shows the input without a schema: leave out --schema"


def test_open_stream_reads_the_records_with_a_later_version_of_its_schema(tmp_path: Path) -> None:
    evo1 = zebrapack.load(SCHEMAS / "evo1.z")
    out = io.BytesIO()
    with evo1.writer(out, write_schema=True) as writer:
        writer.write(evo1.types.Person(Name="Grace"))
    evo2 = zebrapack.load(SCHEMAS / "evo2.z")
    with zebrapack.open_stream(out.getvalue(), schema=evo2) as stream:
        assert stream.schema is evo2
        assert [type(r) for r in stream] == [evo2.types.Person]
    with pytest.raises(zebrapack.SchemaError, match="not a version of the given one"):
        zebrapack.open_stream(out.getvalue(), schema=zebrapack.load(ZP))
    with pytest.raises(TypeError, match="preserve_unknown"):
        zebrapack.open_stream(out.getvalue(), schema=evo2, preserve_unknown=True)


@pytest.mark.parametrize("options", [[], ["--schema", str(ZP)]], ids=["raw", "typed"])
def test_dump_of_json_lines_fails_with_a_hint_at_encode(tmp_path: Path, options: list[str]) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"$type": "A", "Name": "x"}\n{"$type": "A", "Name": "y"}\n')
    result = run_cli("dump", *options, path)
    assert result.stdout == b""
    assert error_line(result) == (f"zebrapack dump: error: {path}: this is JSON text, not msgpack records; "
                                  "`zebrapack encode -s SCHEMA` turns typed JSON into records")


def test_dump_of_input_that_does_not_start_with_a_record_fails_before_printing() -> None:
    assert error_line(run_cli("dump", stdin=b"\x01\x02\x03")) == (
        "zebrapack dump: error: <stdin>: not msgpack records: a record is a msgpack map, and the input starts "
        "with byte 0x01 (zebrapack dump --raw shows its structure anyway)")
    raw = run_cli("dump", "--raw", stdin=b"\x01\x02")
    assert raw.returncode == 0 and raw.stdout.decode().count("# record") == 2
    assert "starts with an array" in error_line(run_cli("dump", "-s", ZP, stdin=b"\x90"))
    assert run_cli("dump", stdin=b"\x91\x01").returncode == 0       # raw: any msgpack container


@pytest.mark.parametrize("command", [["dump"], ["dump", "-s", str(ZP)], ["encode", "-s", str(ZP)]])
def test_empty_input_says_so_on_stderr(command: list[str]) -> None:
    result = run_cli(*command)
    assert (result.returncode, result.stdout) == (0, b"")
    assert result.stderr.decode() == f"zebrapack {command[0]}: <stdin>: the input is empty (no records)\n"


def test_dump_reads_standard_input_by_default() -> None:
    records = dumped(run_cli("dump", "-s", ZP, stdin=A_STREAM.read_bytes()))
    assert [r["Name"] for r in records] == ["rec0", "rec1", "rec2", "rec3", "rec4"]


def test_encode_of_a_json_array_says_one_object_per_record() -> None:
    result = run_cli("encode", "-s", ZP, stdin=b'[{"$type": "A"}, {"$type": "A"}]\n')
    assert error_line(result) == ("zebrapack encode: error: <stdin>: line 1: a JSON array; encode reads one "
                                  "JSON object per record (JSON Lines, as dump writes), not an array of them")


def test_every_schema_option_compiles_go_sources(tmp_path: Path) -> None:
    go = SCHEMAS / "zp.go"
    from_z = dumped(run_cli("dump", "-s", ZP, A_STREAM))
    assert dumped(run_cli("dump", "-s", go, A_STREAM)) == from_z
    jsonl = "".join(json.dumps(r) + "\n" for r in from_z).encode()
    assert run_cli("encode", "-s", go, stdin=jsonl).stdout == A_STREAM.read_bytes()
    compiled = tmp_path / "zp_compiled.z"
    assert run_cli("schema", go, "-o", compiled).returncode == 0     # what `zebrapack schema` makes of it
    assert run_cli("gen", go).stdout == run_cli("gen", compiled).stdout
    assert run_cli("go", go).stdout == run_cli("go", compiled).stdout
    bad = tmp_path / "bad.go"
    bad.write_text('package p\n\ntype T struct {\n\tA chan int `zid:"0"`\n}\n')
    assert error_line(run_cli("dump", "-s", bad, A_STREAM)) == \
        f"zebrapack dump: error: {bad}:4: T.A: chan type chan int cannot be serialized: the reference warns " \
        'that the field is unsupported and makes it a Skip field; say so with msg:"-"'
    assert error_line(run_cli("dump", "-s", tmp_path / "absent.go", A_STREAM)) == \
        f"zebrapack dump: error: {tmp_path / 'absent.go'}: No such file or directory"


def test_gen_prints_the_same_module_for_z_and_z_json() -> None:
    texts = {run_cli("gen", SCHEMAS / name).stdout for name in ("zp.z", "zp.z.json")}
    assert len(texts) == 1
    assert texts.pop().startswith(b"# Code generated by zebrapack gen. DO NOT EDIT.\n")
