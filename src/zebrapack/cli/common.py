"""What the subcommands share: the error they raise, and opening their inputs and outputs."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import sys
from collections.abc import Iterator
from typing import IO, Any

from .._errors import SchemaError, TornTailError
from ..recordio.index_format import SUFFIX
from ..recordio.locations import is_url, open_input
from ..schema.loader import Schema, load
from ..schema.model import SchemaDef
from ..sources.from_go import read_go_schema


class CliError(Exception):
    """Bad input or usage: its message is the one line the user sees (exit status 2)."""


@contextlib.contextmanager
def schema_errors(path: str) -> Iterator[None]:
    """Turn the errors of reading the schema file ``path`` into a CliError naming it."""
    try:
        yield
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from exc
    except SchemaError as exc:
        message = str(exc)
        raise CliError(message if message.startswith(path) else f"{path}: {message}") from exc


def add_unexported_argument(parser: argparse.ArgumentParser) -> None:
    """``--unexported``, for the commands that compile Go source given as a schema."""
    parser.add_argument("--unexported", action="store_true",
                        help="compile unexported structs and fields of a .go schema too (as `zebrapack schema "
                             "--unexported` does)")


def schema_source_arg(path: str, unexported: bool = False) -> SchemaDef | str:
    """A schema argument as ``check_compatible`` takes it: Go source (``.go``) compiled
    as ``zebrapack schema`` does, a compiled schema (``.z``, ``.z.json``) by its path (or URL)."""
    if path.endswith(".go"):
        with schema_errors(path):
            return read_go_schema(path, unexported=unexported)
    if not is_url(path) and not os.path.exists(path):
        raise CliError(f"{path}: No such file or directory")
    return path


def load_schema_arg(path: str, unexported: bool = False, storage_options: dict[str, Any] | None = None) -> Schema:
    """The schema of a ``--schema`` argument (``.z``, ``.z.json`` or Go source), or a CliError naming the file."""
    source = schema_source_arg(path, unexported)
    with schema_errors(path):
        try:
            return Schema(source) if isinstance(source, SchemaDef) else load(source, storage_options=storage_options)
        except ImportError as exc:      # a URL without fsspec
            raise CliError(str(exc)) from exc


def add_storage_options_argument(parser: argparse.ArgumentParser) -> None:
    """``--storage-options JSON``, for the commands that take URLs (``s3://bucket/key``)."""
    parser.add_argument("--storage-options", metavar="JSON", type=_json_object, default=None,
                        help="fsspec's options for URLs (s3://, gs://, ...), as a JSON object, e.g. "
                             "'{\"endpoint_url\": \"http://127.0.0.1:9000\"}' (credentials otherwise come from "
                             "the environment, as for the filesystem's own tools)")


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("a JSON object is expected ({...})")
    return value


def struct_arg(schema: Schema, name: str | None) -> str | None:
    """A ``--type`` argument, checked to name a struct of the schema."""
    if name is not None and name not in schema.structs:
        raise CliError(f"the schema has no struct {name!r} (it has {', '.join(schema.structs) or 'none'})")
    return name


def open_binary_input(path: str, storage_options: dict[str, Any] | None = None) -> IO[bytes]:
    """A binary input: a file path or URL, or ``-`` for standard input."""
    if path == "-":
        return sys.stdin.buffer
    try:
        handle: IO[bytes] = open_input(path, storage_options)
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from exc
    except (ImportError, ValueError) as exc:    # a URL without fsspec or its filesystem's package; a bad URL
        raise CliError(str(exc)) from exc
    return handle


@contextlib.contextmanager
def binary_input(path: str, storage_options: dict[str, Any] | None = None) -> Iterator[IO[bytes]]:
    """``open_binary_input`` as a context: closes a file it opened, never standard input."""
    source = open_binary_input(path, storage_options)
    try:
        yield source
    finally:
        if source is not sys.stdin.buffer:
            source.close()


def input_name(path: str) -> str:
    """How messages name an input argument."""
    return "<stdin>" if path == "-" else path


def record_error(source: str, record: int, detail: object) -> CliError:
    """The error of one record: ``FILE: record N: PATH: REASON (byte offset K)``."""
    return CliError(f"{source}: record {record}: {detail}")


def torn_tail_error(source: str, complete: int, tear: TornTailError) -> CliError:
    """The error of an input that ends inside a record (a writer killed mid-write), after
    ``complete`` whole records: where the valid data ends, so that it can be recovered."""
    return CliError(f"{source}: torn tail: record {complete + 1}, from byte {tear.offset}, is cut short by the "
                    f"end of the input; the {complete} record{'' if complete == 1 else 's'} before it "
                    f"{'is' if complete == 1 else 'are'} complete, and the valid data ends at byte {tear.offset} "
                    "(zebrapack.recover reads such a file, and truncates it there)")


@contextlib.contextmanager
def output_path(dest: str) -> Iterator[str]:
    """Where a command writes its output ``dest``: a URL as it is (its writers put whole
    objects, or none when they fail), a local path through a hidden temporary file beside
    it (with its index, ``.zpi``, if one is written), moved into place when the command
    succeeds and removed when it fails: never a half-written file under ``dest``."""
    if is_url(dest):
        yield dest
        return
    folder, name = os.path.split(dest)
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        yield temporary
        os.replace(temporary, dest)
        if os.path.exists(temporary + SUFFIX):
            os.replace(temporary + SUFFIX, dest + SUFFIX)
    except BaseException:
        for path in (temporary, temporary + SUFFIX):
            if os.path.exists(path):
                os.unlink(path)
        raise


def write_text_output(path: str | None, text: str) -> None:
    """Write generated text to ``path``, or to standard output when it is None.

    The text is whole before the file is opened, so an error leaves no half file.
    """
    if path is None:
        sys.stdout.write(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from exc


def binary_stdout() -> IO[bytes]:
    """Standard output for binary records; refused when it is a terminal."""
    if sys.stdout.isatty():
        raise CliError("refusing to write binary records to a terminal; redirect standard output")
    return sys.stdout.buffer
