"""Planning the partitions of a distributed read: paths and globs -> files -> splits.

``expand_paths`` turns what a user gives Dask or Spark (paths, globs, folders)
into record files in a stable order; ``plan_splits`` turns each file into its
splits: by its sidecar index (``file_splits``), or one split for the whole file
when the index is missing, stale or corrupt (an ``IndexWarning`` says so).
The splits pickle, so they are planned where the job is built and read where
the work runs. Only local (or mounted) paths are read today.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable

from .index import file_splits
from .index_format import SUFFIX, Split

PathArg = str | os.PathLike[str]


def _is_data_file(name: str) -> bool:
    # As Spark and Hadoop do, hidden and "_" files (_SUCCESS) are not data; nor are indexes,
    # nor the hidden temporary files of indexes being written.
    return not name.startswith((".", "_")) and not name.endswith(SUFFIX)


def _folder_files(folder: str) -> list[str]:
    return sorted(os.path.join(folder, entry.name) for entry in os.scandir(folder)
                  if entry.is_file() and _is_data_file(entry.name))


def expand_paths(paths: PathArg | Iterable[PathArg]) -> list[str]:
    """The record files named by ``paths``: one path or a list of them, each a file,
    a folder (its files, hidden, ``_``-prefixed and ``.zpi`` files left out, sorted)
    or a glob (``*``, ``?``, ``[...]``, ``**``; its matches sorted, the same files left out).

    A path or glob that names no file is a ``FileNotFoundError``; a file named
    twice is read twice (as Spark and Dask do with repeated paths).
    """
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not items:
        raise ValueError("no paths given")
    files: list[str] = []
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"a path is a str or os.PathLike, not {item!r}")
        path = os.fspath(item)
        if os.path.isdir(path):
            found = _folder_files(path)
        elif os.path.exists(path):
            found = [path]
        elif glob.has_magic(path):
            found = sorted(match for match in glob.glob(path, recursive=True)
                           if os.path.isfile(match) and _is_data_file(os.path.basename(match)))
        else:
            found = []
        if not found:
            raise FileNotFoundError(f"{path}: no such record file" + (" (the glob matches none)"
                                                                       if glob.has_magic(path) else ""))
        files += found
    return files


def plan_splits(paths: PathArg | Iterable[PathArg], *, split_records: int | None = None,
                split_bytes: int | None = None) -> list[Split]:
    """The splits of every file of ``paths`` (see ``expand_paths``), in order.

    A file with a usable sidecar index (``FILE.zpi``) gives a split per index
    entry, merged until a split holds ``split_records`` records or
    ``split_bytes`` bytes; a file without one (or whose index is stale or
    corrupt: an ``IndexWarning``) is one split. An indexed file without
    records gives no split.
    """
    splits: list[Split] = []
    for path in expand_paths(paths):
        splits += file_splits(path, target_records=split_records, target_bytes=split_bytes)
    return splits
