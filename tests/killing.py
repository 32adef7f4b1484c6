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


def run_until_killed(module: str, args: list[str], after: str, *, paced: bool = False) -> dict[str, list[str]]:
    """What the worker said up to the step ``after`` (each step's word → its values); the
    worker is then killed with SIGKILL. ``paced``: the worker waits for a line on stdin
    before each next step, sent only while ``after`` is not reached (so the kill lands
    between two steps, not in the next one's first instants)."""
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
            if paced:
                assert child.stdin is not None
                child.stdin.write("go\n")
                child.stdin.flush()
        assert after in said, f"the worker stopped before {after!r}: {said}"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                stream.close()
    return said
