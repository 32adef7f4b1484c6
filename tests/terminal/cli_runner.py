"""Runs ``pos-app terminal …`` as a real child process against the sandbox."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass
class CliRun:
    code: int
    payload: dict
    stdout: str
    stderr: str


def cli_env(sandbox, merchant: str, data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("POS_")}
    env.update(POS_BASE_URL=sandbox.base_url, POS_KEY_HASH=sandbox.keys[merchant], POS_DATA_DIR=str(data_dir),
               POS_GATEWAY="auto", **extra)
    return env


def cli_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pos_app", *args]


def run_cli(env: dict[str, str], *args: str, timeout: float = 60) -> CliRun:
    done = subprocess.run(cli_command(*args), env=env, capture_output=True, text=True, timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one JSON line, got {done.stdout!r} / {done.stderr!r}"
    return CliRun(done.returncode, json.loads(lines[0]), done.stdout, done.stderr)
