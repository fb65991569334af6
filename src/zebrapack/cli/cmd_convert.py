"""``zebrapack convert``: record files to Parquet, Arrow IPC (Feather), CSV and JSON lines,
and Parquet and Arrow IPC back to record files, streaming (memory holds a batch, or a
Parquet row group being gathered, never the file)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator
from typing import Any

from .._errors import DecodeError, EncodeError, SchemaError, TornTailError
from ..arrow.pyarrow_import import require_pyarrow
from ..recordio.locations import ObjectOutput, input_size, is_url
from ..schema.loader import Schema
from ..textformats.typed_json import TypedJson, TypedJsonError, json_writer
from .common import (
    CliError,
    add_storage_options_argument,
    add_unexported_argument,
    binary_input,
    load_schema_arg,
    output_path,
    record_error,
    struct_arg,
    torn_tail_error,
)
from .progress import Progress
from .progress import input_size as known_size

NAME = "convert"
HELP = ("convert record files to Parquet, Arrow IPC (Feather), CSV or JSON lines, and Parquet or Arrow IPC "
        "back to record files")

#: The formats, by the suffixes that name them.
SUFFIXES = {
    "records": (".zpk",),
    "parquet": (".parquet", ".pq"),
    "arrow": (".arrow", ".feather", ".ipc"),
    "arrows": (".arrows",),
    "csv": (".csv",),
    "jsonl": (".jsonl", ".ndjson"),
}
FROM_RECORDS = ("parquet", "arrow", "arrows", "csv", "jsonl")
TO_RECORDS = ("parquet", "arrow", "arrows")
#: Rows per Arrow batch read or written.
BATCH_ROWS = 65536
#: Arrow bytes gathered into one Parquet row group by default.
DEFAULT_ROW_GROUP = 128 << 20

EPILOG = f"""\
formats (from the suffix of OUT, or of FILE; or --to / --from):
  records   .zpk (and any other suffix): ZebraPack records, read and written with --schema
  parquet   {", ".join(SUFFIXES["parquet"])}: one row group per --row-group-size of Arrow data
  arrow     {", ".join(SUFFIXES["arrow"])}: the Arrow IPC file format (Feather v2)
  arrows    .arrows: the Arrow IPC stream format
  csv       .csv: structs flattened to Parent.Child columns, bytes as hex; lists and maps have no CSV form
  jsonl     {", ".join(SUFFIXES["jsonl"])}: typed JSON lines, as `zebrapack dump` prints them (`encode` reads them back)

