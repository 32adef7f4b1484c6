"""ICU's data trimmed for the bundle (packaging/icu_data.py): which items go, and that Qt,
loading the trimmed library instead of PySide6's, still collates, names time zones and
formats in the bundle's languages."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ICU_FILE = Path(__file__).resolve().parents[2] / "packaging" / "icu_data.py"
QT_LIB = Path(importlib.util.find_spec("PySide6").origin).parent / "Qt" / "lib"  # type: ignore[union-attr, arg-type]
LANGUAGES = frozenset({"en", "es", "fr", "de"})
PROBE = """
from PySide6.QtCore import QCollator, QDateTime, QLocale, QStringEncoder, QTimeZone
words = ["nube", "ñu", "oso"]
print(sorted(words, key=QCollator(QLocale("es_US")).sortKey))
print(sorted(["cote", "côte", "coté"], key=QCollator(QLocale("fr_CA")).sortKey))
zone = QTimeZone(b"America/Toronto")
print(zone.displayName(QDateTime(2026, 1, 15, 12, 0, 0, 0, zone), QTimeZone.NameType.LongName, QLocale("fr_CA")))
print(QLocale("es").toUpper("ñandú"), QStringEncoder("windows-1252").isValid())
"""


@pytest.fixture(scope="module")
def icu_data():
    spec = importlib.util.spec_from_file_location("icu_data", ICU_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_other_languages_transliterators_and_converters_go(icu_data):
    items = ["coll/root.res", "coll/es.res", "coll/es_MX.res", "coll/de.res", "coll/ja.res", "coll/pool.res",
             "zone/fr_CA.res", "zone/zh_Hant.res", "unit/res_index.res", "translit/root.res",
             "ibm-37_P100-1995.cnv", "ibm-5348_P100-1997.cnv", "brkitr/thaidict.dict", "brkitr/word.brk",
             "zoneinfo64.res", "supplementalData.res", "units.res", "fr_CA.res", "ff_Adlm.res", "nl.res", "root.res"]
    assert icu_data.removed_items(items, LANGUAGES) == [
        "coll/ja.res", "zone/zh_Hant.res", "translit/root.res", "ibm-37_P100-1995.cnv", "brkitr/thaidict.dict",
        "ff_Adlm.res", "nl.res"]


def _probe(library_dir: Path | None) -> list[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    if library_dir is not None:
        env["LD_LIBRARY_PATH"] = str(library_dir)  # searched before Qt's RUNPATH ($ORIGIN)
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bundle trims ICU on Linux only")
@pytest.mark.skipif(shutil.which("icupkg") is None or shutil.which("genccode") is None,
                    reason="icu-devtools are not installed (make system-deps)")
def test_qt_answers_the_same_with_the_trimmed_data(icu_data, tmp_path):
    whole = next(QT_LIB.glob("libicudata.so.*"))
    trimmed, said = icu_data.trimmed_icu_data(str(whole), LANGUAGES, tmp_path)
    assert trimmed != str(whole), said
    assert Path(trimmed).stat().st_size < whole.stat().st_size / 2, said
    answers = _probe(Path(trimmed).parent)
    assert answers == _probe(None)
    assert answers[0] == "['nube', 'ñu', 'oso']"  # ñ after n: Spanish collation is there
    assert "heure" in answers[2]  # the zone named in French
