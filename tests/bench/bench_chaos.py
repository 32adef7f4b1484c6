"""The chaos run at a larger size: counts by fault and outcome, and any problem found."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from pos_app.sandbox.server import SandboxConfig, SandboxServer
from tests.terminal.chaos import run_chaos


def main(sales: int = 300) -> dict:
    with tempfile.TemporaryDirectory() as tmp, SandboxServer(SandboxConfig(s_delay=(0.2, 0.6), seed=5)) as sandbox:
        start = time.monotonic()
        report = asyncio.run(run_chaos(sandbox, Path(tmp), sales=sales, seed=5))
        summary = report.summary() | {"seconds": round(time.monotonic() - start, 1)}
    print("chaos:", summary)
    return summary


if __name__ == "__main__":
    main()
