"""What goes over the wire to S3: a split fetches its own bytes, not the file's; a
denied request and a connection dropped mid-read are clear errors, never wrong rows."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from support.cluster import a_records, zp  # noqa: F401  (fixtures)
from support.s3 import S3Server
from support.engines import engine

import zebrapack
import zebrapack.examples

from .proxy import Proxy

zpa = engine("zebrapack.arrow")
boto3 = engine("boto3")
s3fs = engine("s3fs")

#: Bytes of HTTP the requests of one read add to its data (headers of a HEAD and a GET or two).
HTTP_OVERHEAD = 8 << 10


def written(schema: zebrapack.Schema, url: str, options: dict[str, Any], count: int, **writer_options: Any) -> list[Any]:
    records = a_records(schema, count)
    with schema.writer(url, storage_options=options, **writer_options) as writer:
        writer.write_all(records)
    return records


def test_reading_one_split_fetches_about_its_own_bytes(zp: zebrapack.Schema, bucket: str, options: dict[str, Any],
                                                      proxy: Proxy, s3_server: Any) -> None:
    url = f"{bucket}/big.zpk"
    records = written(zp, url, options, 60000, index=True, index_every=5000)
    size = s3fs.S3FileSystem(**options).size(url)
    through_proxy = s3_server.options(proxy.endpoint())
    splits = zebrapack.file_splits(url, target_records=10000, storage_options=through_proxy)
    assert len(splits) == 6 and size > 3_000_000
    split = splits[2]
    for read in (lambda: zpa.read(split, zp, "A").read_all().num_rows,
                 lambda: len(list(zebrapack.iter_split(zp, split, "A")))):
        proxy.reset()
        assert read() == 10000
        assert split.stop - split.start <= proxy.received <= split.stop - split.start + HTTP_OVERHEAD, \
            (proxy.received, split, size)
    # an unindexed split too: its bytes, and nothing past its end
    whole = zebrapack.Split(url, 0, size, None, (), through_proxy)
    proxy.reset()
    assert zpa.read(whole, zp, "A").read_all().num_rows == len(records)
    assert size <= proxy.received <= size + HTTP_OVERHEAD


def decoded_prefix(read: Iterator[Any], expected: list[Any]) -> tuple[list[Any], BaseException | None]:
    got: list[Any] = []
    try:
        for item in read:
            got.append(item)
    except Exception as exc:        # noqa: BLE001 - the test looks at it
        return got, exc
    return got, None


@pytest.fixture
def big_object(zp: zebrapack.Schema, bucket: str, options: dict[str, Any]) -> tuple[str, list[Any]]:
    url = f"{bucket}/dropped.zpk"
    return url, written(zp, url, options, 40000, index=True, index_every=20000)


def readers(schema: zebrapack.Schema, url: str, options: dict[str, Any]) -> dict[str, Any]:
    """Each reader of the object's records, as an iterator of records (or of rows)."""
    def arrow_rows(source: Any) -> Iterator[Any]:
        for batch in zpa.read(source, schema, "A", storage_options=options):
            yield from batch.column("Name").to_pylist()
    return {
        "iter_decode": lambda: schema.iter_decode(url, "A", storage_options=options),
        "iter_split": lambda: (r for s in zebrapack.file_splits(url, storage_options=options)
                               for r in zebrapack.iter_split(schema, s, "A")),
        "arrow.read": lambda: arrow_rows(url),
        "arrow.read splits": lambda: arrow_rows(zebrapack.file_splits(url, storage_options=options)),
    }


