"""Shared fixtures: the zp.z schema and the session's S3 server (helpers are in tests/support/)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import zebrapack

TESTS = Path(__file__).parent
# The helpers of every folder import as ``support.*`` (tests/support/).
sys.path.insert(0, str(TESTS))

from support.vectors import vector_schema  # noqa: E402


@pytest.fixture(scope="session")
def zp() -> zebrapack.Schema:
    return vector_schema("zp.z")


@pytest.fixture(scope="session")
def s3_server() -> Any:
    """The S3 server of the session (tests/support/s3.py): started at the first test that
    asks for it, stopped at the end."""
    from support.s3 import S3Server, require_s3

    require_s3()
    server = S3Server()
    yield server
    server.stop()
