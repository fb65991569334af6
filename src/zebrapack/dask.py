"""Record files as a Dask DataFrame: ``read_records(paths, schema, type=..., columns=...)``.

One partition per split: per file, or per index split for a file with a sidecar
index (``zebrapack index FILE``). Each partition is read by
``zebrapack.arrow.read`` in the worker into Arrow-backed pandas columns
(``pd.ArrowDtype``); the ``meta`` comes from ``zebrapack.arrow.arrow_schema``,
without reading any data. The reader sent to the workers carries the schema,
which pickles as its schema document: workers need zebrapack, not the ``.z``
file. Needs ``dask[dataframe]`` and pyarrow (``pip install 'zebrapack[dask]'``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import dask.dataframe as dd
import pandas as pd
import pyarrow as pa

from . import arrow as zpa
from .schema.loader import Schema
from .streams.index_format import Split
from .streams.planning import PathArg, plan_splits

__all__ = ["read_records"]


class SplitReader:
    """Reads one split into a pandas DataFrame of Arrow-backed columns (a picklable
    callable: it is what each Dask task runs). ``meta()`` is the empty frame of the
    same columns."""

    def __init__(self, schema: Schema, type: str, columns: tuple[str, ...] | None, batch_rows: int,
                 time_unit: str, strict: bool) -> None:
        self.schema = schema
        self.type = type
        self.columns = columns
        self.batch_rows = batch_rows
        self.time_unit = time_unit
        self.strict = strict

    def arrow_schema(self) -> pa.Schema:
        return pa.schema(zpa.arrow_schema(self.schema, self.type, columns=self.columns, time_unit=self.time_unit))

    def meta(self) -> pd.DataFrame:
        return self.arrow_schema().empty_table().to_pandas(types_mapper=pd.ArrowDtype)

    def __call__(self, split: Split) -> pd.DataFrame:
        table = zpa.read(split, self.schema, self.type, columns=self.columns, batch_rows=self.batch_rows,
                         time_unit=self.time_unit, strict=self.strict).read_all()
        return table.to_pandas(types_mapper=pd.ArrowDtype)

    def __dask_tokenize__(self) -> tuple[Any, ...]:
        # Deterministic and cheap: the schema by its document digest and options, not by pickling it.
        return (type(self).__qualname__, self.schema, self.type, self.columns, self.batch_rows,
                self.time_unit, self.strict)


def read_records(paths: PathArg | Iterable[PathArg], schema: Schema, type: Any = None, *,
                 columns: Iterable[str] | None = None, split_records: int | None = None,
                 split_bytes: int | None = None, batch_rows: int = 65536, time_unit: str = "ns",
                 strict: bool = False) -> dd.DataFrame:
    """The records of ``paths`` as a ``dask.dataframe.DataFrame`` of Arrow-backed columns.

    ``paths``: a path, a folder, a glob, or a list of them (``zebrapack.streams.
    planning.expand_paths``). ``type``: a struct name or class of ``schema``
    (``None``: its only struct). ``columns``: Go field names or dotted paths into
    nested structs, as ``zebrapack.arrow.read`` takes them. A file with a usable
    sidecar index is one partition per index split (entries merged up to
    ``split_records`` records or ``split_bytes`` bytes), any other file one
    partition; a stale or corrupt index is ignored with an ``IndexWarning`` (at
    this call, where the partitions are planned). ``batch_rows``, ``time_unit``
    and ``strict`` are ``zebrapack.arrow.read``'s. A partition is built whole in
    its worker: its memory is the split's records as Arrow columns.
    """
    column_list = None if columns is None else tuple(columns)
    struct = zpa.arrow_schema(schema, type, columns=column_list, time_unit=time_unit).field.struct
    reader = SplitReader(schema, struct, column_list, batch_rows, time_unit, strict)
    meta = reader.meta()
    splits = plan_splits(paths, split_records=split_records, split_bytes=split_bytes)
    if not splits:      # indexed files without records
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(reader, splits, meta=meta, label="read-zebrapack", enforce_metadata=True)

