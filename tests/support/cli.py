"""Running the ``zebrapack`` command in tests: as a subprocess (what a user runs)
or in-process through ``zebrapack.cli.main`` (for sweeps over every vector)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.vectors import VECTORS

import zebrapack
from zebrapack.cli import main

SCHEMAS = VECTORS / "schemas"
# The zebrapack the tests import (the source tree here, the installed package
# in CI): the subprocesses must run the same one.
PACKAGE_ROOT = Path(zebrapack.__file__).resolve().parent.parent


def cli_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT), os.environ.get("PYTHONPATH")]))
    return env


def run_cli(*args: Any, stdin: bytes = b"", cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m zebrapack ARGS`` with ``stdin`` (and ``env`` added); stdout and stderr captured."""
    return subprocess.run([sys.executable, "-m", "zebrapack", *map(str, args)], input=stdin,
                          capture_output=True, env=cli_env(**env), cwd=cwd, timeout=120, check=False)


def call_main(monkeypatch: pytest.MonkeyPatch, *args: Any, stdin: bytes = b"") -> tuple[int, bytes, str]:
    """``zebrapack.cli.main(ARGS)`` in this process: (exit status, stdout bytes, stderr text)."""
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    try:
        status = main([str(arg) for arg in args])
    except SystemExit as exit:         # argparse: --help, --version, usage errors
        status = int(exit.code or 0)
    stdout.flush()
    buffer = stdout.buffer
    assert isinstance(buffer, io.BytesIO)
    return status, buffer.getvalue(), stderr.getvalue()


def error_line(result: subprocess.CompletedProcess[bytes]) -> str:
    """The one line a failed command writes on stderr (and that it is one line, with no traceback)."""
    text = result.stderr.decode()
    assert result.returncode == 2, (result.returncode, text)
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text.rstrip("\n")
