"""Finds texts for people that are not wrapped for translation (``tests/test_translations.py``).

A text is a string literal or f-string that is not a docstring and not inside ``_()``,
``N_()`` or ``ngettext()``:

- in ``pos_app/ui``, any text with a letter given to a Qt call that shows it (``setText``,
  ``QLabel``, ``addRow``, a header, a tooltip, an accessible name...);
- anywhere in ``pos_app`` (but the sandbox, whose texts are the service's), a text of two
  words or more: a sentence, a label, a message.

Not texts for people, so not reported: SQL, log messages (``log.info(...)``), the arguments
of ``re``, ``struct``, ``subprocess`` and dictionary keys of JSON, and any line that ends with
the comment ``# not for people`` (the reason, if not obvious, in a comment above it).

Run ``python -m tests.i18n_strings [files or folders]`` to list them.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pos_app"
SKIPPED = ("sandbox",)
MARKER = "# not for people"
WRAPPERS = {"_", "N_", "ngettext", "gettext"}
QT_TEXT_CALLS = {
    "setText", "setWindowTitle", "setToolTip", "setStatusTip", "setWhatsThis", "setPlaceholderText",
    "setAccessibleName", "setAccessibleDescription", "setTitle", "setLabelText", "setHorizontalHeaderLabels",
    "setVerticalHeaderLabels", "addRow", "addTab", "setTabText", "setItemText", "addItem", "addItems", "QLabel",
    "QPushButton", "QCheckBox", "QRadioButton", "QGroupBox", "QAction", "information", "warning", "critical",
    "question", "showMessage", "setPrefix", "setSuffix", "setSpecialValueText", "setButtonText", "addButton",
    "setDefaultSuffix", "setInformativeText", "setDetailedText", "setPlainText", "setHtml", "insertItem",
    "addAction", "addMenu", "QMenu", "QToolButton", "setCheckBoxText", "setOkButtonText", "setCancelButtonText",
}
NOT_FOR_PEOPLE_CALLS = {
    "debug", "info", "warning_log", "exception", "log", "compile", "match", "fullmatch", "search", "sub", "split",
    "findall", "finditer", "pack", "unpack", "calcsize", "run", "Popen", "check_output", "check_call", "execute",
    "executemany", "executescript", "getenv", "getLogger", "Signal", "setObjectName", "setProperty",
    "setStyleSheet", "strftime", "strptime", "fromisoformat", "Path", "glob", "rglob", "encode", "decode",
}
LOGGERS = re.compile(r"^_?(log|logger|LOG|LOGGER|logging)$")
SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|ALTER|DROP|WITH|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|"
                 r"RELEASE|REPLACE|VACUUM|ANALYZE)\b|\b(FROM|WHERE|VALUES|JOIN|ORDER BY|GROUP BY|SET)\b")
WORDS = re.compile(r"(?<![%{(\w.])[A-Za-z][a-z'’]+[,:;.!?]?\s+\(?[A-Za-z0-9{$]")


@dataclass(frozen=True)
class Unwrapped:
    path: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}: {self.text!r}"


def _text_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return None


def _callee(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _logger_call(call: ast.Call) -> bool:
    func = call.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and bool(LOGGERS.match(func.value.id))


def is_sentence(text: str) -> bool:
    """Two words or more, not SQL: a text someone reads."""
    return bool(WORDS.search(text)) and not SQL.search(text)


def _marked_lines(source: str) -> set[int]:
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and token.string.strip().startswith(MARKER):
            lines.add(token.start[0])
    return lines


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            # the first expression of a body, and an attribute's docstring after an assignment
            for index, statement in enumerate(body):
                if isinstance(statement, ast.Expr) and _text_of(statement.value) is not None and (
                        index == 0 or isinstance(body[index - 1], (ast.Assign, ast.AnnAssign, ast.TypeAlias))):
                    found.add(id(statement.value))
    return found


def unwrapped_in(path: Path) -> Iterator[Unwrapped]:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    marked = _marked_lines(source)
    docstrings = _docstrings(tree)
    in_ui = "ui" in path.relative_to(PACKAGE).parts[:1]
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node

    def context(node: ast.AST) -> tuple[bool, bool, bool]:
        """(wrapped, exempt, shown by Qt) for a text node."""
        shown = False
        child = node
        parent = parents.get(id(node))
        while parent is not None:
            if isinstance(parent, ast.Call):
                name = _callee(parent)
                if name in WRAPPERS and child in parent.args:
                    return True, False, shown
                if _logger_call(parent) or (name in NOT_FOR_PEOPLE_CALLS and child is not parent.func):
                    return False, True, shown
                if name in QT_TEXT_CALLS:
                    shown = True
            if isinstance(parent, ast.Dict) and child in parent.keys:
                return False, True, shown
            if isinstance(parent, ast.Subscript) and child is parent.slice:
                return False, True, shown
            if isinstance(parent, ast.Compare):
                return False, True, shown
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
                break
            child, parent = parent, parents.get(id(parent))
        return False, False, shown

    for node in ast.walk(tree):
        text = _text_of(node)
        if text is None or id(node) in docstrings:
            continue
        if isinstance(parents.get(id(node)), ast.JoinedStr):
            continue  # a format spec inside an f-string
        if any(line in marked for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)):
            continue
        wrapped, exempt, shown = context(node)
        if wrapped or exempt:
            continue
        if (in_ui and shown and re.search(r"[A-Za-z]{2}", text)) or is_sentence(text):
            yield Unwrapped(path, node.lineno, text)


def python_files(paths: list[Path]) -> Iterator[Path]:
    for path in paths:
        path = path.resolve()
        if path.is_dir():
            yield from sorted(file for file in path.rglob("*.py")
                              if not set(file.relative_to(PACKAGE).parts) & set(SKIPPED))
        else:
            yield path


def unwrapped(paths: list[Path] | None = None) -> list[Unwrapped]:
    return [found for path in python_files(paths or [PACKAGE]) for found in unwrapped_in(path.resolve())]


if __name__ == "__main__":
    found = unwrapped([Path(arg) for arg in sys.argv[1:]] or None)
    for item in found:
        print(item)
    print(f"{len(found)} unwrapped texts", file=sys.stderr)
