"""``pos-app setup``: provisions a station from a script (``pos_app.provisioning``'s
``check_setup`` and ``provision``), the key-hash read from stdin, never from the command
line; one JSON object on stdout, exit 0 ok, 1 invalid."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from typing import Any

from pos_app.config import GATEWAYS
from pos_app.i18n import _
from pos_app.profile import ConfigError
from pos_app.provisioning import SetupError, check_setup, provision
from pos_app.staff.cli import os_operator

EXIT_OK = 0
EXIT_INVALID = 1


def add_setup_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    setup = commands.add_parser(
        "setup", help=_("write store.toml and put the key-hash into the OS keyring (JSON on stdout)"),
        description=_("Write <data dir>/store.toml and store the key-hash in the OS keyring. The key-hash is "
                      "read from stdin, never from the command line. Prints one JSON object; exit 0 ok, 1 invalid."))
    setup.add_argument("--base-url", required=True, help=_("the payment service's address (https://...)"))
    setup.add_argument("--store-id", required=True)
    setup.add_argument("--station-id", required=True)
    setup.add_argument("--store-name", default="")
    setup.add_argument("--terminal", help=_("this station's payment terminal id"))
    setup.add_argument("--printer", help=_("the receipt printer's name in the OS print system"))
    setup.add_argument("--gateway", default="auto", choices=GATEWAYS)
    setup.add_argument("--key-from-stdin", required=True, action="store_true",
                       help=_("read the key-hash from the first line of stdin (from a terminal: without echo)"))
    setup.set_defaults(handler=run_setup_command)


def run_setup_command(args: argparse.Namespace) -> int:
    from pos_app.profile import data_dir

    try:
        setup = check_setup(base_url=args.base_url, store_id=args.store_id, station_id=args.station_id,
                            store_name=args.store_name, terminal_id=args.terminal, printer=args.printer,
                            gateway=args.gateway)
        key = _read_key()
        result = provision(data_dir(), setup, key, by=os_operator())
        payload: dict[str, Any] = {"outcome": "ok", **result.to_json(), "profile": setup.entries()}
        code = EXIT_OK
    except ConfigError as error:
        payload, code = {"outcome": "invalid", "error": str(error)}, EXIT_INVALID
    sys.stdout.write(json.dumps(payload, sort_keys=True) + "\n")
    sys.stdout.flush()
    return code


def _read_key() -> str:
    if sys.stdin is None:
        raise SetupError(_("no stdin to read the key-hash from"))
    if sys.stdin.isatty():
        return getpass.getpass(_("key-hash: "))
    line = sys.stdin.readline()
    if not line.strip():
        raise SetupError(_("no key-hash on stdin: pipe it in, e.g. {example}").format(
            example="`printf '%s\\n' \"$KEY\" | pos-app setup ... --key-from-stdin`"))  # not for people
    return line
