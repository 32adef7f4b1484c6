"""The screen's language in Qt: the app's catalogs (``pos_app.i18n``) and Qt's own texts
(a standard button's "Cancel"), switched when a cashier with a language of their own signs
in and back to the store's at sign-out, without a restart."""

from __future__ import annotations

from pos_app import i18n
from pos_app.ui.qt import QCoreApplication, QLibraryInfo, QTranslator

_qt_texts: dict[str, QTranslator] = {}
"""Qt's translator in force, by its language (none: Qt's built-in English)."""


def show_screens_in(language: str) -> bool:
    """Screens in ``language`` from now on, Qt's own texts too; whether that is a change
    (the screens built before show the old language until rebuilt)."""
    language = i18n.check_language(language)
    changed = language != i18n.screen_language()
    i18n.use_screen_language(language)
    _use_qt_texts(language.split("_")[0])
    return changed


def _use_qt_texts(base: str) -> None:
    app = QCoreApplication.instance()
    if app is None or base in _qt_texts:
        return
    for old in _qt_texts.values():
        app.removeTranslator(old)
    _qt_texts.clear()
    translator = QTranslator(app)
    if base != i18n.SOURCE_LANGUAGE and translator.load(
            f"qtbase_{base}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(translator)
    _qt_texts[base] = translator
