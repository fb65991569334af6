"""The ``zebrapack`` command.

Each subcommand is a module ``zebrapack.cli.cmd_<name>`` defining ``NAME``,
``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``, and optionally
``EPILOG`` (text after the options in its --help, as written); they are found
at start-up, so adding a command is adding a module. A command reports bad
input by raising ``CliError``: one line on stderr, exit status 2, no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from .._version import __version__
from .common import CliError


def _command_modules() -> list[ModuleType]:
    names = sorted(info.name for info in pkgutil.iter_modules(__path__) if info.name.startswith("cmd_"))
    return [importlib.import_module(f"{__name__}.{name}") for name in names]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zebrapack",
        description="ZebraPack for Python: inspect, convert and generate code for zid-keyed msgpack2 data.",
    )
    parser.add_argument("--version", action="version", version=f"zebrapack {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _command_modules():
        sub = commands.add_parser(module.NAME, help=module.HELP, description=module.HELP,
                                  epilog=getattr(module, "EPILOG", None),
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except CliError as exc:
        sys.stdout.flush()
        print(f"zebrapack {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
