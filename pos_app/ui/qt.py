"""The one module that imports Qt (PySide6) and qasync: every other ui module imports
its Qt names from here, so the binding is chosen and pinned in one place.

qasync (and with it asyncio, tens of milliseconds) is imported only when the event loop
is made (``run_async``, ``QEventLoop``) or an async slot first runs: the sign-in screen
is painted and takes keys before that (``pos_app.ui.launch``).
"""

from __future__ import annotations

import functools
import os
import sys

os.environ.setdefault("QT_API", "pyside6")  # qasync picks its binding from it when imported

from collections.abc import Callable, Coroutine  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from pos_app.lazy import exports  # noqa: E402


def asyncSlot(*types: type) -> Callable[[Callable[..., Coroutine[Any, Any, Any]]], Callable[..., Any]]:  # noqa: N802
    """qasync's ``asyncSlot`` (a Qt slot that runs the coroutine function as a task on the
    loop), handed over to at the slot's first call rather than when the class is made."""
    from PySide6.QtCore import Slot

    def decorate(function: Callable[..., Coroutine[Any, Any, Any]]) -> Callable[..., Any]:
        made: list[Callable[..., Any]] = []

        @Slot(*types)
        @functools.wraps(function)
        def slot(*args: Any, **kwargs: Any) -> Any:
            if not made:
                import qasync

                made.append(qasync.asyncSlot(*types)(function))
            return made[0](*args, **kwargs)

        return slot

    return decorate


def without_feature_scan() -> None:
    """Stop PySide6 reading the source of every module imported from now on. It looks in
    each for the word PySide6, for its ``from __feature__ import snake_case`` switches (a
    module that names PySide6 gets them by default); the app uses none of them, and the
    reads (about 0.15 ms a module, ~450 modules in a start) were some 60 ms of the start's
    imports, a few before the first paint. Modules are then left out of those switches as
    PySide6 leaves those that do not name it. Done as soon as a Qt name is first asked for
    (PySide6 is loaded then); nothing is done when this PySide6 has no such scan."""
    feature = sys.modules.get("shibokensupport.feature")  # PySide6's own, loaded with QtCore
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        feature._mod_uses_pyside = lambda module: False


def run_async(main: Coroutine[Any, Any, Any]) -> Any:
    """Run ``main`` on a qasync event loop driven by the Qt application; its result."""
    import qasync

    return qasync.run(main)


_HOMES: dict[str, tuple[str, ...]] = {
    "qasync": ("QEventLoop",),
    "PySide6.QtCore": (
        "QAbstractTableModel", "QBuffer", "QByteArray", "QCoreApplication", "QElapsedTimer", "QEvent", "QIODevice",
        "QLibraryInfo", "QModelIndex", "QObject", "QSize", "Qt", "QTimer", "QTranslator", "Signal",
    ),
    "PySide6.QtGui": (
        "QAction", "QCloseEvent", "QColor", "QFont", "QGuiApplication", "QIcon", "QImage", "QIntValidator",
        "QKeyEvent", "QKeySequence", "QPainter", "QPaintEvent", "QPalette", "QShortcut", "QShowEvent",
    ),
    "PySide6.QtWidgets": (
        "QAbstractItemView", "QApplication", "QCheckBox", "QComboBox", "QDialog", "QDialogButtonBox", "QFileDialog",
        "QFormLayout", "QFrame", "QGridLayout", "QHBoxLayout", "QHeaderView", "QLabel", "QLineEdit", "QListWidget",
        "QListWidgetItem", "QMainWindow", "QMessageBox", "QPushButton", "QScrollArea", "QSizePolicy", "QStackedWidget",
        "QStyle", "QTableView", "QTableWidget", "QTableWidgetItem", "QTabWidget", "QTextBrowser", "QVBoxLayout",
        "QWidget",
    ),
    "PySide6.QtPdf": ("QPdfDocument",),
    "PySide6.QtPdfWidgets": ("QPdfView",),
    "PySide6.QtPrintSupport": ("QPrintDialog", "QPrinter"),
}
"""Each Qt name and the PySide6 module it comes from. A name is looked up the first time a
module asks for it (PySide6 sets a class up on first access, about 1 ms each here): the
sign-in screen, shown first, does not pay for the tables, PDF and print classes."""

if TYPE_CHECKING:  # the same names for type checkers (and for PyInstaller's import scan)
    from PySide6.QtCore import (
        QAbstractTableModel,
        QBuffer,
        QByteArray,
        QCoreApplication,
        QElapsedTimer,
        QEvent,
        QIODevice,
        QLibraryInfo,
        QModelIndex,
        QObject,
        QSize,
        Qt,
        QTimer,
        QTranslator,
        Signal,
    )
    from PySide6.QtGui import (
        QAction,
        QCloseEvent,
        QColor,
        QFont,
        QGuiApplication,
        QIcon,
        QImage,
        QIntValidator,
        QKeyEvent,
        QKeySequence,
        QPainter,
        QPaintEvent,
        QPalette,
        QShortcut,
        QShowEvent,
    )
    from PySide6.QtPdf import QPdfDocument
    from PySide6.QtPdfWidgets import QPdfView
    from PySide6.QtPrintSupport import QPrintDialog, QPrinter
    from PySide6.QtWidgets import (
        QAbstractItemView,
        QApplication,
        QCheckBox,
        QComboBox,
        QDialog,
        QDialogButtonBox,
        QFileDialog,
        QFormLayout,
        QFrame,
        QGridLayout,
        QHBoxLayout,
        QHeaderView,
        QLabel,
        QLineEdit,
        QListWidget,
        QListWidgetItem,
        QMainWindow,
        QMessageBox,
        QPushButton,
        QScrollArea,
        QSizePolicy,
        QStackedWidget,
        QStyle,
        QTableView,
        QTableWidget,
        QTableWidgetItem,
        QTabWidget,
        QTextBrowser,
        QVBoxLayout,
        QWidget,
    )
    from qasync import QEventLoop


_export = exports(__name__, _HOMES)


def __getattr__(name: str) -> Any:  # noqa: N807 - the module hook's name
    """A Qt name, imported the first time it is asked for; PySide6 is loaded then, and its
    source scan stopped at once (``without_feature_scan``)."""
    value = _export(name)
    without_feature_scan()
    return value


__all__ = [
    "QAbstractItemView", "QAbstractTableModel", "QAction", "QBuffer", "QByteArray", "QIODevice", "QApplication",
    "QCoreApplication", "QLibraryInfo", "QTranslator",
    "QCloseEvent", "QColor", "QDialog", "QDialogButtonBox", "QElapsedTimer", "QEvent", "QEventLoop", "QFileDialog",
    "QFont", "QFrame", "QGridLayout", "QGuiApplication", "QIcon", "QHBoxLayout", "QHeaderView", "QImage",
    "QIntValidator",
    "QCheckBox", "QComboBox", "QFormLayout",
    "QKeyEvent", "QKeySequence", "QLabel", "QLineEdit", "QListWidget", "QListWidgetItem", "QMainWindow",
    "QMessageBox", "QModelIndex", "QObject", "QPainter", "QPaintEvent", "QPalette", "QPdfDocument", "QPdfView",
    "QPrintDialog",
    "QPrinter", "QPushButton", "QScrollArea", "QShortcut", "QShowEvent", "QSize", "QSizePolicy", "QStackedWidget",
    "QStyle", "QTableView",
    "QTableWidget", "QTableWidgetItem", "QTabWidget",
    "QTextBrowser",
    "QTimer", "QVBoxLayout", "QWidget", "Qt", "Signal", "asyncSlot", "run_async", "without_feature_scan",
]
