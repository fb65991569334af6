"""``zebrapack dump``: records as typed JSON lines, or any msgpack as its raw structure."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import IO, Any

from .._errors import DecodeError, SchemaError, TornTailError
from ..schema.loader import Schema
from ..streams.self_describing import open_stream
from ..textformats.rawdump import iter_raw_records
from ..textformats.typed_json import TypedJson, TypedJsonError, json_writer
from .common import (
    CliError,
    add_storage_options_argument,
    add_unexported_argument,
    binary_input,
    input_name,
    load_schema_arg,
    record_error,
    struct_arg,
    torn_tail_error,
)
from .progress import MeteredInput, Progress, input_size

NAME = "dump"
HELP = ("print records as typed JSON, one object per line, with --schema or the schema the stream "
        "carries (otherwise: the raw msgpack structure)")

CHUNK_SIZE = 1 << 16

EPILOG = """\
examples:
  zebrapack dump --schema zp.z records.zpk
  zebrapack dump -s zpn.z --type A --pretty record.zpk
  cat records.zpk | zebrapack dump -s zp.z | jq .Name
  zebrapack dump with_schema.zpk          # a stream written with write_schema=True: its own schema
  zebrapack dump --raw records.zpk       # offsets, wire types, values
  zebrapack dump -s zp.z s3://bucket/events/part-0.zpk    # a URL (fsspec; --storage-options)

A stream that starts with its schema (schema.writer(f, write_schema=True)) is
read with that schema; with --schema S it is read with S, which must be an
earlier or later version of the stream's schema (as `zebrapack check` says).
--raw shows the raw structure of any input, its schema included.

Typed JSON (docs/typed-json.md of the repository): "$type" first, then every
field by Go name; {"$time": ...} with nanoseconds, {"$bytes": hex},
{"$float": "nan"|"inf"|"-inf"|"-0"} (a NaN with a payload adds "$bits"),
{"$map": [[key, value], ...]}, {"$complex": [re, im]}, {"$ext": [code, hex]},
{"$gotime": [seconds, nanos]} for times beyond the years 1-9999. In interface{}
values floats always show a fraction or exponent (2.0), and Go's types other than
int64/float64/complex128 are marked: {"$f32": x}, {"$uint": n}, {"$complex64": [re, im]}.
`zebrapack encode` reads it back.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", nargs="?", default="-",
                        help="the records (one, or a stream of them), a path or a URL such as s3://bucket/key "
                             "(default: - for standard input)")
    parser.add_argument("-s", "--schema", metavar="SCHEMA",
                        help="the schema (.z, .z.json or Go source .go); without it, the schema the stream "
                             "carries, or else the raw msgpack structure")
    add_unexported_argument(parser)
    parser.add_argument("--raw", action="store_true",
                        help="show the raw msgpack structure (offsets, wire types, values), whatever the input")
    parser.add_argument("-t", "--type", metavar="TYPE",
                        help="the struct of every record; needed when records carry no -1 struct name")
    parser.add_argument("--pretty", action="store_true", help="indent each JSON object over several lines")
    parser.add_argument("--wire-order", action="store_true",
                        help="keep map entries in their wire order instead of sorting them by key, "
                             "so that dump | encode gives back the same bytes for maps of several entries too")
    add_storage_options_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.raw and args.schema is not None:
        raise CliError("--raw shows the input without a schema: leave out --schema")
    schema = load_schema_arg(args.schema, args.unexported, args.storage_options) if args.schema is not None else None
    if schema is not None:
        struct_arg(schema, args.type)
    out = sys.stdout.buffer
    name = input_name(args.file)
    with binary_input(args.file, args.storage_options) as source:
        total = input_size(source)
        metered = MeteredInput(source, out.flush, CHUNK_SIZE)
        head = _read_head(metered)
        if not head:
            print(f"zebrapack {NAME}: {name}: the input is empty (no records)", file=sys.stderr)
            return 0
        carries_schema = _starts_with_schema(head)
        if not args.raw:
            _check_records_input(head, name, schema_expected=schema is not None or carries_schema)
        whole = _HeadFirst(head, metered, total)
        try:
            if args.raw or (schema is None and not carries_schema):
                for option in ("type", "pretty", "wire_order"):
                    if getattr(args, option):
                        raise CliError(f"--{option.replace('_', '-')} needs a schema: --schema, or a stream "
                                       "that carries its schema")
                _dump_raw(whole, name, out)
            elif carries_schema:
                _dump_self_describing(whole, schema, args, out)
            else:
                assert schema is not None
                _dump_typed(schema, schema.iter_decode(whole, args.type, chunk_size=CHUNK_SIZE), whole, args, out)
        finally:
            out.flush()
    return 0


def _read_head(source: MeteredInput) -> bytes:
    """The first bytes of the input, enough to tell what it holds: read as they arrive and no
    further, so that a first record that comes alone (a pipe) is printed before more come."""
    head = b""
    while not _tells_what_it_holds(head):
        chunk = source.read(CHUNK_SIZE)
        if not chunk:
            break
        head += chunk
    return head


class _HeadFirst:
    """The input again from its start: the head already read, then the rest."""

    def __init__(self, head: bytes, rest: MeteredInput, total: int | None) -> None:
        self._head = head
        self._rest = rest
        self.total = total      # the input's size, when known

    @property
    def bytes_read(self) -> int:
        return self._rest.bytes_read

    def read(self, size: int = -1, /) -> bytes:
        if not self._head:
            return self._rest.read(size)
        if size < 0:
            size = len(self._head)
        chunk, self._head = self._head[:size], self._head[size:]
        return chunk


