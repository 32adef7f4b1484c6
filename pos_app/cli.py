"""The ``pos-app`` command: the GUI by default, plus Qt-free subcommands for automation."""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pos-app", description=__doc__)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    from pos_app.sandbox.cli import add_sandbox_commands

    add_sandbox_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
