"""The installed bundle against the app from source: start time, and the bundle's sizes.

Run with ``.venv/bin/python -m tests.bench bundle`` (or ``-m tests.bench.bench_bundle
[--runs N]``); ``main()`` prints and returns the figures. It needs ``dist/demo/`` (``make
package``); when that is missing it is built first if PyInstaller is installed, else the
bench says so and measures nothing.

Target (issue 9): bundled start ≤ 1.3 × start from source, in the same run.

What is measured (fresh processes, alternating source and bundle, medians of ``--runs``;
one unmeasured run of each first, so that both start warm: source with its ``.pyc`` files
written, the bundle's files in the page cache):
- ``version``: ``pos-app --version`` from spawn to exit: the interpreter (the bundle's
  bootloader unpacks nothing in a one-folder build, it maps ``_internal``), the CLI's
  imports, argparse.
- ``sale_screen``: ``pos-app --self-test`` from spawn to the moment the parent reads its
  ``self-test: sale screen shown`` line: the sandbox started, Qt loaded (offscreen), the
  journal, catalog and staff opened, the catalog synced over loopback HTTP, the main
  window shown and the demo cashier signed in (scrypt). This is the app's start to a
  usable sale screen, the same code from source and bundled. ``self_test_total``: to
  exit (a sale and its receipt on top).
Source runs are ``<venv python> -m pos_app``; the bundle runs ``dist/demo/pos-app``. Both
with ``QT_QPA_PLATFORM=offscreen`` (the self-test sets it itself) and no ``POS_*`` vars.
Sizes come from ``dist/demo-bundle.json`` (written by ``packaging/build.py``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "dist" / "demo"
RUNS = 5
TARGET_RATIO = 1.3
MARK = "self-test: sale screen shown"
TIMEOUT_S = 120.0


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("POS_")}


def _timed_version(command: list[str]) -> float:
    started = time.monotonic()
    done = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=TIMEOUT_S, env=_env())
    elapsed = time.monotonic() - started
    if done.returncode != 0 or not done.stdout.startswith("pos-app "):
        raise RuntimeError(f"{command} --version failed: {done.stdout}{done.stderr}")
    return elapsed


def _timed_self_test(command: list[str]) -> tuple[float, float]:
    """Seconds to the sale-screen line, and to exit (which must be 0)."""
    started = time.monotonic()
    child = subprocess.Popen([*command, "--self-test"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             env=_env(), cwd=ROOT)
    assert child.stdout is not None
    shown = None
    for line in child.stdout:
        if shown is None and line.startswith(MARK):
            shown = time.monotonic() - started
    code = child.wait(timeout=TIMEOUT_S)
    total = time.monotonic() - started
    if code != 0 or shown is None:
        raise RuntimeError(f"{command} --self-test failed (exit {code})")
    return shown, total


def _ensure_bundle() -> str | None:
    """None when ``dist/demo/pos-app`` is there (built now if it can be); else why not."""
    if (BUNDLE / "pos-app").is_file():
        return None
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        return "no dist/demo/pos-app and no PyInstaller in this venv: run `make package` first"
    done = subprocess.run([sys.executable, str(ROOT / "packaging" / "build.py"), "--store", "demo"], cwd=ROOT)
    return None if done.returncode == 0 and (BUNDLE / "pos-app").is_file() else "the demo bundle did not build"


def main(runs: int = RUNS) -> dict[str, Any]:
    missing = _ensure_bundle()
    if missing:
        result: dict[str, Any] = {"measured": False, "why": missing}
        print(json.dumps(result))
        return result
    commands = {"source": [sys.executable, "-m", "pos_app"], "bundle": [str(BUNDLE / "pos-app")]}
    for command in commands.values():  # warm-up, not counted
        _timed_version(command)
        _timed_self_test(command)
    times: dict[str, dict[str, list[float]]] = {k: {"version": [], "sale_screen": [], "self_test_total": []}
                                                for k in commands}
    for _ in range(runs):
        for kind, command in commands.items():  # alternating: drift hits both alike
            times[kind]["version"].append(_timed_version(command))
            shown, total = _timed_self_test(command)
            times[kind]["sale_screen"].append(shown)
            times[kind]["self_test_total"].append(total)
    medians = {kind: {name: round(statistics.median(values), 3) for name, values in figures.items()}
               for kind, figures in times.items()}
    ratios = {name: round(medians["bundle"][name] / medians["source"][name], 2) for name in medians["bundle"]}
    sizes_file = ROOT / "dist" / "demo-bundle.json"
    sizes = json.loads(sizes_file.read_text(encoding="utf-8")) if sizes_file.exists() else {}
    result = {
        "measured": True, "runs": runs, "median_s": medians, "bundle_over_source": ratios,
        "target": f"sale_screen ratio <= {TARGET_RATIO}", "target_met": ratios["sale_screen"] <= TARGET_RATIO,
        "sizes_mb": {k: sizes.get(k) for k in ("unpacked_mb", "compressed_mb")}, "build_s": sizes.get("build_s"),
    }
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    count = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else RUNS
    main(count)
