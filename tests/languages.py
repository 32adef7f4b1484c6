"""A marking pseudo-language: every text that goes through ``_()`` or ``ngettext()`` comes
out between « and », so a text shown without them was never wrapped for translation."""

from __future__ import annotations

import gettext
import re
from typing import Any

OPEN, CLOSE = "«", "»"
KEY_NAMES = re.compile(r"\b(?:(?:Ctrl|Alt|Shift)\+)*(?:F\d{1,2}|Enter|Esc|Escape|Delete|Del|Tab|Backspace|Home|End|"
                       r"PgUp|PgDn|Space|[A-Z0-9])\b")


class MarkingTranslations(gettext.NullTranslations):
    def gettext(self, message: str) -> str:
        return f"{OPEN}{message}{CLOSE}"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"{OPEN}{singular if n == 1 else plural}{CLOSE}"


MARKING = MarkingTranslations()


def shown_texts(root: Any) -> list[tuple[str, str]]:
    """(where, text) of what ``root`` and its visible children show: labels, buttons, tabs,
    group titles, column headers, placeholders, window titles and accessible names."""
    from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QLineEdit, QTabBar, QTableView, QWidget

    found: list[tuple[str, str]] = []
    widgets = [root, *root.findChildren(QWidget)]
    for widget in widgets:
        if not widget.isVisibleTo(root) and widget is not root:
            continue
        kind = type(widget).__name__
        if widget.isWindow() and widget.windowTitle():
            found.append((f"{kind} title", widget.windowTitle()))
        if widget.accessibleName():
            found.append((f"{kind} accessible name", widget.accessibleName()))
        if isinstance(widget, (QLabel, QAbstractButton)) and widget.text():
            found.append((kind, widget.text()))
        elif isinstance(widget, QLineEdit) and widget.placeholderText():
            found.append((f"{kind} placeholder", widget.placeholderText()))
        elif isinstance(widget, QGroupBox) and widget.title():
            found.append((f"{kind} title", widget.title()))
        elif isinstance(widget, QTabBar):
            found.extend((f"{kind} tab", widget.tabText(index)) for index in range(widget.count()))
        elif isinstance(widget, QTableView) and widget.model() is not None:
            model = widget.model()
            found.extend((f"{kind} header", str(model.headerData(column, _horizontal())))
                         for column in range(model.columnCount()) if model.headerData(column, _horizontal()))
    return found


def _horizontal() -> Any:
    from pos_app.ui.qt import Qt

    return Qt.Orientation.Horizontal


def unmarked(root: Any, data: set[str]) -> list[str]:
    """The texts ``root`` shows with letters but no mark: not wrapped for translation.
    ``data`` are texts that are no one's to translate (item and category names, the store's
    and the staff's names); amounts and numbers carry no letters."""
    problems = []
    for where, text in shown_texts(root):
        rest = text.replace("&&", "&")  # a button's literal "&"
        for value in sorted(data, key=len, reverse=True):
            rest = rest.replace(value, "")
        rest = re.sub(r"<[^>]+>", "", rest)  # rich text's tags
        rest = KEY_NAMES.sub("", rest)  # keys are named as printed on the keyboard, in every language
        if OPEN in rest or not re.search(r"[A-Za-z]{2}", rest):
            continue
        problems.append(f"{where}: {text!r}")
    return problems
