"""Record files as a Dask DataFrame: ``read_records(paths, schema, type=..., columns=...)``,
and a Dask DataFrame as record files: ``write_records(ddf, folder, schema, type=...)``.

One partition per split: per file, or per index split for a file with a sidecar
index (``zebrapack index FILE``). Each partition is read by
``zebrapack.arrow.read`` in the worker into Arrow-backed pandas columns
(``pd.ArrowDtype``); the ``meta`` comes from ``zebrapack.arrow.arrow_schema``,
without reading any data. The reader sent to the workers carries the schema,
which pickles as its schema document: workers need zebrapack, not the ``.z``
file. Paths may be URLs (``s3://bucket/events/*.zpk``) with fsspec's ``storage_options``.
Needs ``dask[dataframe]`` and pyarrow (``pip install 'zebrapack[dask]'``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import dask
import dask.dataframe as dd
import pandas as pd
import pyarrow as pa

from . import arrow as zpa
from .arrow.jobs import FolderJob
from .recordio.index_format import Split
from .schema.loader import Schema
from .streams.planning import PathArg, plan_splits

__all__ = ["read_records", "write_records"]


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
                 strict: bool = False, storage_options: Mapping[str, Any] | None = None) -> dd.DataFrame:
    """The records of ``paths`` as a ``dask.dataframe.DataFrame`` of Arrow-backed columns.

    ``paths``: a path, a folder, a glob, or a list of them (``zebrapack.streams.
    planning.expand_paths``), local or URLs (``s3://bucket/events/*.zpk``, listed and
    read through fsspec with ``storage_options``, which travel to the workers with
    the splits; each worker reads its split's own bytes with ranged reads). ``type``: a struct name or class of ``schema``
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
    splits = plan_splits(paths, split_records=split_records, split_bytes=split_bytes,
                         storage_options=storage_options)
    if not splits:      # indexed files without records
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(reader, splits, meta=meta, label="read-zebrapack", enforce_metadata=True)



class PartitionWriter:
    """Writes one partition as one record file of a ``FolderJob`` (a picklable callable:
    what each Dask task of ``write_records`` runs); returns the names it wrote."""

    def __init__(self, job: FolderJob, schema: Schema, type: str, index: bool, structnames: bool,
                 mode: str) -> None:
        self.job = job
        self.schema = schema
        self.type = type
        self.index = index
        self.structnames = structnames
        self.mode = mode

    def __call__(self, frame: pd.DataFrame, partition: int) -> tuple[str, ...]:
        table = pa.Table.from_pandas(frame, preserve_index=False)
        return self.job.write_part(partition, table.to_batches(), table.schema, self.schema, self.type,
                                   index=self.index, structnames=self.structnames, mode=self.mode)


def write_records(ddf: dd.DataFrame, folder: str | os.PathLike[str], schema: Schema, type: Any = None, *,
                  index: bool = False, overwrite: bool = False, structnames: bool = True, mode: str = "zebrapack",
                  storage_options: Mapping[str, Any] | None = None) -> list[str]:
    """Write ``ddf`` as record files in ``folder`` (a path or a URL, through fsspec with
    ``storage_options``): one file ``part-NNNNN-<job>.zpk`` per partition with rows, its
    records ``type`` of ``schema``; the record files written, in partition order.

    Each row is written as ``zebrapack.arrow.write`` writes it (the columns matched to
    the struct's Go field names, each value checked against its Go type: a column the
    struct lacks, or a value that does not fit, is an ``EncodeError`` naming the row and
    the column; a field without a column takes its zero value), exactly the bytes
    ``schema.encode`` writes. ``index=True`` also writes each file's sidecar index.

    Committed as the Spark data source commits: the tasks write into
    ``folder/_temporary/<job>/``; when every partition is written the files move into
    the folder (made if missing; with ``overwrite=True`` its ``.zpk``, ``.zpk.zpi`` and
    ``_SUCCESS`` files are removed first) and an empty ``_SUCCESS`` is added. When a
    task fails the staging folder is removed and the folder is as it was.
    ``read_records(folder, ...)`` reads the rows back (``_`` names are skipped).
    """
    struct = zpa.arrow_schema(schema, type).field.struct
    job = FolderJob(folder, storage_options)
    writer = PartitionWriter(job, schema, struct, index, structnames, mode)
    tasks = [dask.delayed(writer, pure=False)(part, number) for number, part in enumerate(ddf.to_delayed())]
    try:
        written = dask.compute(*tasks)
        return job.commit([name for names in written for name in names], overwrite=overwrite)
    except BaseException:
        job.abort()
        raise
