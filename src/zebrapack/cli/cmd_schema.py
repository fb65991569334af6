"""``zebrapack schema FILE.go``: compile Go struct definitions into a schema, without Go."""

from __future__ import annotations

import argparse
import json
import os

from .._errors import SchemaError
from ..schema.document import schema_document
from ..schema.loader import Schema
from ..sources.from_go import read_go_schema
from .common import CliError

NAME = "schema"
HELP = "compile a Go schema file (structs with zid tags) into a .z schema, as the reference compiler does"

EPILOG = """\
Writes OUT.z (msgpack2) and OUT.z.json beside it; OUT is -o, or FILE with
.go replaced by .z. With --json and no -o, prints the JSON schema instead.

Like the reference compiler, it leaves unexported structs and fields out;
--unexported puts them in (the reference's -unexported). Every field needs a
zid tag, but with --msgp: a schema for the reference's -msgp (plain msgpack
keyed by field names), whose fields without one get Zid -3 as the reference
records them.

examples:
  zebrapack schema tests/vectors/schemas/zp.go -o /tmp/zp.z
  zebrapack schema --unexported tests/golden/schemas/my2.go -o /tmp/my2.z
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("file", metavar="FILE.go", help="the Go source of the schema")
    parser.add_argument("-o", "--output", metavar="OUT.z", help="where to write the compiled schema")
    parser.add_argument("--json", action="store_true", help="print the schema as JSON on standard output")
    parser.add_argument("--unexported", action="store_true",
                        help="include unexported structs and fields (the reference's -unexported)")
    parser.add_argument("--msgp", action="store_true",
                        help="a schema for -msgp only: fields may go without zid tags (Zid -3)")


def run(args: argparse.Namespace) -> int:
    try:
        model = read_go_schema(args.file, unexported=args.unexported, msgp=args.msgp)
    except SchemaError as exc:
        raise CliError(str(exc)) from exc
    if args.output is not None or not args.json:
        output = args.output or os.path.splitext(args.file)[0] + ".z"
        try:
            Schema(model).dump(output)
        except OSError as exc:
            raise CliError(f"{output}: {exc.strerror or exc}") from exc
    if args.json:
        print(json.dumps(schema_document(model), indent=4))
    return 0