Records become Parquet, Arrow IPC, CSV or JSON lines; Parquet and Arrow IPC become
records. The columns are the struct's Go field names, typed by the Arrow mapping
(docs/arrow.md); writing records checks every value against its Go type, and an
error names the record (or row) and the field. FILE and OUT may be URLs
(s3://bucket/key, through fsspec; --storage-options). OUT appears whole when the
conversion succeeds, or not at all.

examples:
  zebrapack convert events.zpk --schema zp.z --type A -o events.parquet
  zebrapack convert events.zpk -s zp.z -t A --columns Name,Sibs -o names.csv
  zebrapack convert events.parquet -s zp.z -t A -o events.zpk --index
  zebrapack convert s3://bucket/events.zpk -s zp.z -t A -o s3://bucket/events.arrow
"""


def _size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]i?B?|B)?\s*", text, re.I)
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (bytes, or with K, M, G, KiB, MiB, GiB)")
    unit = (match.group(2) or "").upper().rstrip("B")
    factor = {"": 1, "K": 1000, "M": 1000 ** 2, "G": 1000 ** 3, "KI": 1 << 10, "MI": 1 << 20, "GI": 1 << 30}[unit]
    value = int(match.group(1)) * factor
    if value < 1:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="what to convert: a path or a URL")
    parser.add_argument("-s", "--schema", metavar="SCHEMA", required=True,
                        help="the schema of the records (.z, .z.json or Go source .go)")
    add_unexported_argument(parser)
    parser.add_argument("-t", "--type", metavar="TYPE", help="the struct of the records (needed when the schema has "
                                                            "several)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="where to write: a path or a URL")
    parser.add_argument("--to", choices=sorted(SUFFIXES), help="the format of OUT (default: from its suffix)")
    parser.add_argument("--from", dest="source_format", choices=sorted(SUFFIXES),
                        help="the format of FILE (default: from its suffix; records otherwise)")
    parser.add_argument("--columns", metavar="NAMES",
                        help="comma-separated Go field names or dotted paths into nested structs (Name,Nested.X): "
                             "only these are read and written")
    parser.add_argument("--row-group-size", metavar="SIZE", type=_size, default=DEFAULT_ROW_GROUP,
                        help=f"Parquet: Arrow bytes per row group (default {DEFAULT_ROW_GROUP >> 20}MiB; "
                             "K, M, G, KiB, MiB, GiB)")
    parser.add_argument("--compression", metavar="CODEC", default="snappy",
                        help="Parquet: the compression codec (snappy, zstd, gzip, lz4, brotli, none; default snappy)")
    parser.add_argument("--index", action="store_true", help="records: also write OUT's sidecar index (OUT.zpi)")
    add_storage_options_argument(parser)


def _format(path: str, given: str | None, default: str | None) -> str:
    if given is not None:
        return given
    lowered = path.lower().split("?", 1)[0]
    for name, suffixes in SUFFIXES.items():
        if lowered.endswith(suffixes):
            return name
    if default is None:
        raise CliError(f"{path}: no format known by this suffix; give --to ({', '.join(sorted(SUFFIXES))})")
    return default


def run(args: argparse.Namespace) -> int:
    try:
        require_pyarrow("zebrapack convert")
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    source_format = _format(args.file, args.source_format, "records")
    target = _format(args.output, args.to, None)
    if source_format == "records" and target not in FROM_RECORDS:
        raise CliError(f"records convert to {', '.join(FROM_RECORDS)}, not {target}")
    if source_format != "records" and (source_format not in TO_RECORDS or target != "records"):
        hint = " (`zebrapack encode` turns JSON lines into records)" if source_format == "jsonl" else ""
        raise CliError(f"{source_format} converts to records only, from {', '.join(TO_RECORDS)}{hint}")
    if args.index and target != "records":
        raise CliError("--index is for record files (OUT.zpi)")
    schema = load_schema_arg(args.schema, args.unexported, args.storage_options)
    struct_arg(schema, args.type)
    columns = None if args.columns is None else [name.strip() for name in args.columns.split(",") if name.strip()]
    try:
        with binary_input(args.file, args.storage_options) as opened:
            source = _Metered(opened)
            with Progress(NAME, total=known_size(opened), records_out=False) as progress, \
                    output_path(args.output) as dest:
                def advance(rows: int) -> None:
                    progress.update(rows, source.bytes_read)
                if source_format == "records":
                    rows = _from_records(source, schema, args, target, dest, columns, advance)
                else:
                    rows = _to_records(source, schema, args, source_format, dest, columns, advance)
    except OSError as exc:
        raise CliError(f"{exc.filename or args.output}: {exc.strerror or exc}") from exc
    except (ImportError, ValueError) as exc:
        if isinstance(exc, CliError):
            raise
        raise CliError(f"{args.file}: {exc}") from exc
    written = input_size(args.output, args.storage_options)
    size = f"{written:,} bytes" if written < 1_000_000 else f"{written / 1e6:,.1f} MB"
    print(f"{args.output}: {rows:,} record{'' if rows == 1 else 's'} as {target} ({size})")
    return 0


class _Metered:
    """A binary input that counts the bytes read (the progress), seekable when it is."""

    def __init__(self, source: Any) -> None:
        self._source = source
        self.bytes_read = 0
        self.closed = False

    def read(self, size: int = -1, /) -> bytes:
        data: bytes = self._source.read(size)
        self.bytes_read += len(data)
        return data

    def seek(self, offset: int, whence: int = 0, /) -> int:
        return int(self._source.seek(offset, whence))

    def tell(self) -> int:
        return int(self._source.tell())

    def seekable(self) -> bool:
        return bool(getattr(self._source, "seekable", lambda: False)())

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True


# -- records to Parquet, Arrow IPC, CSV, JSON lines -------------------------------------

def _from_records(source: _Metered, schema: Schema, args: argparse.Namespace, target: str, dest: str,
                  columns: list[str] | None, advance: Callable[[int], None]) -> int:
    if target == "jsonl":
        return _to_json_lines(source, schema, args, dest, columns, advance)
    import zebrapack.arrow as zpa

    try:
        stream = zpa.read(source, schema, args.type, columns=columns, batch_rows=BATCH_ROWS)
        arrow_schema = stream.schema
    except (ValueError, TypeError) as exc:
        raise CliError(str(exc)) from exc
    rows = 0

    def batches() -> Iterator[Any]:
        nonlocal rows
        try:
            for batch in stream:
                yield batch
                rows += batch.num_rows
                advance(rows)
        except TornTailError as exc:
            raise torn_tail_error(args.file, rows, exc) from exc
        except DecodeError as exc:
            record = getattr(exc, "record", None)
            reason = re.sub(r" \(record \d+\)$", "", exc.reason)
            raise record_error(args.file, (rows if record is None else record) + 1,
                               DecodeError(reason, exc.path, exc.offset)) from exc

    with _sink(dest, args.storage_options) as sink:
        if target == "parquet":
            _write_parquet(sink, arrow_schema, batches(), args.row_group_size, args.compression)
        elif target in ("arrow", "arrows"):
            _write_ipc(sink, arrow_schema, batches(), stream_format=target == "arrows")
        else:
            _write_csv(sink, batches())
    return rows


def _write_parquet(sink: Any, arrow_schema: Any, batches: Iterator[Any], row_group_bytes: int,
                   compression: str) -> None:
    """Row groups of about ``row_group_bytes`` of Arrow data each: the batches of one are
    gathered, then written as one row group."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        writer = pq.ParquetWriter(sink, arrow_schema, compression=compression)
    except (ValueError, pa.ArrowException) as exc:
        raise CliError(f"--compression {compression}: {exc}") from exc
    gathered: list[Any] = []
    held = 0

    def flush() -> None:
        nonlocal gathered, held
        if gathered:
            table = pa.Table.from_batches(gathered, schema=arrow_schema)
            writer.write_table(table, row_group_size=table.num_rows)
            gathered, held = [], 0

    try:
        for batch in batches:
            while batch.num_rows:
                room = row_group_bytes - held
                if batch.nbytes <= room:
                    gathered.append(batch)
                    held += batch.nbytes
                    break
                # the rows that fill the row group (a batch larger than one is cut)
                take = min(batch.num_rows, max(1, batch.num_rows * room // max(batch.nbytes, 1)))
                gathered.append(batch.slice(0, take))
                batch = batch.slice(take)
                flush()
        flush()
    finally:
        writer.close()


def _write_ipc(sink: Any, arrow_schema: Any, batches: Iterator[Any], *, stream_format: bool) -> None:
    import pyarrow as pa

    writer = (pa.ipc.new_stream if stream_format else pa.ipc.new_file)(sink, arrow_schema)
    try:
        for batch in batches:
            writer.write_batch(batch)
    finally:
        writer.close()


def _write_csv(sink: Any, batches: Iterator[Any]) -> None:
    import pyarrow.csv as csv

    writer = None
    try:
        for batch in batches:
            flat = _csv_columns(batch)
            if writer is None:
                writer = csv.CSVWriter(sink, flat.schema)
            writer.write_batch(flat)
    finally:
        if writer is not None:
            writer.close()


def _csv_columns(batch: Any) -> Any:
    """The batch as CSV holds it: structs flattened (``Parent.Child``), bytes as hex; a
    list or map column has no CSV form (a CliError naming it)."""
    import pyarrow as pa

    table = pa.Table.from_batches([batch])
    while any(pa.types.is_struct(field.type) for field in table.schema):
        table = table.flatten()
    columns = []
    for field, column in zip(table.schema, table.columns, strict=True):
        kind = field.type
        if pa.types.is_list(kind) or pa.types.is_fixed_size_list(kind) or pa.types.is_map(kind) \
                or pa.types.is_large_list(kind):
            raise CliError(f"column {field.name} ({kind}) has no CSV form: leave it out with --columns, or "
                           "convert to Parquet, Arrow or JSON lines")
        if pa.types.is_binary(kind) or pa.types.is_fixed_size_binary(kind) or pa.types.is_large_binary(kind):
            column = pa.array([None if value is None else value.hex() for value in column.to_pylist()], pa.string())
        columns.append(column)
    return pa.Table.from_arrays(columns, names=table.schema.names).combine_chunks().to_batches()[0] \
        if table.num_rows else pa.RecordBatch.from_arrays(columns, names=table.schema.names)


def _to_json_lines(source: _Metered, schema: Schema, args: argparse.Namespace, dest: str,
                   columns: list[str] | None, advance: Callable[[int], None]) -> int:
    """Typed JSON lines, as ``zebrapack dump`` prints them (``--columns``: only those fields)."""
    converter = TypedJson(schema)
    to_text = json_writer(pretty=False)
    count = 0
    with _sink(dest, args.storage_options) as sink:
        try:
            for record in schema.iter_decode(source, args.type, chunk_size=1 << 20):
                document = converter.to_json(record)
                if columns is not None:
                    document = _project(document, columns)
                sink.write(to_text(document).encode() + b"\n")
                count += 1
                if not count % 1024:
                    advance(count)
        except TornTailError as exc:
            raise torn_tail_error(args.file, count, exc) from exc
        except (DecodeError, TypedJsonError) as exc:
            raise CliError(f"{args.file}: record {count + 1}: {exc}") from exc
    advance(count)
    return count


def _project(document: dict[str, Any], columns: list[str]) -> dict[str, Any]:
    """``document`` with only the fields named by ``columns`` (dotted paths into nested structs)."""
    kept: dict[str, Any] = {key: value for key, value in document.items() if key == "$type"}
    for column in columns:
        head, _, rest = column.partition(".")
        if head not in document:
            raise CliError(f"no such column: {column!r}")
        value = document[head]
        if rest:
            if not isinstance(value, dict):
                raise CliError(f"no such column: {column!r} ({head} is not a struct)")
            merged = kept.get(head, {})
            value = {**merged, **_project(value, [rest])}
        kept[head] = value
    return kept


# -- Parquet and Arrow IPC to records ------------------------------------------------------

def _to_records(source: _Metered, schema: Schema, args: argparse.Namespace, source_format: str, dest: str,
                columns: list[str] | None, advance: Callable[[int], None]) -> int:
    import pyarrow as pa

    import zebrapack.arrow as zpa

    try:
        arrow_schema, batches = _arrow_batches(source, source_format, columns)
    except pa.ArrowException as exc:
        raise CliError(f"{args.file}: not {source_format}: {exc}") from exc
    rows = 0

    def counted() -> Iterator[Any]:
        nonlocal rows
        for batch in batches:
            yield batch
            rows += batch.num_rows
            advance(rows)

    stream = pa.RecordBatchReader.from_batches(arrow_schema, counted())
    try:
        return zpa.write(stream, dest, schema, args.type, index=args.index, storage_options=args.storage_options)
    except EncodeError as exc:
        raise CliError(f"{args.file}: {exc}") from exc
    except SchemaError as exc:
        raise CliError(str(exc)) from exc


def _arrow_batches(source: _Metered, source_format: str, columns: list[str] | None) -> tuple[Any, Iterator[Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if source_format == "parquet":
        parquet = pq.ParquetFile(pa.PythonFile(source, mode="r"))
        arrow_schema = parquet.schema_arrow if columns is None else \
            pa.schema([parquet.schema_arrow.field(name) for name in columns])
        return arrow_schema, parquet.iter_batches(batch_size=BATCH_ROWS, columns=columns)
    if source_format == "arrow":
        reader = pa.ipc.open_file(pa.PythonFile(source, mode="r"))
        batches: Iterator[Any] = (reader.get_batch(i) for i in range(reader.num_record_batches))
        arrow_schema = reader.schema
    else:
        stream = pa.ipc.open_stream(pa.PythonFile(source, mode="r"))
        batches, arrow_schema = iter(stream), stream.schema
    if columns is not None:
        arrow_schema = pa.schema([arrow_schema.field(name) for name in columns])
        batches = (batch.select(columns) for batch in batches)
    return arrow_schema, batches


# -- the output -------------------------------------------------------------------------------

class _sink:
    """The binary file a pyarrow writer writes OUT through: a local (temporary) file, or an
    object store's whole-object upload, committed when the block ends without an error
    (pyarrow's writers close their file: that does not commit it)."""

    def __init__(self, dest: str, storage_options: dict[str, Any] | None) -> None:
        self._dest = dest
        self._options = storage_options
        self._object: ObjectOutput | None = None
        self._file: Any = None
        self._written = 0
        self.closed = False

    def __enter__(self) -> _sink:
        if is_url(self._dest):
            self._object = ObjectOutput(self._dest, self._options)
        else:
            self._file = open(self._dest, "wb")
        return self

    def write(self, data: Any) -> int:
        view = memoryview(data)
        if self._object is not None:
            self._object.write(view)
        else:
            self._file.write(view)
        self._written += len(view)
        return len(view)

    def tell(self) -> int:
        return self._written

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        """(what pyarrow calls: the file is finished in ``__exit__``)"""

    def __exit__(self, exc_type: Any, exc: Any, traceback: Any) -> None:
        self.closed = True
        if self._file is not None:
            self._file.close()
        elif self._object is not None:
            if exc is None:
                self._object.commit()
            else:
                self._object.discard()

