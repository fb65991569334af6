"""``zebrapack check OLD NEW``: may NEW replace OLD without breaking data?"""

from __future__ import annotations

import argparse
import json

from .._errors import SchemaError
from ..evolution.compat import check_compatible
from .common import CliError, add_unexported_argument, schema_source_arg

NAME = "check"
HELP = "check that schema NEW keeps the zids, types and names of OLD (exit 1 on conflicts)"

EPILOG = """\
OLD and NEW are compiled schemas (.z, .z.json) or Go schema sources (.go).
One line per finding, then "compatible" or "incompatible: N conflicts".
A finding is a conflict (a zid's type, Go name or tag name changed, a field
or struct removed, a zid repeated or leaving a gap) or info (new fields and
structs, newly deprecated or retired fields). --json prints the findings only.

exit status: 0 compatible, 1 conflicts, 2 usage or input error

examples:
  zebrapack check people.go people_v2.go
  zebrapack check --json old.z new.z
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("old", metavar="OLD", help="the schema data was written with")
    parser.add_argument("new", metavar="NEW", help="the schema that replaces it")
    parser.add_argument("--json", action="store_true", help="print the findings as a JSON array")
    add_unexported_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        report = check_compatible(schema_source_arg(args.old, args.unexported),
                                  schema_source_arg(args.new, args.unexported))
    except SchemaError as exc:      # its message names the file at fault
        raise CliError(str(exc)) from exc
    except OSError as exc:          # e.g. a directory
        raise CliError(f"{exc.filename}: {exc.strerror or exc}") from exc
    if args.json:
        print(json.dumps([finding.as_dict() for finding in report.findings], indent=2))
        return 0 if report.compatible else 1
    if report.findings:
        print(report)
    conflicts = len(report.conflicts)
    print("compatible" if report.compatible else f"incompatible: {conflicts} conflict{'s' * (conflicts > 1)}")
    return 0 if report.compatible else 1
