"""The Go peer of the cross-language tests (tests/go): built once per session, then driven.

``zpeer roundtrip SCHEMA TYPE`` decodes records strictly, as the reference Go
code does, and encodes them again; ``zpeer dump SCHEMA TYPE`` describes what
it decoded as typed trees, the Go type of every interface value included (see
tests/go/main.go for the protocol). One process per (command, schema, type)
serves every request of the session, so a hypothesis test sending hundreds of
records starts no more processes.

The tests skip when ``go`` is not installed, unless ``ZEBRAPACK_REQUIRE_GO=1``
(CI), which makes that a failure. Test modules import the ``go_peer`` fixture.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

GO_MODULE = Path(__file__).parent.parent / "go"
REQUIRE_GO = "ZEBRAPACK_REQUIRE_GO"
#: A cold module cache downloads the msgp runtime from the Go module proxy.
BUILD_TIMEOUT_SECONDS = 600

_FRAME_HEADER = struct.Struct(">I")
_RESPONSE_HEADER = struct.Struct(">cI")


class GoRejected(Exception):
    """The peer refused the bytes; the message is its Go error."""


class GoPeer:
    """The built ``zpeer`` and its running processes."""

    def __init__(self, binary: Path) -> None:
        self.binary = binary
        self._processes: dict[tuple[str, str, str], subprocess.Popen[bytes]] = {}
        # A file, not a pipe, takes what a process says on stderr: a pipe
        # nobody reads could fill up and stall the process mid-answer.
        self._stderr: dict[tuple[str, str, str], IO[bytes]] = {}

    def roundtrip(self, schema: str, type_name: str, records: bytes) -> bytes:
        """Go's encoding of ``records`` (one or more records of ``type_name``) after it
        decoded them with the reader of ``schema`` (zp, zpn, evo1, evo2, my, my2,
        deep or headerplus).

        Raises ``GoRejected`` when Go's strict reader refuses them.
        """
        return self._ask("roundtrip", schema, type_name, records)

    def dump(self, schema: str, type_name: str, records: bytes) -> list[dict[str, Any]]:
        """The typed tree of each record as Go's strict reader read it, in the format
        of the golden manifest's ``expect`` (tests/golden/README.md). A value held in
        an interface also has its Go dynamic type (``%T``) under ``"go"``; map
        entries come in Go's random order.

        Raises ``GoRejected`` when Go's strict reader refuses them.
        """
        trees: list[dict[str, Any]] = json.loads(self._ask("dump", schema, type_name, records))
        return trees

    def _ask(self, command: str, schema: str, type_name: str, records: bytes) -> bytes:
        key = (command, schema, type_name)
        process = self._process(key)
        requests, responses = _pipes(process)
        try:
            requests.write(_FRAME_HEADER.pack(len(records)) + records)
            requests.flush()
            header = responses.read(_RESPONSE_HEADER.size)
        except BrokenPipeError:  # it had stopped already
            header = b""
        if len(header) < _RESPONSE_HEADER.size:
            raise RuntimeError(f"zpeer {' '.join(key)} stopped: {self._stop(key)}")
        status, size = _RESPONSE_HEADER.unpack(header)
        payload = responses.read(size)
        if status == b"E":
            raise GoRejected(payload.decode())
        return payload

    def _process(self, key: tuple[str, str, str]) -> subprocess.Popen[bytes]:
        if key not in self._processes:
            self._stderr[key] = tempfile.TemporaryFile()
            self._processes[key] = subprocess.Popen(
                [self.binary, *key], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr[key])
        return self._processes[key]

    def _stop(self, key: tuple[str, str, str]) -> str:
        """End one process; what it said on stderr."""
        process = self._processes.pop(key)
        process.communicate(timeout=30)
        with self._stderr.pop(key) as stderr:
            stderr.seek(0)
            said = stderr.read().decode(errors="replace").strip()
        return said or f"exit status {process.returncode}"

    def close(self) -> None:
        """End every process (each exits when its stdin closes)."""
        for key in list(self._processes):
            self._stop(key)


def _pipes(process: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    assert process.stdin is not None and process.stdout is not None
    return process.stdin, process.stdout


def _go_toolchain() -> str:
    go = shutil.which("go")
    if go is None:
        reason = "the Go toolchain (`go`) is not on PATH: the cross-language tests need it to build tests/go"
        if os.environ.get(REQUIRE_GO) == "1":
            pytest.fail(f"{reason} ({REQUIRE_GO}=1)", pytrace=False)
        pytest.skip(f"{reason}; set {REQUIRE_GO}=1 to make this a failure")
    return go


def build_peer(out_dir: Path) -> Path:
    """``go build`` tests/go into out_dir; the path of the binary."""
    binary = out_dir / "zpeer"
    try:
        subprocess.run([_go_toolchain(), "build", "-buildvcs=false", "-o", str(binary), "."],
                       cwd=GO_MODULE, capture_output=True, text=True, check=True,
                       timeout=BUILD_TIMEOUT_SECONDS)
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"go build of {GO_MODULE} failed:\n{exc.stderr}", pytrace=False)
    return binary


# Each test module that imports the fixture gets its own copy of it, so the
# peer is kept here: one build and one set of processes per session.
_SESSION_PEER: list[GoPeer] = []


@pytest.fixture(scope="session")
def go_peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GoPeer]:
    if not _SESSION_PEER:
        _SESSION_PEER.append(GoPeer(build_peer(tmp_path_factory.mktemp("zpeer"))))
    yield _SESSION_PEER[0]
    _SESSION_PEER[0].close()
