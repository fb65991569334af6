"""Dask (a LocalCluster of 2 worker processes) and Spark (local[2]) read and write record
files in an S3 bucket: the workers fetch their splits from the server themselves, with
the storage options the splits carry; the writers commit whole objects and _SUCCESS."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from support.cluster import a_records, dask_client, spark, zp  # noqa: F401  (fixtures)
from support.engines import engine

import zebrapack
import zebrapack.examples
from zebrapack.streams.planning import expand_paths

pd = engine("pandas")
s3fs = engine("s3fs")
zpd = engine("zebrapack.dask")


@pytest.fixture
def events(zp: zebrapack.Schema, bucket: str, options: dict[str, Any]) -> tuple[list[Any], str]:
    """Three record files in the bucket (one indexed into 4 splits, one without an index,
    one starting with its schema), their records, and a glob naming them."""
    records = a_records(zp, 80)
    parts = [(records[:50], {"index": True, "index_every": 16}), (records[50:60], {}),
             (records[60:], {"write_schema": True})]
    for number, (chunk, writer_options) in enumerate(parts):
        with zp.writer(f"{bucket}/events/day{number}.zpk", storage_options=options, **writer_options) as writer:
            writer.write_all(chunk)
    return records, f"{bucket}/events/*.zpk"


def as_rows(records: list[Any]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(record) for record in records]


def test_dask_workers_read_and_write_the_bucket(dask_client: Any, zp: zebrapack.Schema, options: dict[str, Any],
                                                events: tuple[list[Any], str], bucket: str) -> None:
    records, glob = events
    ddf = zpd.read_records(glob, zp, "A", storage_options=options)
    assert ddf.npartitions == 4 + 1 + 1
    assert ddf.compute().to_dict("records") == as_rows(records)
    written = zpd.write_records(ddf, f"{bucket}/out", zp, "A", index=True, storage_options=options)
    fs = s3fs.S3FileSystem(**options, skip_instance_cache=True)
    names = sorted(name.rsplit("/", 1)[1] for name in fs.ls(f"{bucket}/out"))
    assert names == sorted([url.rsplit("/", 1)[1] for url in written] +
                           [url.rsplit("/", 1)[1] + ".zpi" for url in written] + ["_SUCCESS"])
    assert b"".join(fs.cat(url) for url in written) == b"".join(map(zp.encode, records))
    again = zpd.read_records(f"{bucket}/out", zp, "A", storage_options=options)
    assert again.compute().to_dict("records") == as_rows(records)


def test_a_failed_dask_write_leaves_the_bucket_as_it_was(dask_client: Any, zp: zebrapack.Schema,
                                                         options: dict[str, Any], bucket: str) -> None:
    dd = engine("dask.dataframe")
    frame = dd.from_pandas(pd.DataFrame({"I8": [1, 2, 3, 300]}), npartitions=2)
    with pytest.raises(zebrapack.EncodeError, match="partition 1, row 1"):
        zpd.write_records(frame, f"{bucket}/out", zp, "Prims", storage_options=options)
    assert s3fs.S3FileSystem(**options, skip_instance_cache=True).find(bucket) == []


def test_spark_reads_and_writes_s3a_urls(spark: Any, zp: zebrapack.Schema, options: dict[str, Any],
                                         events: tuple[list[Any], str], bucket: str) -> None:
    records, glob = events
    s3a = glob.replace("s3://", "s3a://")
    storage = json.dumps(options)
    df = (spark.read.format("zebrapack").option("schema", zebrapack.examples.SCHEMA_JSON.read_text())
          .option("type", "A").option("storage_options", storage).load(s3a))
    assert df.rdd.getNumPartitions() == 6
    assert [row.Name for row in df.collect()] == [record.Name for record in records]
    out = f"{bucket.replace('s3://', 's3a://')}/spark-out"
    (df.write.format("zebrapack").option("schema", zebrapack.examples.SCHEMA_JSON.read_text()).option("type", "A")
     .option("storage_options", storage).option("index", "true").mode("overwrite").save(out))
    fs = s3fs.S3FileSystem(**options, skip_instance_cache=True)
    listed = sorted(name.rsplit("/", 1)[1] for name in fs.ls(out))
    parts = [name for name in listed if name.endswith(".zpk")]
    assert len(parts) == 6 and "_SUCCESS" in listed and len(listed) == 2 * len(parts) + 1
    files = expand_paths(out, storage_options=options)
    assert [r for url in files for r in zp.iter_decode(url, "A", storage_options=options)] == records
