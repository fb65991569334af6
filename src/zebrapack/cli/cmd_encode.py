"""``zebrapack encode``: typed JSON records to ZebraPack bytes (the reverse of dump)."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import IO, Any, TextIO

from .._errors import EncodeError
from ..textformats.typed_json import TypedJson, TypedJsonError, json_reader
from .common import (
    CliError,
    add_storage_options_argument,
    add_unexported_argument,
    binary_input,
    binary_stdout,
    input_name,
    load_schema_arg,
    output_path,
    record_error,
    struct_arg,
)
from .progress import Progress, input_size

NAME = "encode"
HELP = "write records from typed JSON, one object per line (the reverse of dump)"

EPILOG = """\
examples:
  zebrapack encode --schema zp.z --type A < records.jsonl > records.zpk
  zebrapack dump -s zp.z --wire-order in.zpk | zebrapack encode -s zp.z > same.zpk
  zebrapack encode -s zpn.z -t A --no-structnames records.jsonl > records.zpk
  zebrapack encode -s zp.z -t A records.jsonl -o s3://bucket/records.zpk --index

The input is what dump writes: typed JSON objects, one per line (indented
objects from dump --pretty are read too). Each value is written by its declared
type and checked as strictly as the Go reader checks it. A field left out of an
object gets its zero value; an unknown field is an error.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", nargs="?", default="-",
                        help="typed JSON records, one per line (default: - for standard input)")
    parser.add_argument("-s", "--schema", metavar="SCHEMA", required=True,
                        help="the schema (.z, .z.json or Go source .go)")
    add_unexported_argument(parser)
    parser.add_argument("-t", "--type", metavar="TYPE",
                        help="the struct of every record (default: each record's \"$type\")")
    parser.add_argument("--no-structnames", action="store_true",
                        help="leave out the -1 struct name entries (Go's -no-structnames-onwire)")
    parser.add_argument("--msgp", action="store_true",
                        help="write plain msgpack keyed by field tag names (Go's -msgp)")
    parser.add_argument("--fixext", action="store_true",
                        help="fixext headers for 1, 2, 4, 8 and 16-byte extensions, as Go's EncodeMsg "
                             "writes them (default: ext8, as its MarshalMsg)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="write the records to OUT, a path or a URL such as s3://bucket/key (default: standard "
                             "output); it appears whole when every record is written, or not at all")
    parser.add_argument("--index", action="store_true", help="with -o: also write OUT's sidecar index (OUT.zpi)")
    add_storage_options_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.index and args.output is None:
        raise CliError("--index needs -o OUT (an index describes a file)")
    schema = load_schema_arg(args.schema, args.unexported, args.storage_options)
    if args.output is None:
        return _encode(args, schema, binary_stdout(), None)
    try:
        with output_path(args.output) as path:
            return _encode(args, schema, path, args.storage_options)
    except OSError as exc:
        raise CliError(f"{args.output}: {exc.strerror or exc}") from exc


def _encode(args: argparse.Namespace, schema: Any, out: Any, storage_options: dict[str, Any] | None) -> int:
    record_type = struct_arg(schema, args.type)
    converter = TypedJson(schema)
    name = input_name(args.file)
    options: dict[str, Any] = {"structnames": not args.no_structnames, "mode": "msgp" if args.msgp else "zebrapack",
                               "fixext": args.fixext}
    if storage_options is not None:
        options["storage_options"] = storage_options
    writer = schema.writer(out, index=args.index or None, **options)
    with binary_input(args.file, args.storage_options) as source, warnings.catch_warnings(), \
            Progress("encode", total=input_size(source), records_out=args.output is None) as progress, writer:
        # The codec warns for each deprecated field written; "default" says it once per
        # field (the warnings registry), as a command does.
        warnings.simplefilter("default", DeprecationWarning)
        warnings.showwarning = _show_warning
        count = 0
        lines = _MeteredLines(source, name)
        # (what was written reaches the pipe, whatever follows: the writer's exit flushes it)
        for line, document in _json_values(lines, name):
            count += 1
            where = f"{name}: line {line}"
            if isinstance(document, list):
                raise CliError(f"{where}: a JSON array; encode reads one JSON object per record "
                               "(JSON Lines, as dump writes), not an array of them")
            try:
                writer.write(converter.from_json(document, record_type))
            except (TypedJsonError, EncodeError) as exc:
                raise record_error(where, count, f"{exc.path}: {exc.reason}") from exc
            progress.update(count, lines.bytes_read)
    if count == 0:
        print(f"zebrapack {NAME}: {name}: the input is empty (no records)", file=sys.stderr)
    return 0


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None) -> None:
    print(f"zebrapack {NAME}: warning: {message}", file=sys.stderr)


class _MeteredLines:
    """The lines of a binary input as text, numbered, with the bytes read so far."""

    def __init__(self, source: IO[bytes], name: str) -> None:
        self._source = source
        self._name = name
        self.bytes_read = 0

    def __iter__(self) -> Iterator[tuple[int, str]]:
        for number, raw in enumerate(self._source, 1):
            self.bytes_read += len(raw)
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise CliError(f"{self._name}: line {number}: not UTF-8 text ({exc.reason} at column "
                               f"{exc.start + 1})") from None


def _json_values(lines: _MeteredLines, name: str) -> Iterator[tuple[int, Any]]:
    """(first line, value) of each JSON value: one per line, or indented over several.

    In indented JSON only the lines of the outermost level start in column 1,
    so parsing is tried at those lines only: every line of JSON Lines, the
    first and last of an indented object.
    """
    parse = json_reader()
    pending: list[str] = []
    start = 0
    for number, line in lines:
        if not pending:
            if not line.strip():
                continue
            start = number
        pending.append(line)
        if line[:1].isspace():
            continue
        value = _parse(parse, "".join(pending), name, start, at_end=False)
        if value is not _INCOMPLETE:
            pending = []
            yield start, value
    if pending:
        yield start, _parse(parse, "".join(pending), name, start, at_end=True)


#: What _parse returns for text that is the beginning of a value.
_INCOMPLETE = object()


def _parse(parse: Callable[[str], Any], text: str, name: str, start: int, at_end: bool) -> Any:
    try:
        return parse(text)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            if not at_end:
                return _INCOMPLETE
            raise CliError(f"{name}: line {start}: the input ends inside this JSON value") from None
        raise CliError(f"{name}: line {start + exc.lineno - 1}: not valid JSON: {exc.msg} "
                       f"(column {exc.colno})") from None
    except TypedJsonError as exc:
        raise CliError(f"{name}: line {start}: {exc}") from None
