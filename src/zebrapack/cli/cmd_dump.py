"""``zebrapack dump``: records as typed JSON lines, or any msgpack as its raw structure."""

from __future__ import annotations

import argparse
import sys
from typing import IO

from .._errors import DecodeError
from ..schema.loader import Schema
from ..textformats.rawdump import iter_raw_records
from ..textformats.typed_json import TypedJson, TypedJsonError, json_writer
from .common import CliError, binary_input, input_name, load_schema_arg, record_error, struct_arg
from .progress import MeteredInput, Progress

NAME = "dump"
HELP = "print records as typed JSON, one object per line (without --schema: the raw msgpack structure)"

CHUNK_SIZE = 1 << 16

EPILOG = """\
examples:
  zebrapack dump --schema tests/vectors/schemas/zp.z tests/vectors/zp/A_stream.zpk
  zebrapack dump -s zpn.z --type A --pretty record.zpk
  cat records.zpk | zebrapack dump -s zp.z - | jq .Name
  zebrapack dump tests/vectors/zp/A_seed.zpk      # no schema: offsets, wire types, values

Typed JSON is the format of tests/vectors/README.md: "$type" first, then every
field by Go name; {"$time": ...} with nanoseconds, {"$bytes": hex},
{"$float": "nan"|"inf"|"-inf"|"-0"} (a NaN with a payload adds "$bits"),
{"$map": [[key, value], ...]}, {"$complex": [re, im]}, {"$ext": [code, hex]}.
In interface{} values floats always show a fraction or exponent (2.0).
`zebrapack encode` reads it back.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the records (one, or a stream of them); - for standard input")
    parser.add_argument("-s", "--schema", metavar="SCHEMA",
                        help="the compiled schema (.z or .z.json); without it the raw msgpack structure is shown")
    parser.add_argument("-t", "--type", metavar="TYPE",
                        help="the struct of every record; needed when records carry no -1 struct name")
    parser.add_argument("--pretty", action="store_true", help="indent each JSON object over several lines")
    parser.add_argument("--wire-order", action="store_true",
                        help="keep map entries in their wire order instead of sorting them by key, "
                             "so that dump | encode gives back the same bytes for maps of several entries too")


def run(args: argparse.Namespace) -> int:
    schema = load_schema_arg(args.schema) if args.schema is not None else None
    if schema is None:
        for option in ("type", "pretty", "wire_order"):
            if getattr(args, option):
                raise CliError(f"--{option.replace('_', '-')} needs --schema")
    else:
        struct_arg(schema, args.type)
    out = sys.stdout.buffer
    with binary_input(args.file) as source:
        metered = MeteredInput(source, out.flush, CHUNK_SIZE)
        try:
            if schema is None:
                _dump_raw(metered, input_name(args.file), out)
            else:
                _dump_typed(metered, schema, args, out)
        finally:
            out.flush()
    return 0


def _dump_typed(source: MeteredInput, schema: Schema, args: argparse.Namespace, out: IO[bytes]) -> None:
    converter = TypedJson(schema, sort_maps=not args.wire_order)
    to_text = json_writer(pretty=args.pretty)
    name = input_name(args.file)
    count = 0
    with Progress("dump") as progress:
        try:
            for record in schema.iter_decode(source, args.type, chunk_size=CHUNK_SIZE):
                count += 1
                out.write(to_text(converter.to_json(record)).encode() + b"\n")
                progress.update(count, source.bytes_read)
        except DecodeError as exc:
            if args.type is None and "its type must be given" in exc.reason:
                exc = DecodeError(exc.reason.replace("its type must be given", "give --type"), exc.path, exc.offset)
            raise record_error(name, count + 1, exc) from exc
        except TypedJsonError as exc:
            raise record_error(name, count, exc) from exc


def _dump_raw(source: MeteredInput, name: str, out: IO[bytes]) -> None:
    count = 0
    with Progress("dump") as progress:
        try:
            for offset, size, lines in iter_raw_records(source, chunk_size=CHUNK_SIZE):
                count += 1
                header = f"# record {count} at offset {offset}, {size} bytes\n"
                out.write((header + "\n".join(lines) + "\n").encode())
                progress.update(count, source.bytes_read)
        except DecodeError as exc:
            raise record_error(name, count + 1, exc) from exc
