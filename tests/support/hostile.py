"""User classes whose attribute reads run arbitrary code, for the encoder's tests against
values changed while they are encoded."""

from __future__ import annotations

from typing import Any


class Inner:
    """A user class for Inner whose attribute reads run arbitrary code."""

    def __init__(self, X: int = 0, Y: str = "", on_read: Any = None) -> None:  # noqa: N803 - Go names
        self._x = X
        self.Y = Y
        self.on_read = on_read

    @property
    def X(self) -> int:  # noqa: N802 - the Go name
        if self.on_read is not None:
            self.on_read()
        return self._x
