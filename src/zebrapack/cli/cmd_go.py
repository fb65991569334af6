"""``zebrapack go SCHEMA``: the Go source of a compiled schema (the reference's -schema-to-go)."""

from __future__ import annotations

import argparse
import sys

from .._errors import SchemaError
from ..golang.emitter import go_source
from .common import CliError, load_schema_arg

NAME = "go"
HELP = "write the Go structs of a compiled schema, with zid and msg tags (like -schema-to-go)"

EPILOG = """\
The output is gofmt-formatted; the reference generator makes Go code from it,
and `zebrapack schema` compiles it back to the same schema.

Unexported struct and field names are refused unless --unexported is given;
the reference generator then needs -unexported too, as `zebrapack schema` does.

examples:
  zebrapack go zp.z -o zp_schema.go
  zebrapack go --unexported tests/golden/schemas/my2.z -o my2_schema.go
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("schema", metavar="SCHEMA", help="the schema (.z, .z.json or Go source .go)")
    parser.add_argument("-o", "--output", metavar="FILE.go", help="write the source there (default: standard output)")
    parser.add_argument("--package", help="the Go package name (default: the schema's)")
    parser.add_argument("--unexported", action="store_true",
                        help="write unexported struct and field names too (compile back with --unexported)")


def run(args: argparse.Namespace) -> int:
    model = load_schema_arg(args.schema, args.unexported).model
    try:
        text = go_source(model, package=args.package, unexported=args.unexported)
    except SchemaError as exc:
        raise CliError(f"{args.schema}: {exc}") from exc
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise CliError(f"{args.output}: {exc.strerror or exc}") from exc
    return 0
