"""``pos-app sandbox serve``: run the sandbox service from the command line.

Prints the base URL and both keys, serves until Ctrl-C, and exits cleanly; logs into
``<data dir>/logs/sandbox.log``. A non-loopback host needs ``--allow-remote``; bad knob
names or values are refused with a message and exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from pos_app.logs import ProcessKind, configure_logging
from pos_app.profile import data_dir
from pos_app.sandbox.config import SandboxConfig
from pos_app.sandbox.faults import KNOBS, parse_knob_text


def add_sandbox_commands(subparsers: argparse._SubParsersAction, summary: str) -> None:
    """``pos-app sandbox``; ``summary`` is its line in ``pos-app --help``, in the language of
    the other commands' lines (the sandbox's own texts are the service's: English)."""
    sandbox = subparsers.add_parser("sandbox", help=summary)
    commands = sandbox.add_subparsers(dest="sandbox_command", metavar="COMMAND", required=True)
    knob_help = "; ".join(f"{k.name} ({k.help}, default {k.default})" for k in KNOBS.values())
    serve = commands.add_parser(
        "serve",
        help="serve the sandbox until Ctrl-C",
        description="Serve the sandbox service (merchants S and B) until Ctrl-C.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=0, help="port (default 0: a free port)")
    serve.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    serve.add_argument("--key-s", default=SandboxConfig.key_s, help="key-hash of the type S merchant")
    serve.add_argument("--key-b", default=SandboxConfig.key_b, help="key-hash of the type B merchant")
    serve.add_argument(
        "--s-delay",
        nargs=2,
        type=float,
        metavar=("MIN", "MAX"),
        default=SandboxConfig.s_delay,
        help="seconds from type S pay to message complete (default 2 4)",
    )
    serve.add_argument("--latency-ms", type=int, default=0, help="delay added before every answer")
    serve.add_argument("--seed", type=int, default=0, help="seed of ids, cards and catalogs")
    serve.add_argument(
        "--fault", action="append", default=[], metavar="NAME=VALUE", help=f"set a fault knob: {knob_help}"
    )
    serve.set_defaults(handler=serve_command)


def serve_command(args: argparse.Namespace) -> int:
    try:
        faults = dict(parse_knob_text(text) for text in args.fault)
        config = SandboxConfig(
            host=args.host,
            port=args.port,
            allow_remote=args.allow_remote,
            key_s=args.key_s,
            key_b=args.key_b,
            s_delay=(args.s_delay[0], args.s_delay[1]),
            latency_ms=args.latency_ms,
            seed=args.seed,
            faults=faults,
        )
        from pos_app.sandbox.server import SandboxServer  # the web stack only when serving

        server = SandboxServer(config)
    except ValueError as exc:
        message = str(exc).replace("set allow_remote", "pass --allow-remote")
        print(f"pos-app sandbox: {message}", file=sys.stderr)
        return 1

    def announce(base_url: str) -> None:
        print(f"Sandbox serving at {base_url}", flush=True)
        print(f"  type S merchant (Corner Market) key-hash: {config.key_s}", flush=True)
        print(f"  type B merchant (Harbor Books)  key-hash: {config.key_b}", flush=True)
        print("Press Ctrl-C to stop.", flush=True)

    try:
        configure_logging(data_dir(), ProcessKind.SANDBOX)
    except OSError as exc:
        print(f"pos-app sandbox: cannot write its log ({exc.strerror or exc}): set POS_DATA_DIR", file=sys.stderr)
        return 1
    try:
        asyncio.run(server.serve(ready=announce))
    except KeyboardInterrupt:
        print("Sandbox stopped.", flush=True)
    except OSError as exc:
        print(f"pos-app sandbox: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
