"""Go's own generated code on the README's ``A`` records, for ``bench_arrow``.

The Go peer of the tests (``tests/go``, module ``zpeer``) carries the code that
tinylib/msgp's generator (v1.6.5, the reference generator's ancestor: the same kind
of code, field names as keys) writes for ``A`` (``tests/go/zp/a_gen.go``); its
``zpeer msgp-bench`` command reads the records zebrapack wrote and times one pass of
``UnmarshalMsg`` (into a reused ``A``, or into new ones, all kept) or ``MarshalMsg``
over all of them, in its own process, on one thread (``GOMAXPROCS=1``, as
``zebrapack.arrow`` runs on one). See tests/go/msgpbench.go.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

GO_MODULE = Path(__file__).resolve().parent.parent / "tests" / "go"
GENERATOR = "tinylib/msgp v1.6.5"
OPERATIONS = {
    "unmarshal-reused": "Go UnmarshalMsg, into a reused A",
    "unmarshal-new": "Go UnmarshalMsg, into a new A each (kept)",
    "marshal": "Go MarshalMsg, into a reused buffer",
}
_REQUEST = struct.Struct(">I")
_RESPONSE = struct.Struct(">cI")
#: A cold module cache downloads the msgp runtime from the Go module proxy.
BUILD_TIMEOUT_SECONDS = 600


class GoUnavailable(Exception):
    """Why Go's generated code cannot be measured here (no ``go``, or the build failed)."""


class GoMsgp:
    """A running ``zpeer msgp-bench`` loaded with one stream of ``A`` records."""

    def __init__(self, zebrapack_stream: bytes) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="zpeer-bench-")
        try:
            binary = build(Path(self._dir.name))
        except BaseException:
            self._dir.cleanup()
            raise
        # a file, not a pipe nobody reads, takes what it says on stderr
        self._stderr = tempfile.TemporaryFile(dir=self._dir.name)
        self._process = subprocess.Popen([binary, "msgp-bench"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, env={**os.environ, "GOMAXPROCS": "1"})
        loaded = json.loads(self._ask(zebrapack_stream))
        self.records: int = loaded["records"]
        self.msgp_bytes: int = loaded["msgp_bytes"]

    def pass_ns(self, operation: str) -> float:
        """The nanoseconds one pass of ``operation`` (``OPERATIONS``) over every record took."""
        return float(self._ask(operation.encode()))

    def _ask(self, request: bytes) -> bytes:
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(frame(request))
        stdin.flush()
        header = stdout.read(_RESPONSE.size)
        if len(header) < _RESPONSE.size:
            raise RuntimeError(f"zpeer msgp-bench stopped: {self._stop()}")
        status, size = _RESPONSE.unpack(header)
        payload = stdout.read(size)
        if status != b"R":
            raise RuntimeError(f"zpeer msgp-bench refused the request: {payload.decode(errors='replace')}")
        return payload

    def _stop(self) -> str:
        """End the process (it exits when its stdin closes); what it said on stderr."""
        self._process.communicate(timeout=30)
        self._stderr.seek(0)
        said = self._stderr.read().decode(errors="replace").strip()
        return said or f"exit status {self._process.returncode}"

    def close(self) -> None:
        self._stop()
        self._stderr.close()
        self._dir.cleanup()

    def __enter__(self) -> GoMsgp:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def frame(request: bytes) -> bytes:
    """One request as ``zpeer msgp-bench`` reads it (the frames of tests/go/main.go)."""
    return _REQUEST.pack(len(request)) + request


def build(out_dir: Path) -> Path:
    """``zpeer`` built into ``out_dir``; ``GoUnavailable`` without ``go`` or when the build fails."""
    go = shutil.which("go")
    if go is None:
        raise GoUnavailable("the Go toolchain (`go`) is not on PATH")
    binary = out_dir / "zpeer"
    try:
        subprocess.run([go, "build", "-buildvcs=false", "-o", str(binary), "."], cwd=GO_MODULE,
                       capture_output=True, text=True, check=True, timeout=BUILD_TIMEOUT_SECONDS)
    except subprocess.CalledProcessError as exc:
        raise GoUnavailable(f"`go build` of {GO_MODULE} failed: {exc.stderr.strip()}") from None
    except subprocess.TimeoutExpired:
        raise GoUnavailable(f"`go build` of {GO_MODULE} took over {BUILD_TIMEOUT_SECONDS} s") from None
    return binary


def go_version() -> str:
    go = shutil.which("go")
    if go is None:
        return "no go"
    return subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True).stdout.strip()
