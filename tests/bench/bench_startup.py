"""Start-up: the real app to its interactive sale screen vs a bare PySide6 window; its memory.

Run with ``.venv/bin/python -m tests.bench.bench_startup [--runs N] [--profile]``; ``main()``
prints and returns the figures.

Targets (issue): start to interactive sale screen ≤ 1.5 × a bare PySide6 window's start;
resident memory with the 100,000-item catalog ≤ 250 MB.

What is measured, honestly (every figure from fresh processes, ``QT_QPA_PLATFORM=offscreen``):
- Time runs from the parent's ``time.monotonic()`` taken just before it starts the child
  (handed over in ``POS_BENCH_T0``; CLOCK_MONOTONIC is one clock for every process on
  Linux) to the child's own ``time.monotonic()`` at each milestone: interpreter start,
  ``site``, imports and all are inside.
- Baseline (``bare``): a child that imports ``PySide6.QtWidgets``, creates a ``QApplication``
  and a ``QMainWindow`` (1100 × 720, the app's size) holding a ``QLabel``, shows it and runs
  ``app.exec()`` until the label's first ``Paint`` event: the window is on screen.
- The app (``app``): a child that runs the real ``pos-app --sandbox`` entry
  (``pos_app.cli.main(["--sandbox"])``: the sandbox served in-process, training mode, the
  window on qasync). The child only creates the ``QApplication`` first (the app's
  ``main()`` takes the existing one: the same work, done a few lines earlier) to install an
  application event filter (the baseline runs under a like one). Milestones:
  ``sign_in_screen`` is the first ``Paint`` of the PIN field while it has the keyboard focus;
  then the child types ``1111`` and Enter as key events to the focus widget (it checks that
  this is the PIN field); ``sale_screen`` is the first ``Paint`` of the scan field while it
  has the focus: the cashier can scan. The window is then closed and the app must exit 0.
  No app code is changed or patched for these runs. The background catalog sync of the
  sandbox's 300 items runs meanwhile, as it does at every start.
- ``sign_in_check`` (Enter to sale screen) is mostly the deliberately slow scrypt check of
  the PIN; a cashier's own typing time is not in any figure (keys are sent at once). The
  target is judged on ``sale_screen_over_bare`` (ratio of medians, PIN check included);
  the ratios of the sign-in screen and of the sale screen less the PIN check are shown too.
- The data folder (``POS_DATA_DIR``) and the bytecode cache (``PYTHONPYCACHEPREFIX``, so
  that ``PYTHONDONTWRITEBYTECODE=1`` in a shell does not make every start compile pos_app
  from source: an installed app has its ``.pyc`` files) are fresh temporary folders; one
  start not counted creates both (demo staff, journal, catalog; every module compiled) and
  is reported as ``first_start_fresh_data_and_bytecode``. Baseline and app runs alternate,
  so drift and the neighbours' load hit both alike; medians of ``--runs``.
- Memory with 100,000 items: ``bench_catalog.make_items`` fills the training catalog (in a
  separate process), then the app starts on it. Its start-up sync is made to fail (the one
  patch, in the child: ``pos_app.station.counter.sync_catalog`` raises as if the service
  were unreachable; the app keeps its last copy, its offline path) so that the sandbox's 300
  items do not replace the 100,000. After sign-in the child types searches into the scan
  field and waits for results, then reads VmRSS (``rss_after_searches_mb``); VmHWM is the
  child's peak over its whole life, ``wait4`` gives ``ru_maxrss`` of that child alone.
- ``--profile`` (also done when the time target is missed): one app start under
  ``python -X importtime``: own import time per top-level package, and the chain of imports
  that first brought each costly third-party package in.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RUNS = 7
PIN = "1111"
TARGET_RATIO = 1.5
TARGET_RSS_MB = 250.0
SEARCHES = ("harbor organic app", "crème", "golden gate peanut", "eggs (doz", "old town iced")
CHILD_TIMEOUT_S = 60.0
MARK = "BENCH-STARTUP "
SHARED_OR_OURS = ("pos_app", "tests", "PySide6", "shiboken6", "shibokensupport")  # no import chain shown


# ---------------------------------------------------------------- in the child


def _now() -> float:
    """Seconds since the parent started this process (its clock reading, ``POS_BENCH_T0``)."""
    return round(time.monotonic() - float(os.environ.get("POS_BENCH_T0", "0")), 4)


def _rss_mb() -> dict[str, float]:
    """VmRSS (now) and VmHWM (peak so far) of this process in MB; ru_maxrss off Linux."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 if sys.platform != "darwin" else 1024 * 1024)
    figures = {"rss_mb": peak, "peak_mb": peak}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                figures["rss_mb"] = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                figures["peak_mb"] = int(line.split()[1]) / 1024
    except OSError:
        pass
    return {k: round(v, 1) for k, v in figures.items()}


