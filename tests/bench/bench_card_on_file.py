"""The card-on-file chaos run at a larger size: counts by fault and outcome, double charges,
lost outcomes and any problem found."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from pos_app.sandbox.server import SandboxConfig, SandboxServer
from tests.terminal.card_on_file_chaos import run_card_on_file_chaos


def main(charges: int = 200) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp, SandboxServer(SandboxConfig(s_delay=(0.2, 0.6), seed=5)) as sandbox:
        start = time.monotonic()
        report = asyncio.run(run_card_on_file_chaos(sandbox, Path(tmp), charges=charges, customers=6, seed=5))
        summary = report.summary() | {"seconds": round(time.monotonic() - start, 1)}
    print("card-on-file chaos:", summary)
    return summary


if __name__ == "__main__":
    main()
