"""The S3 endpoint the object-store tests (and the docs' examples) read and write: moto's
S3 server (``moto[server]``, in the test extra), started by the tests themselves as a
process of its own on 127.0.0.1 and a port the system picks, used through s3fs as any
S3 endpoint is. A missing moto or s3fs skips, unless ZEBRAPACK_REQUIRE_ENGINES=1 (CI),
where it fails."""

from __future__ import annotations

import importlib
import os
import select
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from support.engines import REQUIRE_ENGINES

SERVER_SCRIPT = Path(__file__).parent.parent / "objectstore" / "s3_server.py"
REGION = "eu-west-1"
#: moto takes any credentials (until its IAM checks are turned on).
KEY = SECRET = "testing"
#: Seconds the server may take to start.
START_TIMEOUT = 60


def require_s3() -> None:
    """moto's server and s3fs are installed, or the test is skipped (failed under REQUIRE_ENGINES=1)."""
    for name, package in (("moto.server", "moto[server]"), ("s3fs", "s3fs"), ("boto3", "boto3")):
        try:
            importlib.import_module(name)
        except ImportError as error:
            reason = f"{package} is not installed (pip install -e '.[test]'): {error}"
            if os.environ.get(REQUIRE_ENGINES) == "1":
                pytest.fail(f"{reason} ({REQUIRE_ENGINES}=1)", pytrace=False)
            pytest.skip(f"{reason}; set {REQUIRE_ENGINES}=1 to make this a failure")


class S3Server:
    """One moto S3 server process; it ends with ``stop()``, or when this process ends
    (it serves until its standard input closes)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, str(SERVER_SCRIPT)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        env=dict(os.environ, AWS_EC2_METADATA_DISABLED="true"))
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], START_TIMEOUT)
        line = self.process.stdout.readline() if ready else ""
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError(f"the S3 server did not start within {START_TIMEOUT} s")
        self.port = int(line)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def options(self, endpoint: str | None = None, **more: Any) -> dict[str, Any]:
        """s3fs's storage options for this server (or a proxy of it at ``endpoint``)."""
        return {"endpoint_url": endpoint or self.endpoint, "key": KEY, "secret": SECRET,
                "client_kwargs": {"region_name": REGION}, **more}

    def env(self) -> dict[str, str]:
        """The environment in which a process finds this server with no storage options."""
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET,
                "AWS_DEFAULT_REGION": REGION, "AWS_EC2_METADATA_DISABLED": "true"}

    def new_bucket(self, prefix: str = "zebrapack") -> str:
        """A new, empty bucket: its URL (``s3://NAME``)."""
        import s3fs

        name = f"{prefix}-{uuid.uuid4().hex[:12]}"
        s3fs.S3FileSystem(**self.options()).mkdir(name)
        return f"s3://{name}"

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        if self.process.stdout is not None:
            self.process.stdout.close()
