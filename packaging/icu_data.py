"""ICU's data, trimmed to the languages a bundle serves (imported by ``pos_app.spec``).

PySide6's Qt links ICU, whose data library (``libicudata.so.NN``, about 31 MB: every
locale's data, collation, currency, unit, zone and language names, 200 character-set
converters, transliterators, word-break dictionaries) is the largest file of a Linux
bundle. Qt uses it for
collation, case mapping, time zones and the rare non-UTF text codec; the app needs it
only in the languages it writes money in. ``trimmed_icu_data`` extracts the data package
from the library (its one symbol, ``icudtNN_dat``), removes with ``icupkg`` the locale
files of other languages (``root`` and what every locale inherits stay), the
transliterators, the word-break dictionaries and the converters but two (the app's text is UTF-8, which needs no
data; windows-1252 and ISO-8859-15 stay for an old file), and links the result into a
library of the same name and symbol with ``genccode`` and ``ld``. Without those tools
(Debian: icu-devtools, binutils; ``make system-deps``) or on another platform the full
library is kept and the build says so.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

LOCALE_TREES = ("coll", "curr", "lang", "region", "unit", "zone", "rbnf", "brkitr")
"""Data folders with one file per locale (``es_MX.res``); the ones of other languages go."""
KEPT_CONVERTERS = ("ibm-5348_P100-1997.cnv", "ibm-923_P100-1998.cnv")
"""windows-1252 and ISO-8859-15; UTF-8/16/32, ASCII and Latin-1 are built into ICU's code."""
TOOLS = ("icupkg", "genccode", "ld", "readelf")
_LIBRARY = re.compile(r"libicudata\.so\.(\d+)$")
_ALWAYS = ("root", "pool", "res_index")
_LOCALE_FILE = re.compile(r"^[a-z]{2,3}(_[A-Za-z0-9]+)*\.res$")
"""A locale's own data at the package's top (``zh_Hant.res``); the shared tables there have
longer names (``supplementalData.res``, ``zoneinfo64.res``, ``units.res``)."""


def is_icu_data(dest: str) -> bool:
    return _LIBRARY.search(Path(dest).name) is not None


def removed_items(items: list[str], languages: frozenset[str]) -> list[str]:
    """The package items (``coll/de.res``, ``ibm-37_P100-1995.cnv``) a bundle for
    ``languages`` leaves out."""
    removed = []
    for item in items:
        folder, _, name = item.rpartition("/")
        if not folder:
            if name.endswith(".cnv") and name not in KEPT_CONVERTERS or _other_locale(name, languages):
                removed.append(item)
        elif folder == "translit" or folder == "brkitr" and name.endswith(".dict"):
            removed.append(item)
        elif folder in LOCALE_TREES and name.endswith(".res") and _other_locale(name, languages):
            removed.append(item)
    return removed


def _other_locale(name: str, languages: frozenset[str]) -> bool:
    stem = name.removesuffix(".res")
    return _LOCALE_FILE.match(name) is not None and stem not in _ALWAYS and stem.split("_")[0] not in languages


def trimmed_icu_data(library: str, languages: frozenset[str], workdir: Path) -> tuple[str, str]:
    """The path of a trimmed copy of ``library`` (built once per input and languages, in
    ``workdir``) and a sentence for the build log; ``library`` itself when it cannot be
    trimmed here."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    version = _LIBRARY.search(Path(library).name)
    if missing or version is None:
        why = f"missing {', '.join(missing)}" if missing else "not an ICU data library"
        return library, f"ICU data kept whole ({why})"
    data = Path(library).read_bytes()
    rules = Path(__file__).read_bytes()  # a change of what is removed builds anew
    key = hashlib.sha256(data + rules + ",".join(sorted(languages)).encode()).hexdigest()[:16]
    out_dir = workdir / f"icu-{key}"
    target = out_dir / Path(library).name
    if target.is_file():
        return str(target), _sentence(len(data), target)
    entry = f"icudt{version.group(1)}"
    package = f"{entry}l"  # little-endian: the package name ICU looks for
    blob = _symbol_bytes(library, f"{entry}_dat", data)
    build = out_dir / "build"
    shutil.rmtree(out_dir, ignore_errors=True)
    build.mkdir(parents=True)
    (build / "whole").mkdir()
    (build / "whole" / f"{package}.dat").write_bytes(blob)  # icupkg reads the package name from the file's
    listed = _run("icupkg", "-l", f"whole/{package}.dat", cwd=build).split()
    removed = removed_items(listed, languages)
    (build / "removed.txt").write_text("\n".join(removed) + "\n", encoding="utf-8")
    trimmed = build / "out"
    trimmed.mkdir()
    # --ignore-deps: the word-break dictionaries of Thai, Lao, Khmer, Burmese and CJK go
    # (Qt breaks text with its own tables; ICU's rules still break without them)
    _run("icupkg", "--ignore-deps", "-r", "removed.txt", f"whole/{package}.dat", f"out/{package}.dat", cwd=build)
    _run("genccode", "-o", "-m", str(Path(library).resolve()), "-e", entry, f"{package}.dat", cwd=trimmed)
    _run("ld", "-shared", "-soname", Path(library).name, "-o", str(target), f"{package}_dat.o", cwd=trimmed)
    shutil.rmtree(build)
    return str(target), _sentence(len(data), target)


def _symbol_bytes(library: str, symbol: str, data: bytes) -> bytes:
    """The bytes of ``symbol`` in the ELF library: its section's file offset + its address."""
    symbols = _run("readelf", "-W", "--dyn-syms", library)
    found = re.search(rf"\s([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+OBJECT\s+\S+\s+\S+\s+(\d+)\s+{symbol}$", symbols, re.M)
    if found is None:
        raise RuntimeError(f"{library} has no symbol {symbol}")
    address, size, section = int(found.group(1), 16), int(found.group(2), 0), int(found.group(3))
    sections = _run("readelf", "-W", "-S", library)
    row = re.search(rf"^\s*\[\s*{section}\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)", sections, re.M)
    if row is None:
        raise RuntimeError(f"{library}: section {section} of {symbol} not found")
    offset = int(row.group(2), 16) + address - int(row.group(1), 16)
    return data[offset:offset + size]


def _sentence(before: int, target: Path) -> str:
    return f"ICU data trimmed: {before / 2**20:.1f} MB -> {target.stat().st_size / 2**20:.1f} MB"


def _run(*command: str, cwd: Path | None = None) -> str:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True).stdout
