"""The kill -9 tests' worker: a child process (``python -m MODULE ARGS``) that says its steps
on stdout, one word and its values a line, and is killed with SIGKILL after the one asked
for (no close, no finally, no Python shutdown)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_until_killed(module: str, args: list[str], after: str) -> dict[str, list[str]]:
    """What the worker said up to the step ``after`` (each step's word → its values); the
    worker is then killed with SIGKILL."""
    child = subprocess.Popen([sys.executable, "-m", module, *args], cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    said: dict[str, list[str]] = {}
    try:
        assert child.stdout is not None
        for line in child.stdout:
            word, *rest = line.split()
            said[word] = rest
            if word == after:
                break
        assert after in said, f"the worker stopped before {after!r}: {said}"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                stream.close()
    return said
