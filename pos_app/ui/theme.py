"""Light, dark and high-contrast themes: QSS files in ``resources/`` (large touch targets),
their sizes scaled with the system's text size (a cashier who set 150 % gets 150 %)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pos_app.ui.qt import QApplication, QIcon, QWidget

RESOURCES = Path(__file__).resolve().parent.parent.parent / "resources"
NOMINAL_POINT_SIZE: Final = 9.0
"""The system text size the themes' pixel sizes are drawn for (100 %): a system font of
13.5 pt (150 % of 9 pt, the usual default) makes every font and box size 1.5 times larger; a smaller one keeps them."""
SIZED = re.compile(r"((?:font-size|min-height|max-height|min-width|max-width)\s*:\s*)(\d+)px")
_system_point_size: list[float] = []


def theme_path(name: str) -> Path:
    return RESOURCES / f"{name}.qss"


def icon(name: str) -> QIcon:
    """An icon of ``resources/icons`` (SVG); an empty icon when the file is missing."""
    from pos_app.ui.qt import QIcon  # not on the first screen: its set-up and the SVG plugin cost a start

    path = RESOURCES / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()


def scaled(sheet: str, scale: float) -> str:
    """``sheet`` with its font and box sizes times ``scale`` (borders and padding kept)."""
    return SIZED.sub(lambda match: f"{match.group(1)}{round(int(match.group(2)) * scale)}px", sheet)


def text_scale(app: QApplication) -> float:
    """The system's text size against 100 %, read once: the application font before any
    style sheet (a style sheet's font would be read back as the system's)."""
    if not _system_point_size:
        _system_point_size.append(app.font().pointSizeF())
    return max(1.0, _system_point_size[0] / NOMINAL_POINT_SIZE)


def apply_theme(app: QApplication, name: str) -> None:
    path = theme_path(name)
    app.setStyleSheet(scaled(path.read_text(encoding="utf-8"), text_scale(app)) if path.exists() else "")


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
