"""The ``pos-app`` command: the GUI by default, plus Qt-free subcommands for automation."""

from __future__ import annotations

import argparse
import json
import sys


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """Usage errors exit 1 (not argparse's 2, which means "declined" for terminal commands)."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    from pos_app import __version__

    parser = Parser(prog="pos-app", description=__doc__)
    parser.add_argument("--version", action="version", version=f"pos-app {__version__}")
    parser.add_argument("--sandbox", action="store_true",
                        help="open the app on its built-in sandbox, in training mode (no real money)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    from pos_app.provisioning import add_setup_command
    from pos_app.sandbox.cli import add_sandbox_commands
    from pos_app.staff.cli import add_staff_commands
    from pos_app.station.cli import add_terminal_commands

    add_sandbox_commands(commands)
    add_terminal_commands(commands)
    add_staff_commands(commands)
    add_setup_command(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        if argv and argv[0] in ("terminal", "receipt", "staff", "setup"):
            sys.stdout.write(json.dumps({"outcome": "invalid", "error": str(error)}) + "\n")
        else:
            sys.stderr.write(f"{error}\n")
        return 1
    if args.command is None:
        from pos_app.ui.app import main as run_app  # Qt is loaded only for the app itself

        return run_app(sandbox=args.sandbox)
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
