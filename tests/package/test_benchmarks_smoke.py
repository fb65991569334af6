"""The benchmarks run: each module once in quick mode with tiny sizes (a smoke run, no timing claims)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("msgspec")
pytest.importorskip("matplotlib")

from benchmarks import __main__ as run_all  # noqa: E402
from benchmarks import bench_decode, bench_encode, bench_streams  # noqa: E402

TINY = ["--quick", "--best-of", "1", "--size", "n=8", "--size", "depth=3",
        "--size", "stream_kb=40", "--size", "append_n=200"]


@pytest.mark.parametrize("module", [bench_decode, bench_encode], ids=["decode", "encode"])
def test_per_shape_benchmark_times_every_shape_against_three_libraries(module, tmp_path: Path) -> None:
    rows = module.main([*TINY, "--out", str(tmp_path)])
    names = [row.shape.name for row in rows]
    assert names == ["A", "tiny", "wide", "8 int64", "8 float64", "8 x A", "3-deep chain",
                     "map[str]int x 8", "interface{} 2KB", "wide 2/40 set", "Compound"]
    for row in rows:
        assert set(row.timings) == {"zebrapack", "Struct", "dataclass", "msgpack"}
        assert all(t.best > 0 for t in row.timings.values())
    table = next(tmp_path.glob("*.md")).read_text(encoding="utf-8")
    assert "| Compound |" in table and "zp/Struct" in table and "msgspec" in table


def test_stream_benchmark_reports_decode_all_iter_decode_appends_memory_and_the_push_decoder(tmp_path: Path) -> None:
    text = bench_streams.main([*TINY, "--out", str(tmp_path)])
    for needle in ("decode_all, GC on", "list[Struct], GC off", "iter_decode(file)", "peak memory",
                   "encode_into(-1), 200 records", "writer.write", "bytes per record", "stream_decoder, 1 KiB",
                   "msgpack Unpacker.feed + A(**d), 64 KiB", "stream_decoder, 64 KiB pieces"):
        assert needle in text
    assert (tmp_path / "streams.md").exists()


def test_full_run_writes_results_and_chart(tmp_path: Path) -> None:
    run_all.main([*TINY, "--skip-streams", "--out", str(tmp_path)])
    assert (tmp_path / "ratios.png").read_bytes().startswith(b"\x89PNG")
    results = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "![ratios](ratios.png)" in results and "Decode per shape" in results and "Encode per shape" in results
