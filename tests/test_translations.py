"""The translation system (pos_app/i18n.py) and its catalogs (packaging/translations.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from pos_app import i18n

TRANSLATIONS_FILE = Path(__file__).resolve().parents[1] / "packaging" / "translations.py"


@pytest.fixture(scope="module")
def catalogs():
    spec = importlib.util.spec_from_file_location("pos_translations", TRANSLATIONS_FILE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_catalogs_are_complete_current_and_compiled(catalogs):
    """Every wrapped text has a Spanish and a French translation keeping its placeholders,
    the template matches the code and each .mo its .po (make translations fixes the last two)."""
    assert catalogs.problems() == []


def test_a_language_code_is_checked_with_a_sentence():
    assert i18n.check_language("es-MX") == "es_MX"
    with pytest.raises(i18n.UnknownLanguage, match="not a language code; use one of en, es, fr"):
        i18n.check_language("klingon!")


def test_a_language_without_a_catalog_shows_english():
    assert i18n.translations_for("de").gettext("Total") == "Total"


def test_english_is_shown_without_gettexts_search():
    """English is the source: no catalog is looked for (gettext's search imports ``locale``,
    a millisecond before the first screen's first paint)."""
    import subprocess
    import sys

    code = "import sys; from pos_app import i18n; i18n._('Total'); print('locale' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "False"


def test_the_store_language_comes_from_the_env_then_the_store_then_the_os(monkeypatch):
    monkeypatch.setenv("POS_LANGUAGE", "fr-CA")
    assert i18n.chosen_store_language("es") == "fr_CA"
    monkeypatch.delenv("POS_LANGUAGE")
    assert i18n.chosen_store_language("es") == "es"
    monkeypatch.setenv("LC_ALL", "es_MX.UTF-8")
    assert i18n.chosen_store_language(None) == "es_MX"
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.delenv("LANG", raising=False)
    assert i18n.chosen_store_language(None) == "en"


def test_a_block_in_the_store_language_leaves_the_screen_language(catalogs):
    i18n.use_screen_language("fr")
    with i18n.in_language("es"):
        assert i18n.current_language() == "es"
    assert i18n.current_language() == "fr"
    assert i18n.screen_language() == "fr"


def test_every_text_for_people_is_wrapped_for_translation():
    """python -m tests.i18n_strings lists them: a sentence anywhere in pos_app (the sandbox
    aside), any text a Qt screen shows; a text that is not for people says so."""
    from tests.i18n_strings import unwrapped

    assert [str(found) for found in unwrapped()] == []


def test_the_finder_reports_a_sentence_and_a_qt_label_left_unwrapped(tmp_path, monkeypatch):
    from tests import i18n_strings

    ui = tmp_path / "pos_app" / "ui"
    ui.mkdir(parents=True)
    screen = ui / "screen.py"
    screen.write_text('from pos_app.i18n import _\n'
                      'def build(label, log):\n'
                      '    label.setText("Total")\n'
                      '    label.setText(_("Subtotal"))\n'
                      '    log.info("the sale was paid in full")\n'
                      '    raise ValueError(f"the amount {label} is not valid")\n'
                      '    return "pos-app — a file name"  # not for people\n')
    monkeypatch.setattr(i18n_strings, "PACKAGE", tmp_path / "pos_app")
    monkeypatch.setattr(i18n_strings, "ROOT", tmp_path)
    assert [(found.line, found.text) for found in i18n_strings.unwrapped([screen])] == [
        (3, "Total"), (6, "the amount {} is not valid")]


def test_a_translation_that_moves_an_alt_key_or_loses_a_field_is_a_problem(catalogs):
    from babel.messages.catalog import Message

    assert list(catalogs.placeholder_problems(Message("&Detach", "&Desvincular"))) == []
    assert list(catalogs.placeholder_problems(Message("&Detach", "Quitar (&D)"))) == []
    assert "Alt+D is lost" in next(iter(catalogs.placeholder_problems(Message("&Detach", "&Quitar"))))
    assert "placeholders" in next(iter(catalogs.placeholder_problems(Message("Paid {amount}", "Pagado"))))


@pytest.mark.parametrize("language", ["es", "fr"])
def test_pos_app_help_lists_every_command_in_the_language_in_force(language):
    """``pos-app --help`` listed ``sandbox`` in English among the other commands translated."""
    import argparse

    from pos_app.cli import build_parser

    def summaries() -> dict[str, str]:
        [commands] = [action for action in build_parser()._actions  # noqa: SLF001 - argparse's own list
                      if isinstance(action, argparse._SubParsersAction)]  # noqa: SLF001
        return {action.dest: str(action.help) for action in commands._choices_actions}  # noqa: SLF001

    english = summaries()
    i18n.use_screen_language(language)
    try:
        translated = summaries()
    finally:
        i18n.use_screen_language("en")
    assert "sandbox" in english
    assert {name for name, text in translated.items() if text == english[name]} == set()
