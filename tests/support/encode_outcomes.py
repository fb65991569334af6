"""What an encode call gives, for tests that hold two ways of encoding against each other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zebrapack import EncodeError


def encode_outcome(encode: Callable[[], Any]) -> Any:
    """``encode()``'s result, or its ``EncodeError`` as (``"error"``, message, path, offset)."""
    try:
        return encode()
    except EncodeError as error:
        return ("error", str(error), error.path, error.offset)
