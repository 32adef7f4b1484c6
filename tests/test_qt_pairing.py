"""Regression: the pinned PySide6/Python pair must not leak on Python slots.

PySide6 6.12.0 on Python 3.11 drops a reference to True/None on every Python slot called
from a signal, and the process aborts (exit 134) after a few thousand calls. The project
pins PySide6 6.12.0 with Python >= 3.12, where this does not happen. The emits run in a
child process so that an abort is seen as a failing exit code, not a dead test run.
"""

import subprocess
import sys

SCRIPT = r"""
import sys
from PySide6.QtCore import QCoreApplication, QObject, Signal

class Emitter(QObject):
    fired = Signal(int)

app = QCoreApplication([])
emitter = Emitter()
seen = []
emitter.fired.connect(lambda value: seen.append(value))
before = (sys.getrefcount(True), sys.getrefcount(None))
for i in range(10_000):
    emitter.fired.emit(i)
after = (sys.getrefcount(True), sys.getrefcount(None))
print(len(seen), after[0] - before[0], after[1] - before[1])
"""


def test_ten_thousand_signal_emits_to_a_python_slot_do_not_leak():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr[-500:]}"
    calls, true_drift, none_drift = map(int, result.stdout.split())
    assert calls == 10_000
    assert abs(true_drift) < 50 and abs(none_drift) < 50, result.stdout
