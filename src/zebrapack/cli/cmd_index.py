"""``zebrapack index FILE``: the sidecar index that makes a record file splittable."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .._errors import DecodeError, TornTailError
from ..recordio.index_format import DEFAULT_EVERY, DEFAULT_EVERY_BYTES, default_index_path
from ..recordio.locations import input_size, is_url
from ..streams.index import build_index, load_index
from ..streams.recovery import recover
from .common import CliError, add_storage_options_argument
from .progress import Progress

NAME = "index"
HELP = "write the sidecar index (FILE.zpi) that lets readers split a record file"

EPILOG = f"""\
The index lists where every N-th record starts (an entry every {DEFAULT_EVERY}
records, or sooner once an entry reaches {DEFAULT_EVERY_BYTES >> 20} MiB), with the file's size and
CRC32 checksums, so that zebrapack.file_splits can read one file as several
splits, and a stale or corrupt index is detected and ignored. A leading schema
document (a stream written with write_schema=True) is recognized and skipped.
No schema is needed: records are found by their msgpack structure.

With --check, an index that does not fit the file is reported with what the
file holds: its whole records, and a torn tail (a record cut short at its end,
as a writer killed mid-write leaves it) with the offset where the valid data
ends.

exit status: 0 done (with --check: the index is valid), 1 --check found the
index stale or corrupt, 2 usage or input error (no index to check included)

examples:
  zebrapack index big.zpk                  # writes big.zpk.zpi
  zebrapack index big.zpk --every 10000 -o /tmp/big.zpi
  zebrapack index --check big.zpk          # is big.zpk.zpi still right for big.zpk?
  zebrapack index s3://bucket/big.zpk      # writes s3://bucket/big.zpk.zpi (--storage-options)
"""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be positive, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the record file to index (a path, or a URL such as "
                                                     "s3://bucket/key)")
    parser.add_argument("-o", "--output", metavar="INDEX",
                        help="where to write the index (default: FILE.zpi beside the file)")
    parser.add_argument("--every", metavar="N", type=_positive, default=DEFAULT_EVERY,
                        help=f"records per index entry (default {DEFAULT_EVERY})")
    parser.add_argument("--every-bytes", metavar="BYTES", type=_positive, default=DEFAULT_EVERY_BYTES,
                        help=f"end an entry sooner once it holds this many bytes (default {DEFAULT_EVERY_BYTES})")
    parser.add_argument("--check", action="store_true",
                        help="check the existing index against FILE (every checksum) instead of writing one")
    add_storage_options_argument(parser)


def run(args: argparse.Namespace) -> int:
    index_path = args.output if args.output is not None else default_index_path(args.file)
    options = args.storage_options
    try:
        size = input_size(args.file, options) if is_url(args.file) or os.path.isfile(args.file) else None
    except OSError as exc:
        raise CliError(f"{args.file}: {exc.strerror or exc}") from exc
    except ImportError as exc:
        raise CliError(str(exc)) from exc
    if size is None:
        raise CliError(f"{args.file}: no such file")
    if args.check:
        return _check(args.file, index_path, options)
    try:
        with Progress("index", total=size, records_out=False) as progress:
            index = build_index(args.file, index_path, every=args.every, every_bytes=args.every_bytes,
                                storage_options=options, progress=lambda done, _: progress.update(None, done))
    except TornTailError as exc:
        raise CliError(f"{args.file}: no index written: {_file_state(args.file, options)}") from exc
    except DecodeError as exc:
        raise CliError(f"{args.file}: not a record file: {exc}") from exc
    except OSError as exc:
        # A failure on the index's temporary file is one on the index.
        name = index_path if str(exc.filename or "").startswith(index_path) else exc.filename
        raise CliError(f"{name or args.file}: {exc.strerror or exc}") from exc
    except ValueError as exc:       # --every beyond what the format holds
        raise CliError(str(exc)) from exc
    schema = ", after its schema document" if index.schema_prefix else ""
    print(f"{index_path}: {index.record_count} records in {len(index.entries)} entries{schema} "
          f"({input_size(index_path, options)} bytes)")
    return 0


def _check(data_path: str, index_path: str, options: dict[str, Any] | None) -> int:
    """A valid index covers the whole file, every record whole; otherwise the file
    itself is scanned, to say what it holds and whether a writer left it torn."""
    try:
        index = load_index(data_path, index_path, full=True, storage_options=options)
    except FileNotFoundError as exc:
        raise CliError(f"{index_path}: no such index; {_file_state(data_path, options)}") from exc
    except ValueError as exc:
        print(exc)
        print(_file_state(data_path, options))
        return 1
    except OSError as exc:
        raise CliError(f"{exc.filename or index_path}: {exc.strerror or exc}") from exc
    print(f"{index_path}: valid, {index.record_count} records in {len(index.entries)} entries")
    return 0


def _file_state(data_path: str, options: dict[str, Any] | None) -> str:
    """What the file holds, found without its index: its complete records, and a torn tail."""
    try:
        found = recover(data_path, storage_options=options)
    except DecodeError as exc:
        return f"{data_path}: not a record file: {exc}"
    except OSError as exc:
        raise CliError(f"{data_path}: {exc.strerror or exc}") from exc
    if not found.torn:
        return f"{data_path}: {_records(found.records)}, every one whole"
    return (f"{data_path}: torn tail: {_records(found.records)} whole, then {found.torn_bytes} bytes of a record "
            f"cut short; the valid data ends at byte {found.valid_end} "
            f"(zebrapack.recover(FILE).truncate() cuts the file there)")


def _records(count: int) -> str:
    return f"{count} record{'' if count == 1 else 's'}"
