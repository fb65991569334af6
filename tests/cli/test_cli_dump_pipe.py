"""``zebrapack dump`` on a pipe prints each record as soon as it has arrived: the test
writes a record, waits for its line on stdout (a bounded wait), and only then writes
the next, so a dump that held a record back would fail here on the timeout."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import time
from typing import Any

import pytest
from support.cli import SCHEMAS, cli_env
from support.vectors import vector_schema

ZP = vector_schema("zp.z")
ZPN = vector_schema("zpn.z")
LINE_TIMEOUT = 20.0


class LiveDump:
    """``zebrapack dump ARGS`` reading a pipe we write to, its stdout read line by line."""

    def __init__(self, *args: Any) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "zebrapack", "dump", *map(str, args)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=cli_env())
        self._pending = b""

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        for start in range(0, len(data), 7):          # in pieces, a little apart
            self.process.stdin.write(data[start:start + 7])
            self.process.stdin.flush()
            time.sleep(0.001)

    def lines(self, count: int) -> list[str]:
        """The next ``count`` lines it prints, each waited for at most LINE_TIMEOUT seconds."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        lines: list[str] = []
        while len(lines) < count:
            if b"\n" in self._pending:
                line, self._pending = self._pending.split(b"\n", 1)
                lines.append(line.decode())
                continue
            ready, _, _ = select.select([fd], [], [], LINE_TIMEOUT)
            if not ready:
                self.process.kill()
                self.finish()
                pytest.fail(f"no line from zebrapack dump within {LINE_TIMEOUT} s: it held the record back")
            chunk = os.read(fd, 65536)
            if not chunk:
                pytest.fail(f"zebrapack dump ended: {self.finish()}")
            self._pending += chunk
        return lines

    def finish(self) -> str:
        """Close its input; what it said on stderr."""
        _, stderr = self.process.communicate(timeout=60)
        return stderr.decode()


def test_dump_prints_each_record_from_a_pipe_as_it_arrives() -> None:
    dump = LiveDump("-s", SCHEMAS / "zp.z")
    for number in range(4):
        dump.send(ZP.encode(ZP.types.A(Name=f"r{number}", Sibs=number)))
        assert [json.loads(line)["Name"] for line in dump.lines(1)] == [f"r{number}"]
    assert dump.finish() == ""


def test_dump_prints_a_first_record_shorter_than_its_look_ahead_at_once() -> None:
    dump = LiveDump("-s", SCHEMAS / "zpn.z", "--type", "Inner")
    for number in range(3):
        dump.send(ZPN.encode(ZPN.types.Inner(X=number)))         # 3 bytes
        assert json.loads(dump.lines(1)[0])["X"] == number
    assert dump.finish() == ""


def test_dump_of_a_stream_with_its_schema_prints_each_record_as_it_arrives() -> None:
    head = io.BytesIO()
    with ZP.writer(head, write_schema=True):
        pass
    dump = LiveDump()
    dump.send(head.getvalue())
    for number in range(3):
        dump.send(ZP.encode(ZP.types.A(Name=f"s{number}")))
        assert json.loads(dump.lines(1)[0])["Name"] == f"s{number}"
    assert dump.finish() == ""


def test_raw_dump_prints_each_object_as_it_arrives() -> None:
    dump = LiveDump("--raw")
    for number in range(3):
        record = ZP.encode(ZP.types.A(Name=f"w{number}"))
        dump.send(record)
        lines = dump.lines(4)           # the header, the map, its two entries
        assert lines[0].startswith(f"# record {number + 1} at offset {number * len(record)}")
    assert dump.finish() == ""
