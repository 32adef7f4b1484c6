"""The one module that imports Qt (PySide6) and qasync: every other ui module imports
its Qt names from here, so the binding is chosen and pinned in one place."""

from __future__ import annotations

import importlib
import os

os.environ.setdefault("QT_API", "pyside6")

from typing import TYPE_CHECKING, Any  # noqa: E402

import qasync  # noqa: E402

asyncSlot = qasync.asyncSlot
QEventLoop = qasync.QEventLoop

_HOMES: dict[str, tuple[str, ...]] = {
    "PySide6.QtCore": (
        "QAbstractTableModel", "QBuffer", "QByteArray", "QElapsedTimer", "QEvent", "QIODevice", "QModelIndex",
        "QObject", "QSize", "Qt", "QTimer", "Signal",
    ),
    "PySide6.QtGui": (
        "QAction", "QCloseEvent", "QColor", "QFont", "QGuiApplication", "QIcon", "QImage", "QIntValidator",
        "QKeyEvent", "QKeySequence", "QPainter", "QPalette", "QShortcut",
    ),
    "PySide6.QtWidgets": (
        "QAbstractItemView", "QApplication", "QComboBox", "QDialog", "QDialogButtonBox", "QFileDialog",
        "QFormLayout", "QFrame", "QGridLayout", "QHBoxLayout", "QHeaderView", "QLabel", "QLineEdit", "QListWidget",
        "QListWidgetItem", "QMainWindow", "QMessageBox", "QPushButton", "QSizePolicy", "QStackedWidget",
        "QTableView", "QTabWidget", "QTextBrowser", "QVBoxLayout", "QWidget",
    ),
    "PySide6.QtPdf": ("QPdfDocument",),
    "PySide6.QtPdfWidgets": ("QPdfView",),
    "PySide6.QtPrintSupport": ("QPrintDialog", "QPrinter"),
}
"""Each Qt name and the PySide6 module it comes from. A name is looked up the first time a
module asks for it (PySide6 sets a class up on first access, about 1 ms each here): the
sign-in screen, shown first, does not pay for the tables, PDF and print classes."""
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

if TYPE_CHECKING:  # the same names for type checkers (and for PyInstaller's import scan)
    from PySide6.QtCore import (
        QAbstractTableModel,
        QBuffer,
        QByteArray,
        QElapsedTimer,
        QEvent,
        QIODevice,
        QModelIndex,
        QObject,
        QSize,
        Qt,
        QTimer,
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
        QPalette,
        QShortcut,
    )
    from PySide6.QtPdf import QPdfDocument
    from PySide6.QtPdfWidgets import QPdfView
    from PySide6.QtPrintSupport import QPrintDialog, QPrinter
    from PySide6.QtWidgets import (
        QAbstractItemView,
        QApplication,
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
        QSizePolicy,
        QStackedWidget,
        QTableView,
        QTabWidget,
        QTextBrowser,
        QVBoxLayout,
        QWidget,
    )


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value


__all__ = [
    "QAbstractItemView", "QAbstractTableModel", "QAction", "QBuffer", "QByteArray", "QIODevice", "QApplication",
    "QCloseEvent", "QColor", "QDialog", "QDialogButtonBox", "QElapsedTimer", "QEvent", "QEventLoop", "QFileDialog",
    "QFont", "QFrame", "QGridLayout", "QGuiApplication", "QIcon", "QHBoxLayout", "QHeaderView", "QImage",
    "QIntValidator",
    "QComboBox", "QFormLayout",
    "QKeyEvent", "QKeySequence", "QLabel", "QLineEdit", "QListWidget", "QListWidgetItem", "QMainWindow",
    "QMessageBox", "QModelIndex", "QObject", "QPainter", "QPalette", "QPdfDocument", "QPdfView", "QPrintDialog",
    "QPrinter", "QPushButton", "QShortcut", "QSize", "QSizePolicy", "QStackedWidget", "QTableView", "QTabWidget",
    "QTextBrowser",
    "QTimer", "QVBoxLayout", "QWidget", "Qt", "Signal", "asyncSlot", "qasync",
]
