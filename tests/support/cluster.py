"""Shared by tests/cluster: record files to read, and the engines' fixtures: one
Dask LocalCluster (worker processes) for test_dask.py, one SparkSession
(local[2]) for test_spark.py. Each is used by one module and ends with it (so
each starts once, and no engine thread runs on under the tests that follow). A missing engine (or Java, for Spark) skips, unless
ZEBRAPACK_REQUIRE_ENGINES=1 (CI), where it fails."""

from __future__ import annotations

import datetime
import gc
import os
import shutil
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.vectors import vector_schema
from support.engines import REQUIRE_ENGINES, engine

import zebrapack

UTC = datetime.timezone.utc


@pytest.fixture(scope="session")
def zp() -> zebrapack.Schema:
    return vector_schema("zp.z")


def a_records(schema: zebrapack.Schema, count: int, start: int = 0) -> list[Any]:
    """README-shaped A records, each different (names, ages, times)."""
    A = schema.types.A
    base = datetime.datetime(1990, 12, 20, tzinfo=UTC)
    return [A(Name=f"rec{i}", Bday=base + datetime.timedelta(days=i, microseconds=i), Phone=f"650-555-{i % 10000:04d}",
              Sibs=i % 7 - 3, GPA=i / 8, Friend=i % 3 == 0) for i in range(start, start + count)]


def write_records(schema: zebrapack.Schema, path: Path, records: list[Any], **options: Any) -> Path:
    with schema.writer(path, **options) as writer:
        writer.write_all(records)
    return path


def missing(what: str) -> None:
    if os.environ.get(REQUIRE_ENGINES) == "1":
        pytest.fail(f"{what} ({REQUIRE_ENGINES}=1)", pytrace=False)
    pytest.skip(f"{what}; set {REQUIRE_ENGINES}=1 to make this a failure")


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    engine("dask.dataframe")
    distributed = engine("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, scheduler_port=0,
                                  # no dashboard, and its HTTP server on a free port, not 8787
                                  dashboard_address=":0", scheduler_kwargs={"dashboard": False},
                                  ) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    engine("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        missing("Spark needs Java 17 or newer (java on PATH or JAVA_HOME)")
    # The executors' Python workers run this interpreter, where zebrapack is installed.
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    import zebrapack.spark

    with warnings.catch_warnings():
        # pyspark 4.3 warns that it does not fully support pandas 3 (the data source uses pyarrow only).
        warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
        session = (SparkSession.builder.master("local[2]").appName("zebrapack-tests")
                   .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
                   .config("spark.sql.session.timeZone", "UTC").getOrCreate())
        session.sparkContext.setLogLevel("ERROR")
        session.dataSource.register(zebrapack.spark.DataSource)
    yield session
    session.stop()
    # Stop the JVM and py4j's threads too, and collect the Java proxies the tests left:
    # a proxy collected later makes py4j allocate under the leak tests that follow.
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is not None:
        gateway.shutdown()
        SparkContext._gateway = SparkContext._jvm = None
        java = getattr(gateway, "proc", None)     # the JVM pyspark started: it ends when its stdin closes
        if java is not None:
            java.stdin.close()
            java.wait(timeout=60)
    gc.collect()


def decoded_records(schema: zebrapack.Schema, paths: list[Path], type: str = "A") -> list[Any]:
    """The records of the files, by decode_all; a file named ``*with-schema*`` starts
    with its schema document (``write_schema=True``), read by ``open_stream``."""
    records = []
    for path in paths:
        if "with-schema" in path.name:
            stream = zebrapack.open_stream(path, type=type, schema=schema)
            records += list(stream)
            stream.close()
        else:
            records += schema.decode_all(path.read_bytes(), type)
    return records
