"""The core packages import without Qt: a fresh interpreter proves PySide6 stays unloaded."""

import os
import subprocess
import sys

import pytest

CORE = [
    "pos_app.api",
    "pos_app.sandbox",
    "pos_app.journal",
    "pos_app.terminal",
    "pos_app.station",
    "pos_app.cli",
    "pos_app.staff",
    "pos_app.receipts",
    "pos_app.catalog",
    "pos_app.cart",
    "pos_app.config",
    "pos_app.profile",
    "pos_app.money",
]


@pytest.mark.parametrize("module", CORE)
def test_core_package_does_not_import_qt(module):
    code = (
        f"import sys, importlib; importlib.import_module({module!r}); "
        "bad = sorted(m for m in sys.modules "
        "if m.startswith(('PySide6', 'shiboken6', 'qasync')) or m.startswith('pos_app.ui')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"{module} pulled in Qt: {result.stdout}{result.stderr}"


def test_only_the_ui_import_module_imports_qt():
    from pathlib import Path

    root = Path(__file__).parent.parent / "pos_app"
    offenders = [
        str(path.relative_to(root)) for path in root.rglob("*.py")
        if path != root / "ui" / "qt.py"
        and any(line.lstrip().startswith(("import PySide6", "from PySide6", "import qasync", "from qasync"))
                for line in path.read_text(encoding="utf-8").splitlines())
    ]
    assert offenders == [], f"Qt is imported outside pos_app/ui/qt.py: {offenders}"


def test_the_settings_files_are_read_without_dataclasses_or_the_client():
    """``pos_app.profile`` is read before the app's first screen is shown: only light imports."""
    code = ("import sys, pos_app.profile; "
            "print(sorted(m for m in ('dataclasses', 'httpx', 'pydantic', 'logging') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "[]"


def test_the_first_screen_does_not_load_babel():
    """Babel and its locale data (tens of milliseconds) load on a worker thread once the
    sign-in screen is up (the counter opens with the store's money format), never before."""
    code = "import sys, pos_app.ui.launch; print(sorted({'babel', 'pos_app.money'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.stdout.strip() == "[]"
