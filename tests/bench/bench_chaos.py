"""The chaos run at a larger size (issue 21: at least 1,000 sales, no problem): orders rung
and driven to an end, counts by plan, fault, outcome and refusal, and any problem found."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from pos_app.sandbox.server import SandboxConfig, SandboxServer
from tests.terminal.chaos import run_chaos


def main(sales: int = 1000) -> dict:
    with tempfile.TemporaryDirectory() as tmp, SandboxServer(SandboxConfig(s_delay=(0.2, 0.6), seed=5)) as sandbox:
        start = time.monotonic()
        report = asyncio.run(run_chaos(sandbox, Path(tmp), sales=sales, seed=5))
        summary = report.summary() | {"seconds": round(time.monotonic() - start, 1)}
    print("chaos:", summary)
    return summary


if __name__ == "__main__":
    main()
