"""The chaos run at a larger size (issue 21: at least 1,000 sales, no problem): orders rung
and driven to an end, counts by plan, fault, outcome and refusal, and any problem found.

The sandbox runs in its own process (its answers do not share the run's GIL); the run
reaches its statistics and knobs through its admin routes."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from pos_app.sandbox.server import SandboxConfig
from tests.bench.sandbox_process import sandbox_process
from tests.terminal.chaos import run_chaos


class SandboxOverHttp:
    """What the chaos run uses of a sandbox (``SandboxServer``'s ``base_url``, ``keys``,
    ``stats`` and ``set_faults``) for one in another process."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.keys = {"S": SandboxConfig.key_s, "B": SandboxConfig.key_b}
        self._http = httpx.Client(base_url=base_url, timeout=10)

    def stats(self) -> dict[str, Any]:
        return self._answer(self._http.get("/_sandbox/stats"))

    def set_faults(self, **knobs: int | float) -> dict[str, Any]:
        return self._answer(self._http.post("/_sandbox/faults", json=knobs))

    def close(self) -> None:
        self._http.close()

    @staticmethod
    def _answer(response: httpx.Response) -> dict[str, Any]:
        response.raise_for_status()
        return response.json()


def main(sales: int = 1000) -> dict:
    with tempfile.TemporaryDirectory() as tmp, sandbox_process("--s-delay", "0.2", "0.6", "--seed", "5") as url:
        sandbox = SandboxOverHttp(url)
        try:
            start = time.monotonic()
            report = asyncio.run(run_chaos(sandbox, Path(tmp), sales=sales, seed=5))
            summary = report.summary() | {"seconds": round(time.monotonic() - start, 1)}
        finally:
            sandbox.close()
    print("chaos:", summary)
    return summary


if __name__ == "__main__":
    main()
