"""What the object-store tests share: a new bucket per test on the session's S3 server
(``s3_server``, tests/conftest.py), s3fs's storage options for it, and a proxy in front
of it that counts the bytes fetched and can drop connections."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .proxy import Proxy


@pytest.fixture
def bucket(s3_server: Any) -> str:
    """The URL of a new, empty bucket (``s3://zebrapack-...``)."""
    return str(s3_server.new_bucket())


@pytest.fixture
def options(s3_server: Any) -> dict[str, Any]:
    """``storage_options`` that reach the server."""
    return dict(s3_server.options())


@pytest.fixture
def proxy(s3_server: Any) -> Iterator[Proxy]:
    with Proxy(s3_server.port) as running:
        yield running
