"""The reader's Python face: ``arrow_schema`` (and, with the columnar decoder, ``read``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._core import arrow_schema_capsule
from ._mapping import ArrowField, arrow_fields
from ._pyarrow import require_pyarrow


class ArrowSchemaExport:
    """An Arrow schema exported through ``__arrow_c_schema__`` (``pyarrow.schema(x)``,
    ``polars.Schema``...). ``field`` is zebrapack's description of it."""

    __slots__ = ("field",)

    def __init__(self, field: ArrowField) -> None:
        self.field = field

    def __arrow_c_schema__(self) -> object:
        return arrow_schema_capsule(self.field)

    def to_pyarrow(self) -> Any:
        """The schema as a ``pyarrow.Schema`` (needs pyarrow)."""
        return require_pyarrow("ArrowSchemaExport.to_pyarrow()").schema(self)

    def __repr__(self) -> str:
        columns = ", ".join(f"{child.name}: {child.format}" for child in self.field.children)
        return f"<zebrapack.arrow schema of {self.field.struct}: {columns}>"


def arrow_schema(schema: Any, type: Any = None, *, columns: Iterable[str] | None = None,
                 time_unit: str = "ns") -> ArrowSchemaExport:
    """The Arrow schema ``read(source, schema, type, columns=..., time_unit=...)``
    produces, without reading data (Dask's ``meta``, Spark's schema)."""
    return ArrowSchemaExport(arrow_fields(schema, type, columns=columns, time_unit=time_unit))
