"""Consumers that pull batches from their own threads do not deadlock on the stream (a
Python file object to read from included, which needs the GIL). Each consumer runs in a
child interpreter with a timeout, so a deadlock fails the test instead of hanging it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import zebrapack.examples

from support.engines import engine

from .conftest import RecordFile

TIMEOUT = 120

CONSUMERS = {
    "pyarrow reader in a thread": """
        import pyarrow as pa
        done = []
        def pull():
            with open(PATH, "rb") as f:
                reader = pa.RecordBatchReader.from_stream(zpa.read(f, schema, "A", batch_rows=100))
                done.append(reader.read_all().num_rows)
        threads = [threading.Thread(target=pull) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        assert done == [COUNT] * 4, done
    """,
    "duckdb on its own threads": """
        import duckdb
        con = duckdb.connect(config={"threads": 4})
        with open(PATH, "rb") as f:
            reader = zpa.read(f, schema, "A", batch_rows=100)
            ((n,),) = con.sql("select count(*) from reader where Sibs >= 0").fetchall()
        assert n == COUNT, n
        reader = zpa.read([PATH, PATH], schema, "A", batch_rows=100)
        rows = con.sql("select Name, count(*) from reader group by Name").fetchall()
        assert sum(n for _, n in rows) == 2 * COUNT, rows
    """,
    "polars while another Python thread runs": """
        import polars as pl
        stop = threading.Event()
        def busy():
            while not stop.is_set():
                sum(range(1000))
        other = threading.Thread(target=busy); other.start()
        try:
            with open(PATH, "rb") as f:
                frame = pl.DataFrame(zpa.read(f, schema, "A", batch_rows=100))
        finally:
            stop.set(); other.join()
        assert frame.height == COUNT
    """,
    "batches pulled by a thread while the main thread waits on it": """
        import queue
        import pyarrow as pa
        batches = queue.Queue()
        stream = zpa.read(PATH, schema, "A", batch_rows=50)
        reader = pa.RecordBatchReader.from_stream(stream)
        def pull():
            for batch in reader:
                batches.put(batch.num_rows)
            batches.put(None)
        t = threading.Thread(target=pull); t.start()
        total = 0
        while (n := batches.get()) is not None:
            total += n
        t.join()
        assert total == COUNT
    """,
}


@pytest.mark.parametrize("consumer", list(CONSUMERS))
def test_a_consumer_on_its_own_threads_finishes(consumer: str, a_file: RecordFile) -> None:
    for module in ("pyarrow", "duckdb", "polars"):
        engine(module)
    count = len(a_file.schema.decode_all(a_file.data))
    script = textwrap.dedent("""
        import threading
        import zebrapack, zebrapack.arrow as zpa
        schema = zebrapack.load(SCHEMA)
    """) + textwrap.dedent(CONSUMERS[consumer])
    script = script.replace("PATH", repr(str(a_file.path))).replace("COUNT", str(count)) \
        .replace("SCHEMA", repr(str(zebrapack.examples.SCHEMA)))
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{consumer}: no result after {TIMEOUT} s (a deadlock?)")
    assert done.returncode == 0, done.stderr
