"""What the bundle keeps of Babel's locale data (packaging/slim.py): root and the money
languages, each whole, and the store profile's; every kept locale finds its parents."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import babel
import pytest
from babel.core import get_global

from pos_app.money import money_format

SLIM_FILE = Path(__file__).resolve().parents[2] / "packaging" / "slim.py"
LOCALE_DATA = Path(babel.__file__).parent / "locale-data"


@pytest.fixture(scope="module")
def slim():
    spec = importlib.util.spec_from_file_location("slim", SLIM_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kept(slim, languages) -> list[Path]:
    return [p for p in LOCALE_DATA.glob("*.dat") if slim.keep_babel_file(f"babel/locale-data/{p.name}", languages)]


def test_root_and_the_money_languages_are_kept_with_their_countries(slim):
    languages = slim.babel_languages(None)
    assert languages == {"en", "es", "fr", "de"}
    names = {p.stem for p in kept(slim, languages)}
    assert {"root", "en", "en_US", "en_CA", "en_001", "fr_CA", "de_DE", "de_CH", "es_ES", "es_419"} <= names
    assert not names & {"ja", "ja_JP", "it_IT", "pt_BR"}
    assert slim.babel_languages("ja_JP") == languages | {"ja"} and slim.babel_languages("pt-br") >= {"pt"}
    for other in ("babel/global.dat", "PySide6/Qt/lib/libQt6Core.so.6", "resources/light.qss"):
        assert slim.keep_babel_file(other, languages)


def test_every_kept_locale_finds_its_parents_and_the_rest_is_small(slim):
    """A kept locale loads its parents' data too (en_CA: en_001, en, root): all are kept."""
    languages = slim.babel_languages("ja_JP")
    files = kept(slim, languages)
    names = {p.stem for p in files}
    exceptions = get_global("parent_exceptions")
    for name in names - {"root"}:
        parent = exceptions.get(name) or ("_".join(name.split("_")[:-1]) if "_" in name else "root")
        assert parent in names, f"{name} needs {parent}"
    assert sum(p.stat().st_size for p in files) < 2_000_000  # of some 30 MB
    assert money_format("JPY", "ja_JP")(500) == "¥500"
