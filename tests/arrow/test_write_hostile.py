"""zpa.write trusts no producer: every offset is checked against its neighbours and its
buffer's extent (the last offset, and the parent's length), NULL buffers and negative
lengths are refused, and a validity bitmap is honoured, each with an EncodeError naming
the column; nothing past a buffer is read or written. The cases (tests/arrow/hostile.py)
run in a child process: before these checks some of them crashed it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.engines import engine

engine("pyarrow")

from . import hostile  # noqa: E402  (needs pyarrow)

ROOT = Path(__file__).resolve().parents[2]


def test_hostile_arrow_data_is_refused_never_read_past() -> None:
    done = subprocess.run([sys.executable, "-m", "tests.arrow.hostile"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    ended = {line["case"]: line["error"] for line in lines if "error" in line}
    crashed = [line["case"] for line in lines if "error" not in line and line["case"] not in ended]
    assert done.returncode == 0 and not crashed, (done.returncode, crashed, done.stderr[-3000:])
    assert set(ended) == set(hostile.CASES)
    for name, (_, _, expected) in hostile.CASES.items():
        assert expected in ended[name], (name, ended[name])
