"""pyarrow, imported only by the conveniences that return pyarrow objects."""

from __future__ import annotations

import importlib
from types import ModuleType


def require_pyarrow(what: str) -> ModuleType:
    try:
        return importlib.import_module("pyarrow")
    except ImportError:
        raise ImportError(f"{what} needs pyarrow (pip install 'zebrapack[arrow]'); any Arrow consumer can "
                          "take the stream itself through __arrow_c_stream__") from None