def test_a_connection_dropped_mid_read_is_retried_or_an_error_never_wrong_rows(
        zp: zebrapack.Schema, big_object: tuple[str, list[Any]], proxy: Proxy, s3_server: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    url, records = big_object
    names = [record.Name for record in records]
    monkeypatch.setattr(s3fs.S3FileSystem, "retries", 2)     # two tries a read (five back off for seconds)
    through_proxy = s3_server.options(proxy.endpoint(), skip_instance_cache=True)
    for name, read in readers(zp, url, through_proxy).items():
        expected = names if "arrow" in name else records
        proxy.cut_after(200_000, times=1)          # once: the store's client reads again
        got, error = decoded_prefix(read(), expected)
        assert error is None and got == expected, (name, error)
        proxy.cut_after(200_000, times=-1)         # every time: it gives up, with an error
        got, error = decoded_prefix(read(), expected)
        assert isinstance(error, OSError) and got == expected[:len(got)], (name, error)
        assert url.removeprefix("s3://") in str(error), (name, error)
        proxy.cut_after(0, times=0)
    assert proxy.cuts > 8


@pytest.fixture(scope="module")
def guarded_server() -> Iterator[tuple[S3Server, str, dict[str, Any]]]:
    """A server of its own whose requests are checked against IAM: a user that may read
    the bucket's ``open/`` objects only (its storage options), everything else denied."""
    from support.s3 import REGION, require_s3

    require_s3()
    server = S3Server()
    try:
        bucket = server.new_bucket("guarded")
        name = bucket.removeprefix("s3://")
        iam = boto3.client("iam", endpoint_url=server.endpoint, region_name=REGION, aws_access_key_id="testing",
                           aws_secret_access_key="testing")
        iam.create_user(UserName="reader")
        policy = {"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
            "Resource": [f"arn:aws:s3:::{name}", f"arn:aws:s3:::{name}/open/*"]}]}
        iam.put_user_policy(UserName="reader", PolicyName="read-open", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        schema = zebrapack.load(zebrapack.examples.SCHEMA)
        data = zebrapack.examples.RECORDS.read_bytes()
        fs = s3fs.S3FileSystem(**server.options(), skip_instance_cache=True)
        for folder in ("open", "closed"):
            fs.pipe(f"{bucket}/{folder}/records.zpk", data)
        assert list(schema.iter_decode(f"{bucket}/open/records.zpk", storage_options=server.options()))
        request = urllib.request.Request(f"{server.endpoint}/moto-api/reset-auth", data=b"0", method="POST",
                                         headers={"Content-Type": "text/plain"})
        urllib.request.urlopen(request, timeout=30).read()      # from now on: IAM checks every request
        yield server, bucket, server.options(key=key["AccessKeyId"], secret=key["SecretAccessKey"],
                                             skip_instance_cache=True)
    finally:
        server.stop()


def test_a_denied_request_is_a_permission_error_naming_the_object(
        zp: zebrapack.Schema, guarded_server: tuple[S3Server, str, dict[str, Any]]) -> None:
    server, bucket, reader = guarded_server
    schema = zebrapack.load(zebrapack.examples.SCHEMA)
    assert len(list(schema.iter_decode(f"{bucket}/open/records.zpk", storage_options=reader))) == 5
    closed = f"{bucket}/closed/records.zpk"
    calls = {
        "iter_decode": lambda: list(schema.iter_decode(closed, storage_options=reader)),
        "open_stream": lambda: zebrapack.open_stream(closed, storage_options=reader),
        "arrow.read": lambda: zpa.read(closed, schema, "A", storage_options=reader).read_all(),
        "build_index": lambda: zebrapack.build_index(closed, storage_options=reader),
        "recover": lambda: zebrapack.recover(closed, storage_options=reader),
        "writer": lambda: schema.writer(f"{bucket}/open/new.zpk", storage_options=reader).close(),
        "wrong secret": lambda: list(schema.iter_decode(f"{bucket}/open/records.zpk",
                                                        storage_options={**reader, "secret": "wrong"})),
    }
    for name, call in calls.items():
        with pytest.raises(PermissionError) as caught:
            call()
        assert bucket.removeprefix("s3://") in str(caught.value), (name, caught.value)
    admin = s3fs.S3FileSystem(**server.options(), skip_instance_cache=True)
    with pytest.raises(PermissionError):        # moto checks every request now: even its default keys
        admin.exists(f"{bucket}/open/new.zpk")
