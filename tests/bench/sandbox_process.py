"""A sandbox in its own process, so load from the benchmark does not share its GIL."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from contextlib import contextmanager

import httpx


@contextmanager
def sandbox_process(*extra: str):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "pos_app", "sandbox", "serve", "--port", str(port), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base_url}/_sandbox/faults", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"sandbox did not start: {process.stderr.read().decode()[-500:]}") from None
                time.sleep(0.1)
        yield base_url
    finally:
        process.terminate()
        process.wait(timeout=10)