def _report(marks: dict[str, Any]) -> None:
    sys.stdout.write(MARK + json.dumps(marks) + "\n")
    sys.stdout.flush()


def child_bare() -> None:
    """The baseline: a bare PySide6 window with a label, until it is painted."""
    marks: dict[str, Any] = {"python_ready": _now()}
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

    app = QApplication(sys.argv[:1])

    class Watch(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint and "window_shown" not in marks \
                    and watched.objectName() == "benchLabel":
                marks["window_shown"] = _now()
                marks["at_shown"] = _rss_mb()
                QTimer.singleShot(0, app.quit)
            return False

    watch = Watch()
    app.installEventFilter(watch)
    window = QMainWindow()
    label = QLabel("A bare PySide6 window")
    label.setObjectName("benchLabel")
    window.setCentralWidget(label)
    window.resize(1100, 720)
    window.show()
    app.exec()
    marks["exit_code"] = 0
    marks["at_end"] = _rss_mb()
    _report(marks)


def child_app(*, offline_catalog: bool = False) -> None:
    """The real ``pos-app --sandbox``, driven through its widgets to the sale screen."""
    marks: dict[str, Any] = {"python_ready": _now()}
    from PySide6.QtCore import QEvent, QObject, Qt, QTimer
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication, QWidget

    app = QApplication(sys.argv[:1])  # pos_app.ui.app.main() takes this one (QApplication.instance())
    keep: list[Any] = []

    def keys(widget: QWidget, text: str = "", key: Qt.Key | None = None) -> None:
        """Key press and release for each character (or one special key), as a keyboard sends them."""
        strokes = [(Qt.Key(ord(c.upper())) if c.isascii() and c.isprintable() else Qt.Key.Key_unknown, c)
                   for c in text]
        if key is not None:
            strokes.append((key, "\r" if key == Qt.Key.Key_Return else ""))
        for code, char in strokes:
            for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                QApplication.sendEvent(widget, QKeyEvent(kind, code, Qt.KeyboardModifier.NoModifier, char))

    def type_pin() -> None:
        field = QApplication.focusWidget()
        if field is None or field.objectName() != "pinField":
            marks["error"] = f"focus on {field and field.objectName()!r} at the sign-in screen, not the PIN field"
            give_up()
            return
        keys(field, PIN, Qt.Key.Key_Return)
        marks["pin_entered"] = _now()
        QTimer.singleShot(20_000, lambda: "sale_screen" in marks or give_up("no sale screen 20 s after the PIN"))

    def give_up(error: str = "") -> None:
        marks.setdefault("error", error)
        for widget in QApplication.topLevelWidgets():
            widget.close()

    def searches(window: QWidget) -> None:
        sale = window.sale  # type: ignore[attr-defined]
        pending = list(SEARCHES)
        found: list[int] = []

        def next_search() -> None:
            if not pending:
                marks["searches"] = {"typed": len(SEARCHES), "results": found,
                                     "catalog_items": window.counter.catalog.count()}  # type: ignore[attr-defined]
                marks["after_searches"] = _rss_mb()
                window.close()
                return
            text = pending.pop(0)
            for _ in range(len(sale.scan.text())):  # clear it with backspaces, as a cashier would
                keys(sale.scan, key=Qt.Key.Key_Backspace)
            keys(sale.scan, text)
            started = _now()

            def wait_results() -> None:
                if sale.results.count() or _now() - started > 5:
                    found.append(sale.results.count())
                    next_search()
                else:
                    QTimer.singleShot(10, wait_results)

            QTimer.singleShot(10, wait_results)

        next_search()

    class Watch(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
            if event.type() != QEvent.Type.Paint:
                return False
            name = watched.objectName()
            if name == "pinField" and "sign_in_screen" not in marks and watched.hasFocus():  # type: ignore[attr-defined]
                marks["sign_in_screen"] = _now()
                marks["at_sign_in_screen"] = _rss_mb()
                QTimer.singleShot(0, type_pin)
            elif name == "scanField" and "sale_screen" not in marks and watched.hasFocus():  # type: ignore[attr-defined]
                marks["sale_screen"] = _now()
                marks["at_sale_screen"] = _rss_mb()
                window = watched.window()  # type: ignore[attr-defined]
                keep.append(window)
                QTimer.singleShot(0, (lambda: searches(window)) if offline_catalog else window.close)
            return False

    watch = Watch()
    app.installEventFilter(watch)
    if offline_catalog:
        import pos_app.station.counter as counter_module

        async def unreachable(*args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("bench: the catalog service is kept unreachable; the local copy serves")

        counter_module.sync_catalog = unreachable  # type: ignore[assignment]
    from pos_app.cli import main as pos_app_main

    marks["exit_code"] = pos_app_main(["--sandbox"])
    marks["exited"] = _now()
    marks["at_end"] = _rss_mb()
    _report(marks)


def child_fill(path: str) -> None:
    """Fill the catalog at ``path`` with bench_catalog's 100,000 items (not an app process)."""
    from datetime import UTC, datetime

    from pos_app.catalog import Catalog
    from tests.bench.bench_catalog import CATEGORIES, TAXES, make_items

    started = _now()
    with Catalog.open(path) as catalog:
        count = catalog.replace_all(make_items(), taxes=TAXES, categories=CATEGORIES, synced_at=datetime.now(UTC))
    _report({"items": count, "fill_s": round(_now() - started, 2)})


# ---------------------------------------------------------------- in the parent


def _child_env(data_dir: Path, bytecode: Path) -> dict[str, str]:
    """The child's environment: offscreen Qt, its own data folder and bytecode cache."""
    env = dict(os.environ)
    env.update(QT_QPA_PLATFORM="offscreen", POS_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1",
               PYTHONPYCACHEPREFIX=str(bytecode))
    for name in ("PYTHONPROFILEIMPORTTIME", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    return env


def _spawn(mode: str, data_dir: Path, *args: str, bytecode: Path,
           python_flags: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run a child: its milestones (seconds since it was started) and ``wait4``'s ru_maxrss
    of that child alone."""
    import subprocess
    import tempfile
    import threading

    env = _child_env(data_dir, bytecode)
    code = f"from tests.bench.bench_startup import _child; _child({[mode, *args]!r})"
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        env["POS_BENCH_T0"] = repr(started)
        process = subprocess.Popen([sys.executable, *python_flags, "-c", code], cwd=ROOT, env=env,
                                   stdout=out, stderr=err)
        watchdog = threading.Timer(CHILD_TIMEOUT_S, process.kill)
        watchdog.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            watchdog.cancel()
        ended = time.monotonic()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    lines = [line[len(MARK):] for line in stdout.splitlines() if line.startswith(MARK)]
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"bench child {mode} exited {process.returncode}: {stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    if result.get("error") or result.get("exit_code", 0) != 0:
        raise RuntimeError(f"bench child {mode}: {result.get('error') or result['exit_code']}; {stderr[-2000:]}")
    result["process_s"] = round(ended - started, 4)
    result["ru_maxrss_mb"] = round(usage.ru_maxrss / 1024, 1)
    result["stderr"] = stderr
    return result


def _median(runs: list[dict[str, Any]], key: str, sub: str | None = None) -> float:
    import statistics

    values = [run[key][sub] if sub else run[key] for run in runs]
    return round(statistics.median(values), 3 if sub is None else 1)


def _app_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    for run in runs:
        run["sign_in_check_s"] = run["sale_screen"] - run["pin_entered"]
    return {
        "runs": len(runs),
        "python_ready_s": _median(runs, "python_ready"),
        "sign_in_screen_s": _median(runs, "sign_in_screen"),
        "sale_screen_s": _median(runs, "sale_screen"),
        "sign_in_check_s": _median(runs, "sign_in_check_s"),
        "sale_screen_all_s": sorted(round(run["sale_screen"], 3) for run in runs),
        "rss_at_sign_in_screen_mb": _median(runs, "at_sign_in_screen", "rss_mb"),
        "rss_at_sale_screen_mb": _median(runs, "at_sale_screen", "rss_mb"),
        "peak_rss_mb": _median(runs, "at_end", "peak_mb"),
        "ru_maxrss_mb": _median(runs, "ru_maxrss_mb"),
        "process_s": _median(runs, "process_s"),
    }


def import_profile(data_dir: Path, bytecode: Path, top: int = 10) -> dict[str, Any]:
    """One app start under ``-X importtime`` (which slows imports a little): own import time
    summed per top-level package (every module counted once), and for the costliest other
    packages the chain of imports that brought them in first."""
    run = _spawn("app", data_dir, bytecode=bytecode, python_flags=("-X", "importtime"))
    rows: list[tuple[int, int, str]] = []  # depth, own µs, module; children come before their importer
    for line in run["stderr"].splitlines():
        fields = line.removeprefix("import time:").split("|")
        if line.startswith("import time:") and len(fields) == 3 and fields[0].strip().isdigit():
            name = fields[2].rstrip()
            rows.append(((len(name) - len(name.lstrip()) - 1) // 2, int(fields[0]), name.strip()))
    own: dict[str, int] = {}
    for _, self_us, name in rows:
        own[name.split(".")[0]] = own.get(name.split(".")[0], 0) + self_us
    packages = sorted(own.items(), key=lambda kv: -kv[1])[:top]
    chains: dict[str, str] = {}
    for index, (depth, _, name) in enumerate(rows):
        package = name.split(".")[0]
        if package in dict(packages) and package not in chains and package not in SHARED_OR_OURS:
            chain, level = [package], depth
            for up_depth, _, up_name in rows[index + 1:]:
                if up_depth < level:
                    level = up_depth
                    if up_name.split(".")[0] != chain[-1].split(".")[0] or up_name.startswith("pos_app"):
                        chain.append(up_name)
                if up_depth == 0:
                    break
            chains[package] = " <- ".join(chain)
    return {
        "sale_screen_s_under_importtime": round(run["sale_screen"], 3),
        "imports_total_ms": round(sum(self_us for _, self_us, _ in rows) / 1000, 1),
        "own_import_ms_per_package": {name: round(us / 1000, 1) for name, us in packages},
        "first_imported_by": chains,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    import argparse
    import statistics
    import tempfile

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS, help=f"starts of each kind (default {RUNS})")
    parser.add_argument("--profile", action="store_true", help="profile the imports of one app start in any case")
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        data_dir, pyc = Path(tmp) / "data", Path(tmp) / "pyc"
        # not counted: creates the training data (demo staff, journal, catalog) and the bytecode
        first = _spawn("app", data_dir, bytecode=pyc)
        _spawn("bare", data_dir, bytecode=pyc)
        bare_runs, app_runs = [], []
        for _ in range(args.runs):  # alternating: drift and neighbours' load hit both alike
            bare_runs.append(_spawn("bare", data_dir, bytecode=pyc))
            app_runs.append(_spawn("app", data_dir, bytecode=pyc))
        bare = {
            "runs": len(bare_runs),
            "python_ready_s": _median(bare_runs, "python_ready"),
            "window_shown_s": _median(bare_runs, "window_shown"),
            "window_shown_all_s": sorted(round(run["window_shown"], 3) for run in bare_runs),
            "rss_at_shown_mb": _median(bare_runs, "at_shown", "rss_mb"),
            "peak_rss_mb": _median(bare_runs, "at_end", "peak_mb"),
        }
        app = _app_summary(app_runs)
        base = bare["window_shown_s"]
        pair_ratios = [a["sale_screen"] / b["window_shown"] for a, b in zip(app_runs, bare_runs, strict=True)]
        ratios = {
            "sale_screen_over_bare": round(app["sale_screen_s"] / base, 2),
            "sale_screen_over_bare_median_of_pairs": round(statistics.median(pair_ratios), 2),
            "sign_in_screen_over_bare": round(app["sign_in_screen_s"] / base, 2),
            "sale_screen_less_pin_check_over_bare": round((app["sale_screen_s"] - app["sign_in_check_s"]) / base, 2),
            "target_max": TARGET_RATIO,
        }
        profile = None
        if args.profile or ratios["sale_screen_over_bare"] > TARGET_RATIO:
            profile = import_profile(data_dir, pyc)
        fill = _spawn("fill", data_dir, str(data_dir / "training" / "catalog.sqlite3"), bytecode=pyc)
        big_runs = [_spawn("app", data_dir, "offline", bytecode=pyc) for _ in range(2)]
    big = _app_summary(big_runs)
    big.update(catalog_items=fill["items"], fill_s=fill["fill_s"], searches=big_runs[-1]["searches"],
               rss_after_searches_mb=max(run["after_searches"]["rss_mb"] for run in big_runs),
               peak_rss_mb=max(run["at_end"]["peak_mb"] for run in big_runs),
               ru_maxrss_mb=max(run["ru_maxrss_mb"] for run in big_runs))
    results: dict[str, Any] = {
        "bare_pyside6_window": bare,
        "app_sandbox_training": app,
        "ratios": ratios,
        "first_start_fresh_data_and_bytecode": {k: round(first[k], 3) for k in ("sign_in_screen", "sale_screen")},
        "catalog_100k_offline_start": big,
        "memory": {
            "bare_window_rss_mb": bare["rss_at_shown_mb"],
            "app_rss_at_sign_in_screen_mb": app["rss_at_sign_in_screen_mb"],
            "app_peak_rss_mb": app["peak_rss_mb"],
            "app_100k_rss_after_searches_mb": big["rss_after_searches_mb"],
            "app_100k_peak_rss_mb": big["peak_rss_mb"],
            "target_max_mb": TARGET_RSS_MB,
        },
        "targets_met": {
            "sale_screen_le_1_5x_bare": ratios["sale_screen_over_bare"] <= TARGET_RATIO,
            "rss_with_100k_catalog_le_250mb": big["peak_rss_mb"] <= TARGET_RSS_MB,
        },
    }
    if profile is not None:
        results["import_profile"] = profile
    results["bench_s"] = round(time.monotonic() - started, 1)
    print(json.dumps(results, indent=2))
    return results


def _child(argv: list[str]) -> None:
    mode, *rest = argv
    if mode == "bare":
        child_bare()
    elif mode == "app":
        child_app(offline_catalog=rest == ["offline"])
    elif mode == "fill":
        child_fill(rest[0])
    else:
        raise SystemExit(f"unknown child mode {mode!r}")


if __name__ == "__main__":
    main()
