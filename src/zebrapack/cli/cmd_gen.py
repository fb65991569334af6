"""``zebrapack gen``: a Python module of typed dataclasses from a compiled schema."""

from __future__ import annotations

import argparse

from .._errors import SchemaError
from ..codegen import generate_module
from .common import CliError, add_unexported_argument, load_schema_arg, write_text_output

NAME = "gen"
HELP = "write a Python module with a dataclass per struct and the schema bound to them"

EPILOG = """\
examples:
  zebrapack gen zp.z -o zp_models.py
  zebrapack gen my.z.json > my_models.py

The module embeds the schema; use it as:
  import zp_models
  record = zp_models.schema.decode(data)          # a zp_models.A, ...
  a = zp_models.schema.decode(data, type=zp_models.A)   # typed as A for mypy
  data = zp_models.schema.encode(zp_models.A(Name="Atlanta", Sibs=3))
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("schema", metavar="SCHEMA", help="the schema (.z, .z.json or Go source .go)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the module there (default: standard output)")
    add_unexported_argument(parser)


def run(args: argparse.Namespace) -> int:
    model = load_schema_arg(args.schema, args.unexported).model
    try:
        text = generate_module(model)
    except SchemaError as exc:
        raise CliError(f"{args.schema}: {exc}") from exc
    write_text_output(args.output, text)
    return 0
