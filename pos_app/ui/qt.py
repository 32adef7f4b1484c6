"""The one module that imports Qt (PySide6) and qasync: every other ui module imports
its Qt names from here, so the binding is chosen and pinned in one place."""

from __future__ import annotations

import os

os.environ.setdefault("QT_API", "pyside6")

import qasync  # noqa: E402
from PySide6.QtCore import (  # noqa: E402
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
from PySide6.QtGui import (  # noqa: E402
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
from PySide6.QtPdf import QPdfDocument  # noqa: E402
from PySide6.QtPdfWidgets import QPdfView  # noqa: E402
from PySide6.QtPrintSupport import QPrintDialog, QPrinter  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
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

asyncSlot = qasync.asyncSlot
QEventLoop = qasync.QEventLoop

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
