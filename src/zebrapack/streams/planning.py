"""Planning the partitions of a distributed read: paths and globs -> files -> splits.

``expand_paths`` turns what a user gives Dask or Spark (paths, globs, folders)
into record files in a stable order; ``plan_splits`` turns each file into its
splits: by its sidecar index (``file_splits``), or one split for the whole file
when the index is missing, stale or corrupt (an ``IndexWarning`` says so).
The splits pickle, so they are planned where the job is built and read where
the work runs. Paths may be URLs of fsspec filesystems (``s3://bucket/events/*.zpk``):
folders and globs are listed through the filesystem, and the splits carry the
``storage_options`` their workers open them with.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..recordio.index_format import SUFFIX, Split
from ..recordio.locations import StorageOptions, basename, check_location, has_magic, list_files
from .index import file_splits

PathArg = str | os.PathLike[str]


def _is_data_file(name: str) -> bool:
    # As Spark and Hadoop do, hidden and "_" files (_SUCCESS) are not data; nor are indexes,
    # nor the hidden temporary files of indexes being written.
    return not name.startswith((".", "_")) and not name.endswith(SUFFIX)


def expand_paths(paths: PathArg | Iterable[PathArg], *, storage_options: StorageOptions = None) -> list[str]:
    """The record files named by ``paths``: one path or URL or a list of them, each a
    file, a folder (its files, hidden, ``_``-prefixed and ``.zpi`` files left out, sorted)
    or a glob (``*``, ``?``, ``[...]``, ``**``; its matches sorted, the same files left out).
    URLs are listed through their fsspec filesystem (opened with ``storage_options``).

    A path or glob that names no file is a ``FileNotFoundError``; a file named
    twice is read twice (as Spark and Dask do with repeated paths).
    """
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not items:
        raise ValueError("no paths given")
    files: list[str] = []
    for item in items:
        check_location(item)
        kind, found = list_files(item, storage_options)
        if kind != "file":
            found = [name for name in found if _is_data_file(basename(name))]
        if not found:
            raise FileNotFoundError(f"{os.fspath(item)}: no such record file" + (" (the glob matches none)"
                                                                                 if has_magic(item) else ""))
        files += found
    return files


def plan_splits(paths: PathArg | Iterable[PathArg], *, split_records: int | None = None,
                split_bytes: int | None = None, storage_options: StorageOptions = None) -> list[Split]:
    """The splits of every file of ``paths`` (see ``expand_paths``), in order.

    A file with a usable sidecar index (``FILE.zpi``) gives a split per index
    entry, merged until a split holds ``split_records`` records or
    ``split_bytes`` bytes; a file without one (or whose index is stale or
    corrupt: an ``IndexWarning``) is one split. An indexed file without
    records gives no split.
    """
    splits: list[Split] = []
    for path in expand_paths(paths, storage_options=storage_options):
        splits += file_splits(path, target_records=split_records, target_bytes=split_bytes,
                              storage_options=storage_options)
    return splits