#: How many bytes are read before deciding what the input holds (a schema's first key fits).
HEAD_SIZE = 64
#: The keys of a schema document (zebra.Schema), one of which comes first in a stream's schema.
_SCHEMA_KEYS = frozenset({b"SourcePath", b"SourcePackage", b"ZebraSchemaId", b"Structs", b"Imports"})


def _tells_what_it_holds(head: bytes) -> bool:
    """Whether ``head`` is enough for ``_starts_with_schema`` and ``_check_records_input``:
    HEAD_SIZE bytes, or a lead that is not a map, or a map's first key whole."""
    if len(head) >= HEAD_SIZE:
        return True
    if not head:
        return False
    lead = head[0]
    start = 1 if 0x80 <= lead <= 0x8f else 3 if lead == 0xde else 5 if lead == 0xdf else None
    if start is None:
        return True
    if len(head) <= start:
        return False
    key_lead = head[start]
    if 0xa0 <= key_lead <= 0xbf:
        return len(head) >= start + 1 + (key_lead & 0x1f)
    if key_lead == 0xd9:
        return len(head) > start + 1 and len(head) >= start + 2 + head[start + 1]
    return True


def _starts_with_schema(head: bytes) -> bool:
    """Whether the input starts with a schema document: a map whose first key is a schema key.

    A record's first key is its -1 struct name or a zid (an int), or in msgp mode
    a field's tag name; streams written with ``write_schema=True`` start with "SourcePath"
    or another key of a zebra.Schema.
    """
    lead = head[0]
    start = 1 if 0x80 <= lead <= 0x8f else 3 if lead == 0xde else 5 if lead == 0xdf else None
    if start is None or len(head) <= start:
        return False
    key_lead = head[start]
    if 0xa0 <= key_lead <= 0xbf:
        key = head[start + 1:start + 1 + (key_lead & 0x1f)]
    elif key_lead == 0xd9 and len(head) > start + 1:
        key = head[start + 2:start + 2 + head[start + 1]]
    else:
        return False
    return key in _SCHEMA_KEYS


def _is_container(lead: int) -> tuple[bool, bool]:
    """(map, array): whether a msgpack object starting with ``lead`` is a map or an array."""
    return 0x80 <= lead <= 0x8f or lead in (0xde, 0xdf), 0x90 <= lead <= 0x9f or lead in (0xdc, 0xdd)


def _check_records_input(head: bytes, name: str, schema_expected: bool) -> None:
    """Refuse input that is not msgpack records (a record is a map) before printing anything."""
    is_map, is_array = _is_container(head[0])
    if is_map or (is_array and not schema_expected):
        return
    text = head.lstrip()
    if text[:1] in (b"{", b"[") and _is_text(head):
        raise CliError(f"{name}: this is JSON text, not msgpack records; `zebrapack encode -s SCHEMA` "
                       "turns typed JSON into records")
    found = "an array" if is_array else f"byte {head[0]:#04x}"
    raise CliError(f"{name}: not msgpack records: a record is a msgpack map, and the input starts with {found} "
                   "(zebrapack dump --raw shows its structure anyway)")


def _is_text(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:       # the head may end inside a character
        if exc.start < len(data) - 3:
            return False
        text = data[:exc.start].decode("utf-8")
    return all(c.isprintable() or c in "\t\r\n" for c in text)


def _dump_self_describing(source: _HeadFirst, schema: Schema | None, args: argparse.Namespace,
                          out: IO[bytes]) -> None:
    """A stream that carries its schema: its records, read with it (or with ``schema``, a version of it)."""
    name = input_name(args.file)
    try:
        stream = open_stream(source, type=args.type, chunk_size=CHUNK_SIZE, schema=schema)
    except (DecodeError, SchemaError) as exc:
        raise CliError(f"{name}: the schema at the start of the stream: {exc}") from exc
    except ValueError as exc:       # --type names no struct of the stream's schema
        raise CliError(str(exc)) from exc
    if schema is None:
        struct_arg(stream.schema, args.type)
    _dump_typed(stream.schema, iter(stream), source, args, out)


def _dump_typed(schema: Schema, records: Iterator[Any], source: _HeadFirst, args: argparse.Namespace,
                out: IO[bytes]) -> None:
    converter = TypedJson(schema, sort_maps=not args.wire_order)
    to_text = json_writer(pretty=args.pretty)
    name = input_name(args.file)
    count = 0
    with Progress("dump", total=source.total) as progress:
        try:
            for record in records:
                count += 1
                out.write(to_text(converter.to_json(record)).encode() + b"\n")
                progress.update(count, source.bytes_read)
        except TornTailError as exc:
            raise torn_tail_error(name, count, exc) from exc
        except DecodeError as exc:
            if args.type is None and "its type must be given" in exc.reason:
                exc = DecodeError(exc.reason.replace("its type must be given", "give --type"), exc.path, exc.offset)
            raise record_error(name, count + 1, exc) from exc
        except TypedJsonError as exc:
            raise record_error(name, count, exc) from exc


def _dump_raw(source: _HeadFirst, name: str, out: IO[bytes]) -> None:
    count = 0
    with Progress("dump", total=source.total) as progress:
        try:
            for offset, size, lines in iter_raw_records(source, chunk_size=CHUNK_SIZE):
                count += 1
                header = f"# record {count} at offset {offset}, {size} bytes\n"
                out.write((header + "\n".join(lines) + "\n").encode())
                progress.update(count, source.bytes_read)
        except TornTailError as exc:
            raise torn_tail_error(name, count, exc) from exc
        except DecodeError as exc:
            raise record_error(name, count + 1, exc) from exc
