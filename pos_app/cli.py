"""The ``pos-app`` command: the GUI by default, plus Qt-free subcommands for automation.

The app itself (``pos-app``, ``pos-app --sandbox``) starts without the commands' parser:
argparse, json and the commands' modules are imported only for a command."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


class UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from pos_app import __version__
    from pos_app.i18n import _

    argparse_speaks_ours()

    class Parser(argparse.ArgumentParser):
        """Usage errors exit 1 (not argparse's 2, which means "declined" for terminal commands)."""

        def error(self, message: str):  # type: ignore[override]
            raise UsageError(f"{self.prog}: {message}")

    parser = Parser(prog="pos-app",
                    description=_("The pos-app cashier app (no command), and Qt-free commands for automation."))
    parser.add_argument("--version", action="version", version=f"pos-app {__version__}",  # not for people: a name
                        help=_("show program's version number and exit"))
    parser.add_argument("--sandbox", action="store_true",
                        help=_("open the app on its built-in sandbox, in training mode (no real money)"))
    parser.add_argument("--profile", metavar="FILE",
                        help=_("the store profile to start from (as POS_PROFILE; an installer's is "
                               "store-profile.toml next to the executable)"))
    parser.add_argument("--self-test", action="store_true",
                        help=_("check this installation on the built-in sandbox and a temporary data folder (a sale, "
                               "its receipt); exit 0 when it works"))
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    from pos_app.sandbox.cli import add_sandbox_commands
    from pos_app.setup_cli import add_setup_command
    from pos_app.staff.cli import add_staff_commands
    from pos_app.station.charge_cli import add_charge_commands
    from pos_app.station.cli import add_terminal_commands
    from pos_app.station.customer_cli import add_customer_commands
    from pos_app.station.link_cli import add_link_commands
    from pos_app.station.shift_cli import add_shift_commands
    from pos_app.station.subscription_cli import add_subscription_commands

    add_sandbox_commands(commands, _("the built-in sandbox of the payments service"))
    add_terminal_commands(commands)
    add_shift_commands(commands)
    add_staff_commands(commands)
    add_customer_commands(commands)
    add_link_commands(commands)
    add_subscription_commands(commands)
    add_charge_commands(commands)
    add_setup_command(commands)
    return parser


def argparse_speaks_ours() -> tuple[str, ...]:
    """argparse's own texts (``usage:``, its section titles, ``-h``'s help, its usage errors,
    which the commands print under ``error``) in the language in force: argparse looks
    each up through its module's ``_`` and ``ngettext`` when it uses it, so they go
    through the app's catalogs. Returns the texts the commands can show, marked here for
    the catalogs (argparse's own wording, as Python 3.12 writes it)."""
    import argparse

    from pos_app import i18n
    from pos_app.i18n import N_

    argparse._ = i18n._  # type: ignore[attr-defined]
    argparse.ngettext = i18n.ngettext  # type: ignore[attr-defined]
    return (
        N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
        N_("argument %(argument_name)s: %(message)s"), N_("unrecognized arguments: %s"),
        N_("not allowed with argument %s"), N_("ignored explicit argument %r"),
        N_("the following arguments are required: %s"), N_("one of the arguments %s is required"),
        N_("expected one argument"), N_("expected at most one argument"), N_("expected at least one argument"),
        N_("ambiguous option: %(option)s could match %(matches)s"), N_("unexpected option string: %s"),
        N_("invalid %(type)s value: %(value)r"), N_("invalid choice: %(value)r (choose from %(choices)s)"),
        N_("can't open '%(filename)s': %(error)s"),
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if set(argv) <= {"--sandbox"}:  # the app: no command's parser is built (their imports take ~0.5 s)
        return run_app(sandbox=bool(argv))
    speak_store_language()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        if argv and argv[0] in ("terminal", "receipt", "shift", "staff", "setup", "customer", "link", "subscription",
                                "ach", "bulk-charge"):
            import json

            sys.stdout.write(json.dumps({"outcome": "invalid", "error": str(error)}) + "\n")
        else:
            sys.stderr.write(f"{error}\n")
        return 1
    if args.profile:
        os.environ["POS_PROFILE"] = args.profile
    if args.self_test:
        from pos_app.self_test import run_self_test

        return run_self_test()
    if args.command is None:
        return run_app(sandbox=args.sandbox)
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        return 130


def speak_store_language() -> None:
    """The commands' messages (and their help) in the store's language."""
    from pos_app import i18n
    from pos_app.profile import profile_language

    language = profile_language()
    i18n.use_store_language(language)
    i18n.use_screen_language(language)


def run_app(*, sandbox: bool) -> int:
    from pos_app.ui.launch import main as app_main  # Qt is loaded only for the app itself

    return app_main(sandbox=sandbox)


if __name__ == "__main__":
    sys.exit(main())
