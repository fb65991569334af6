"""benchmarks.bench_arrow runs (a smoke run with tiny sizes, no timing claims)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.engines import engine

engine("pyarrow")
pytest.importorskip("msgspec")

from benchmarks import bench_arrow  # noqa: E402


def test_arrow_benchmark_races_every_contender_and_writes_its_table(tmp_path: Path) -> None:
    text = bench_arrow.main(["--records", "40", "--rounds", "1", "--out", str(tmp_path)])
    for needle in ("README A records into a pyarrow.Table", "Compound records into a pyarrow.Table",
                   "(a) decode_all + from_pylist", "(b) msgspec list[Struct] + from_pylist",
                   "(c) pyarrow.json.read_json", "Two-column projection of README A",
                   "Two-column projection of Compound", "Writing README A records", "to_pylist + classes + encode",
                   "pyarrow ", "| zebrapack.arrow.read |", "| zebrapack.arrow.write |",
                   "zebrapack.arrow.read, columns=['Name', 'Sibs']"):
        assert needle in text, needle
    assert "not available" not in text
    assert (tmp_path / "arrow.md").read_text(encoding="utf-8").startswith("## Arrow")
