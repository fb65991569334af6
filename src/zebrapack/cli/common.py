"""What the subcommands share: the error they raise, and opening their inputs."""

from __future__ import annotations

import os
import sys
from typing import IO

from .._errors import SchemaError
from .._schema import Schema, load


class CliError(Exception):
    """Bad input or usage: its message is the one line the user sees (exit status 2)."""


def load_schema_arg(path: str, **options: object) -> Schema:
    """The schema of a command-line argument, or a CliError naming the file."""
    if not os.path.exists(path):
        raise CliError(f"{path}: no such schema file")
    try:
        return load(path, **options)  # type: ignore[arg-type]
    except SchemaError as exc:
        raise CliError(f"{path}: {exc}") from exc


def open_binary_input(path: str) -> IO[bytes]:
    """A binary input: a file path, or ``-`` for standard input."""
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or exc}") from exc
