"""Arrow -> records: ``write`` takes any Arrow stream or table (through the Arrow
PyCapsule interface, so no Arrow library is needed here) and writes its rows as
records of one struct, exactly as ``schema.encode`` writes them.

The rows are encoded in the core, column by column from the Arrow buffers, in
chunks of about ``chunk_bytes`` that go to a ``RecordWriter`` (the same file
layout and sidecar index as ``schema.writer``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO, Any

from .._core import ArrowRecordEncoder, _import_array, _import_stream
from ..recordio.index_format import default_index_path
from ..recordio.locations import local_path
from ..recordio.records import RecordWriter
from ._mapping import resolve_struct

#: Bytes of records encoded between two writes to the destination.
CHUNK_BYTES = 1 << 20


def write(data: Any, dest: str | os.PathLike[str] | IO[bytes], schema: Any, type: Any = None, *,
          structnames: bool = True, mode: str = "zebrapack", fixext: bool = False,
          index: bool | str | os.PathLike[str] = False, chunk_bytes: int = CHUNK_BYTES,
          storage_options: Mapping[str, Any] | None = None) -> int:
    """Write the rows of ``data`` as records of ``type`` to ``dest``; returns the rows written.

    ``data``: anything with ``__arrow_c_stream__`` (a pyarrow Table or
    RecordBatchReader, a Polars DataFrame, ``zebrapack.arrow.read``'s stream) or
    ``__arrow_c_array__`` (a pyarrow RecordBatch). ``dest``: a path, a binary
    file, or a URL (``s3://bucket/key``, through fsspec with ``storage_options``),
    whose object is written whole: it appears when every row is written, or not at all. ``type``: a struct name or one of ``schema.types`` (None: the schema's
    only struct). ``structnames``, ``mode``, ``fixext``: as ``schema.encode``; ``index``: as
    ``schema.writer(dest, index=...)``.

    Columns are the struct's Go field names; a column the struct lacks is an
    ``EncodeError``, a field without a column takes its zero value. Row r is
    written exactly as ``schema.encode`` writes the value ``schema.decode``
    gives for its values, and refused where ``encode`` refuses: an
    ``EncodeError`` naming the row and the column path
    (``row 17, A.Friends[2].Name: ...``). A destination opened from a path is
    removed when a row is refused; a file object keeps the chunks written
    before the refused row. A destination that ``data`` reads (``zpa.write(
    zpa.read(P, ...), P)``: the same file by any path) is refused with a
    ``ValueError`` before anything is truncated: write to another file, then
    rename it.
    """
    if chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be positive, not {chunk_bytes}")
    struct_def = resolve_struct(schema, type)
    imported_schema, batches = _import(data)
    encoder = ArrowRecordEncoder(schema, struct_def.name, imported_schema.arrow_type(), structnames=structnames,
                                 mode=mode, fixext=fixext)
    indexed = index is not None and index is not False
    writer = RecordWriter(schema, dest, structnames=structnames, mode=mode, fixext=fixext,
                          index=index if indexed else None, storage_options=storage_options)
    rows = 0
    try:
        for batch in batches:
            start = 0
            length = encoder.bind(batch)    # the whole batch checked before any of its rows is written
            while start < length:
                # row numbers in errors count from the stream's first row
                chunk, done, ends = encoder.encode(batch, start, rows - start, chunk_bytes, indexed)
                writer.write_encoded(chunk, done - start, None if ends is None else memoryview(ends).cast("q"))
                del chunk           # (the encoder writes its next chunk into the same buffer when nothing holds it)
                rows += done - start
                start = done
    except BaseException as exc:
        if isinstance(dest, (str, os.PathLike)) and local_path(dest) is None:
            writer.abort(exc)       # no object appears
            raise
        try:
            writer.close()
        finally:
            if isinstance(dest, (str, os.PathLike)) and writer.started:
                _remove(local_path(dest) or "", index)
        raise
    writer.close()
    return rows


def _remove(path: str | os.PathLike[str], index: bool | str | os.PathLike[str]) -> None:
    """A refused write leaves no file it created (nor its index)."""
    paths = [path]
    if index is True:
        paths.append(default_index_path(path))
    elif index:
        paths.append(index)
    for item in paths:
        try:
            os.unlink(item)
        except FileNotFoundError:
            pass


def _import(data: Any) -> tuple[Any, Any]:
    """(imported schema, iterator of imported batches) of an Arrow PyCapsule producer."""
    if hasattr(data, "__arrow_c_stream__"):
        stream = _import_stream(data.__arrow_c_stream__())
        return stream.schema(), _stream_batches(stream)
    if hasattr(data, "__arrow_c_array__"):
        schema_capsule, array_capsule = data.__arrow_c_array__()
        imported_schema, array = _import_array(schema_capsule, array_capsule)
        return imported_schema, iter([array])
    raise TypeError(f"expected Arrow data (an object with __arrow_c_stream__ or __arrow_c_array__: a pyarrow "
                    f"Table, RecordBatch or RecordBatchReader, a Polars DataFrame...), not {type(data).__name__}")


def _stream_batches(stream: Any) -> Any:
    while (batch := stream.next_batch()) is not None:
        yield batch
