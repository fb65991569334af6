"""A distributed write of record files into one folder (local or at a URL), committed as
Hadoop's and Spark's file committers commit: the Spark data source's and
``zebrapack.dask.write_records``'s.

Each task writes its rows as one record file ``part-NNNNN-<job>.zpk`` (and its index)
into ``FOLDER/_temporary/<job>/``, where no reader looks (readers skip ``_`` names).
When every task has succeeded the job commits: the files move into the folder (a
rename on a local disk; a server-side copy then a delete on an object store, where
each object appears whole), the staging folder goes, and an empty ``_SUCCESS`` is
added. A job that fails removes its staging folder: the folder is as it was.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .._errors import EncodeError
from ..recordio.index_format import SUFFIX
from ..recordio.locations import (
    basename,
    join,
    list_files,
    local_path,
    make_folder,
    move,
    remove,
    remove_tree,
    write_bytes,
)
from ._write import write

#: Where a job's tasks write before the job commits.
STAGING = "_temporary"
#: The file a committed job leaves in the folder.
SUCCESS = "_SUCCESS"


class FolderJob:
    """One job writing record files into ``folder`` (picklable: tasks get it)."""

    def __init__(self, folder: str | os.PathLike[str], storage_options: Mapping[str, Any] | None = None,
                 job: str | None = None) -> None:
        self.folder = local_path(folder) or os.fspath(folder)
        self.storage_options = None if local_path(folder) is not None else storage_options
        self.job = job or uuid.uuid4().hex[:12]
        self.staging = join(join(self.folder, STAGING), self.job)

    def write_part(self, partition: int, batches: Iterable[Any], arrow_schema: Any, schema: Any, type: Any, *,
                   index: bool = False, structnames: bool = True, mode: str = "zebrapack") -> tuple[str, ...]:
        """Write one task's rows (pyarrow record batches of ``arrow_schema``) as the file of
        partition number ``partition`` into the staging folder; the names written (the
        file, and its index): none for a task without rows. A task that fails leaves nothing."""
        import pyarrow as pa

        rows = (batch for batch in batches if batch.num_rows)
        first = next(rows, None)
        if first is None:
            return ()
        name = f"part-{partition:05d}-{self.job}.zpk"
        path = join(self.staging, name)
        if local_path(path) is not None:
            make_folder(self.staging)
        stream = pa.RecordBatchReader.from_batches(arrow_schema, _chain(first, rows))
        try:
            write(stream, path, schema, type, index=index, structnames=structnames, mode=mode,
                  storage_options=self.storage_options)
        except BaseException as exc:
            remove([path, path + SUFFIX], self.storage_options)     # a failed task leaves nothing behind
            if isinstance(exc, EncodeError):     # which partition's row
                raise EncodeError(exc.reason, f"partition {partition}, {exc.path}", exc.offset) from None
            raise
        return (name, name + SUFFIX) if index else (name,)

    def commit(self, names: Iterable[str], *, overwrite: bool = False) -> list[str]:
        """Move the tasks' files into the folder (after removing its record files, indexes
        and ``_SUCCESS`` when ``overwrite``), drop the staging folder, add ``_SUCCESS``;
        the record files now in the folder from this job."""
        options = self.storage_options
        make_folder(self.folder, options)
        if overwrite:
            kind, present = list_files(self.folder, options)
            remove([path for path in present if kind == "folder" and _replaced(basename(path))], options)
        moved = []
        for name in names:
            move(join(self.staging, name), join(self.folder, name), options)
            if not name.endswith(SUFFIX):
                moved.append(join(self.folder, name))
        self.abort()
        success = join(self.folder, SUCCESS)
        local = local_path(success)
        if local is None:
            write_bytes(success, b"", options)
        else:
            with open(local, "wb"):
                pass
        return moved

    def abort(self) -> None:
        """Remove the staging folder (and ``_temporary`` when no other job writes there)."""
        remove_tree(self.staging, self.storage_options)
        local = local_path(join(self.folder, STAGING))
        if local is not None:
            try:
                os.rmdir(local)
            except OSError:
                pass


def _replaced(name: str) -> bool:
    return name.endswith((".zpk", ".zpk" + SUFFIX)) or name == SUCCESS


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest
