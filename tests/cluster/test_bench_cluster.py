"""The cluster benchmark runs (a smoke run with tiny files and Dask only, no timing
claims; Spark's part runs in the full benchmark, its reader in test_spark.py)."""

from __future__ import annotations

from pathlib import Path

from support.engines import engine


def test_cluster_benchmark_reads_every_record_and_reports_rates_and_worker_memory(tmp_path: Path) -> None:
    engine("distributed")
    from benchmarks import bench_cluster

    text = bench_cluster.main(["--records", "300", "--files", "2", "--split-records", "100", "--skip-spark",
                               "--out", str(tmp_path)])
    assert "2 files x 300 README `A` records" in text
    rows = {line.split("|")[1].strip(): line.split("|")[2:-1] for line in text.splitlines()
            if line.startswith("| ") and "wall time" not in line}
    assert set(rows) == {"decode_all, one process", "zebrapack.arrow.read, one process",
                         "Dask, LocalCluster 2 processes"}
    dask = [cell.strip() for cell in rows["Dask, LocalCluster 2 processes"]]
    assert dask[3] == "6" and len(dask[4].split(", ")) == 2      # 3 splits a file; each worker's peak
    assert (tmp_path / "cluster.md").read_text(encoding="utf-8").startswith("## Reading on a cluster")
