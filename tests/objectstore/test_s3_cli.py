"""The command line on URLs: dump, encode -o, index and convert read and write objects in
the bucket, with --storage-options or with the environment's S3 settings alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.cli import SCHEMAS, error_line, run_cli
from support.engines import engine

s3fs = engine("s3fs")
pq = engine("pyarrow.parquet")
ZP = SCHEMAS / "zp.z"
RECORDS = SCHEMAS.parent / "zp" / "A_seed.zpk"


def test_the_commands_read_and_write_objects(s3_server: Any, bucket: str, options: dict[str, Any],
                                             tmp_path: Path) -> None:
    fs = s3fs.S3FileSystem(**options, skip_instance_cache=True)
    fs.pipe(f"{bucket}/in.zpk", RECORDS.read_bytes() * 50)
    storage = ["--storage-options", json.dumps(options)]
    dumped = run_cli("dump", "-s", ZP, f"{bucket}/in.zpk", *storage)
    assert dumped.returncode == 0, dumped.stderr
    assert len(dumped.stdout.splitlines()) == 50
    env = s3_server.env()        # no options: the environment names the endpoint and the keys
    (tmp_path / "in.jsonl").write_bytes(dumped.stdout)
    encoded = run_cli("encode", "-s", ZP, tmp_path / "in.jsonl", "-o", f"{bucket}/encoded.zpk", "--index", **env)
    assert encoded.returncode == 0, encoded.stderr
    assert fs.cat(f"{bucket}/encoded.zpk") == fs.cat(f"{bucket}/in.zpk") and fs.exists(f"{bucket}/encoded.zpk.zpi")
    indexed = run_cli("index", f"{bucket}/in.zpk", "--every", "8", **env)
    assert indexed.stdout.decode() == f"{bucket}/in.zpk.zpi: 50 records in 7 entries (192 bytes)\n"
    assert run_cli("index", "--check", f"{bucket}/in.zpk", **env).stdout.decode().endswith("valid, 50 records in 7 "
                                                                                          "entries\n")
    converted = run_cli("convert", f"{bucket}/in.zpk", "-s", ZP, "-t", "A", "-o", f"{bucket}/in.parquet", **env)
    assert converted.returncode == 0, converted.stderr
    with fs.open(f"{bucket}/in.parquet") as handle:
        assert pq.read_table(handle).num_rows == 50
    back = run_cli("convert", f"{bucket}/in.parquet", "-s", ZP, "-t", "A", "-o", f"{bucket}/back.zpk", **env)
    assert back.returncode == 0, back.stderr
    assert fs.cat(f"{bucket}/back.zpk") == fs.cat(f"{bucket}/in.zpk")
    missing = error_line(run_cli("dump", "-s", ZP, f"{bucket}/none.zpk", **env))
    assert missing.startswith("zebrapack dump: error: ") and "none.zpk" in missing
    failed = error_line(run_cli("convert", f"{bucket}/in.zpk", "-s", ZP, "-t", "Compound", "-o",
                                f"{bucket}/wrong.arrow", **env))
    assert "record 1: Compound" in failed and not fs.exists(f"{bucket}/wrong.arrow")
