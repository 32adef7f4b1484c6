"""The core packages import without Qt: a fresh interpreter proves PySide6 stays unloaded."""

import ast
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
    "pos_app.drawer",
    "pos_app.i18n",
    "pos_app.journal.words",
    "pos_app.give_way",
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


def _module_name(path, root) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The pos_app modules an ``import`` or ``from ... import`` statement names (a name
    imported from a package counts as its submodule when there is one)."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
            base = ".".join(package + ([base] if base else []))
        targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    found = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != module:
            found.add(target)
    return found


def test_no_import_circle_among_the_apps_modules():
    """Every import statement of every pos_app module, wherever it stands (top level, under
    ``if TYPE_CHECKING``, or inside a function: a lazy import does not open a circle, it
    hides it), makes an edge; the graph has no cycle."""
    import graphlib
    from pathlib import Path

    root = Path(__file__).parent.parent / "pos_app"
    paths = {_module_name(path, root): path for path in root.rglob("*.py")}
    known = set(paths)
    graph = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[module] = set().union(*(
            _imported(node, module, path.name == "__init__.py", known)
            for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
        ))
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        pytest.fail(f"import circle: {' -> '.join(error.args[1])}")


def test_no_test_module_imports_another():
    """Shared test helpers live once (a conftest, a helper module): a test module imported by
    another runs its tests' imports twice and ties two files' fixtures together."""
    from pathlib import Path

    root = Path(__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tests."):
                if node.module.rsplit(".", 1)[-1].startswith("test_"):
                    offenders.append(f"{path.relative_to(root)} imports {node.module}")
    assert offenders == [], offenders
