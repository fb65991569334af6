"""Type stubs of the compiled core (cython/_core.pyx)."""

from collections.abc import Mapping
from mmap import mmap
from typing import Any

from .schema.model import SchemaDef

DEFAULT_MAX_DEPTH: int
DEFAULT_ZERO_ALLOWANCE: int
OPTIMIZED_BUILD: bool

class Codec:
    """Compiled plans for every struct of a schema; decode and encode."""

    @property
    def max_depth(self) -> int: ...
    @property
    def zero_allowance(self) -> int: ...
    def __init__(self, model: SchemaDef, classes: Mapping[str, type], *, max_depth: int = ...,
                 preserve_unknown: bool = ..., zero_allowance: int = ...) -> None: ...
    def decode(self, data: bytes | bytearray | memoryview, type: str | type | None = None, *,
               strict: bool = False) -> Any: ...
    def decode_all(self, data: bytes | bytearray | memoryview, type: str | type | None = None, *,
                   strict: bool = False) -> list[Any]: ...
    def _decode_at(self, data: bytes | bytearray | memoryview, start: int, type: str | type | None = None,
                   strict: bool = False, base: int = 0, stop: int = -1,
                   partial: bool = False) -> tuple[Any, int]: ...
    def encode(self, obj: Any, *, structnames: bool = True, mode: str = "zebrapack") -> bytes: ...
    def encode_into(self, obj: Any, buffer: bytearray, offset: int = 0, *, structnames: bool = True,
                    mode: str = "zebrapack") -> None: ...

def skip_records(data: bytes | bytearray | memoryview | mmap, start: int, max_records: int, max_end: int,
                 max_depth: int = ..., partial: bool = ...) -> tuple[int, int]: ...

class RecordBase:
    """C base of the generated record classes: assignment re-tracks an untracked instance."""
    def __setattr__(self, name: str, value: Any) -> None: ...
