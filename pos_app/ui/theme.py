"""Light and dark themes: QSS files in ``resources/`` (large touch targets, high contrast)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pos_app.ui.qt import QApplication, QIcon, QWidget

RESOURCES = Path(__file__).resolve().parent.parent.parent / "resources"


def theme_path(name: str) -> Path:
    return RESOURCES / f"{name}.qss"


def icon(name: str) -> QIcon:
    """An icon of ``resources/icons`` (SVG); an empty icon when the file is missing."""
    from pos_app.ui.qt import QIcon  # not on the first screen: its set-up and the SVG plugin cost a start

    path = RESOURCES / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()


def apply_theme(app: QApplication, name: str) -> None:
    path = theme_path(name)
    app.setStyleSheet(path.read_text(encoding="utf-8") if path.exists() else "")


def use_theme(name: str) -> None:
    """Apply theme ``name`` to the application unless it is the one applied already."""
    from pos_app.ui.qt import QApplication

    app = QApplication.instance()
    if app.property("posTheme") != name:
        apply_theme(app, name)  # type: ignore[arg-type]
        app.setProperty("posTheme", name)


def show_in_theme(window: QWidget, name: str) -> None:
    """Show ``window`` in theme ``name`` (the style sheet is applied only when it changes)."""
    use_theme(name)
    window.show()
