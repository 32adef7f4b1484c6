"""What the bundle leaves out, and the pruning that does it (imported by ``pos_app.spec``).

A default one-folder build of a QtWidgets + QtPdf app is about 200 MB: PyInstaller's Qt
hooks collect every plugin of the modules used (the virtual-keyboard input context drags
in Qml/Quick, the gtk3 and wayland plugins their own libraries) and every translation.
Here:

1. ``EXCLUDED_MODULES``: Python modules never imported by pos-app (other Qt bindings, Qt
   modules the app does not use, tkinter, the test tools).
2. ``keep_qt_file``: of Qt's plugins only those the app needs on the build's platform;
   of Qt's translations only qtbase's in the app's languages (a standard button's text).
3. ``prune_unlinked``: libraries that nothing kept links to any more (Qml, Quick, Wayland,
   ...), found by walking the import tables of the Python extensions, the kept plugins
   and the interpreter library, with PyInstaller's own ``bindepend``.
4. ``keep_babel_file``: of Babel's CLDR locale data (about 30 MB, 1,000 locales) only
   ``root`` and the languages the app writes money in: ``BABEL_LANGUAGES`` and the store
   profile's ``locale`` (each language with all its countries: ``fr`` keeps ``fr_CA``).
"""

from __future__ import annotations

import posixpath
import re
import subprocess
import sys
from pathlib import PurePath

EXCLUDED_MODULES = [
    # other bindings: one Qt binding per bundle
    "PyQt5", "PyQt6", "PySide2", "tkinter", "_tkinter", "turtle", "turtledemo", "idlelib",
    # Qt modules pos-app does not import (pos_app/ui/qt.py is the one Qt import)
    "PySide6.QtNetwork", "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtQuickWidgets",
    "PySide6.QtQuickControls2", "PySide6.QtQuickTest", "PySide6.QtQmlFeatures", "PySide6.QtWebEngineCore",
    "PySide6.QtWebEngineWidgets", "PySide6.QtWebEngineQuick", "PySide6.QtWebChannel", "PySide6.QtWebSockets",
    "PySide6.QtMultimedia", "PySide6.QtMultimediaWidgets", "PySide6.Qt3DCore", "PySide6.QtCharts",
    "PySide6.QtDataVisualization", "PySide6.QtSql", "PySide6.QtTest", "PySide6.QtDesigner", "PySide6.QtHelp",
    "PySide6.QtUiTools", "PySide6.QtXml", "PySide6.QtDBus", "PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets",
    "PySide6.QtSvgWidgets", "PySide6.QtConcurrent", "PySide6.QtLabsStyleKit", "PySide6.QtBluetooth",
    "PySide6.QtPositioning", "PySide6.QtSerialPort", "PySide6.QtStateMachine", "PySide6.QtTextToSpeech",
    # Pillow (6 MB with its codecs): fpdf2 needs it only to embed images, and receipts and
    # reports are text (packaging/entry.py hushes fpdf2's warning that it is missing). A
    # receipt with a logo or a QR code would need it back.
    "PIL", "readline",
    # httpx's command line (pygments), the text of help() topics
    "pygments", "pydoc_data",
    # CJK codecs of the standard library (the app's text is UTF-8)
    "_codecs_cn", "_codecs_hk", "_codecs_iso2022", "_codecs_jp", "_codecs_kr", "_codecs_tw",
    # development tools that are installed next to the app but never imported by it
    "pytest", "_pytest", "pytestqt", "hypothesis", "mypy", "ruff", "PyInstaller", "pip", "setuptools",
]

BABEL_LANGUAGES = ("en", "es", "fr", "de")
"""The languages whose money formats every bundle has (with CLDR's ``root``, what they
inherit); a store profile's ``locale`` adds its own language."""

# Qt plugin folders kept, and for some of them which files (name stems, without the
# "lib"/"q" prefixes and the suffix). Everything else under plugins/ is left out.
_PLATFORMS = {
    "linux": {"qxcb", "qoffscreen"},
    "win32": {"qwindows", "qoffscreen"},
    "darwin": {"qcocoa", "qoffscreen"},
}
KEPT_PLUGINS: dict[str, set[str] | None] = {
    "platforms": _PLATFORMS.get(sys.platform, {"qoffscreen"}),
    "platforminputcontexts": {"composeplatforminputcontextplugin", "ibusplatforminputcontextplugin"},
    "imageformats": {"qsvg"},  # the icons; PNG is built into QtGui
    "iconengines": None,  # QIcon of an SVG file
    "printsupport": None,  # the print dialog (CUPS on Linux)
    "xcbglintegrations": None,  # small; xcb asks for them at start
    "styles": None,  # the native Windows and macOS styles
}

# Linux libraries taken from the station's system instead of the bundle (~15 MB with what
# only they link: GnuTLS, Kerberos, Avahi, systemd, libgcrypt...):
# - libcups: a station that prints has CUPS (receipts go through `lp`); the print dialog's
#   plugin (cupsprintersupport) loads the system's libcups.
# - libgssapi_krb5: QtNetwork (linked by QtPdf, unused by the app) links it; every system
#   with CUPS has it (libcups links it too).
# - libdbus-1: every Linux desktop has D-Bus (the OS keyring is reached through it).
SYSTEM_LIBRARIES = ("libcups.so.2", "libgssapi_krb5.so.2", "libdbus-1.so.3") if sys.platform.startswith("linux") else ()


def _stem(name: str) -> str:
    stem = name.split(".")[0]
    return stem[3:] if stem.startswith("lib") else stem


QT_TRANSLATIONS = frozenset(f"qtbase_{language}.qm" for language in ("es", "fr"))
"""Qt's own texts in the app's translated languages (``pos_app.i18n.SHIPPED_LANGUAGES``)."""


def keep_qt_file(dest: str) -> bool:
    """False for a Qt plugin the app does not need and for Qt's translations but Qt's own
    texts (``qtbase``: a standard button's "Cancel") in the app's languages; True for
    everything that is not a Qt plugin or translation."""
    parts = PurePath(dest).parts
    if "translations" in parts and ("Qt" in parts or "Qt6" in parts):
        return parts[-1] in QT_TRANSLATIONS
    if "plugins" not in parts:
        return True
    index = parts.index("plugins")
    if len(parts) < index + 3:
        return True  # a file directly in plugins/ (none in PySide6 6.12)
    folder, name = parts[index + 1], parts[-1]
    if folder not in KEPT_PLUGINS:
        return False
    wanted = KEPT_PLUGINS[folder]
    return wanted is None or _stem(name) in wanted


def babel_languages(profile_locale: str | None) -> frozenset[str]:
    """``BABEL_LANGUAGES`` and the language of the store profile's ``locale`` (``ja_JP``: ``ja``)."""
    extra = profile_locale.replace("-", "_").split("_")[0].lower() if profile_locale else None
    return frozenset((*BABEL_LANGUAGES, *((extra,) if extra else ())))


def keep_babel_file(dest: str, languages: frozenset[str]) -> bool:
    """False for a file of Babel's locale data whose language is not in ``languages``
    (``root`` always stays); True for everything else."""
    parts = PurePath(dest).parts
    if len(parts) < 3 or parts[-3:-1] != ("babel", "locale-data") or not parts[-1].endswith(".dat"):
        return True
    name = parts[-1].removesuffix(".dat")
    return name == "root" or name.split("_")[0] in languages


def prune_unlinked(binaries: list[tuple[str, str, str]], roots: list[str]) -> tuple[list, list[str]]:
    """``binaries`` (PyInstaller's TOC: dest, source, kind) less the libraries not reached
    from ``roots`` (destination names) through the import tables; returns (kept, dropped)."""
    files = [entry for entry in binaries if entry[2] != "SYMLINK" and PurePath(entry[0]).name not in SYSTEM_LIBRARIES]
    by_name = {PurePath(entry[0]).name: entry for entry in files}
    dest_of = {entry[0]: entry for entry in files}
    reached: set[str] = set()
    todo = [name for name in roots if name in dest_of]
    while todo:
        dest = todo.pop()
        if dest in reached:
            continue
        reached.add(dest)
        for name in _direct_imports(dest_of[dest][1]):
            if name in by_name and by_name[name][0] not in reached:
                todo.append(by_name[name][0])
    # a symlink (PyInstaller links libraries of sub-folders into the top folder) follows its target
    kept = [e for e in binaries if (_link_target(e) if e[2] == "SYMLINK" else e[0]) in reached]
    dropped = sorted(e[0] for e in files if e[0] not in reached)
    return kept, dropped


def _direct_imports(path: str) -> set[str]:
    """The libraries ``path`` itself links to (not theirs): ELF NEEDED entries on Linux
    (``ldd`` would list the whole tree), the import table elsewhere."""
    if sys.platform.startswith("linux"):
        out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
        return set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))
    from PyInstaller.depend import bindepend

    return {PurePath(i if isinstance(i, str) else i[0]).name for i in bindepend.get_imports(path)}


def drop_dangling_links(toc: list[tuple[str, str, str]], kept: list[tuple[str, str, str]]) -> list:
    """``toc`` less its SYMLINK entries to files not in ``kept`` (PyInstaller lists some
    of the top-folder links of sub-folder libraries with the data files)."""
    present = {entry[0] for entry in kept if entry[2] != "SYMLINK"}
    return [e for e in toc if e[2] != "SYMLINK" or _link_target(e) in present]


def _link_target(entry: tuple[str, str, str]) -> str:
    """The destination a SYMLINK entry points to (its source is relative to its folder)."""
    return posixpath.normpath(posixpath.join(PurePath(entry[0]).parent.as_posix(), PurePath(entry[1]).as_posix()))


def is_root(entry: tuple[str, str, str]) -> bool:
    """What the app loads itself: Python extension modules, Qt plugins, the interpreter
    library; libraries are kept only when one of these (transitively) links to them."""
    dest, _source, kind = entry
    name = PurePath(dest).name
    if kind == "EXTENSION" or "plugins" in PurePath(dest).parts:
        return True
    return name.startswith(("libpython", "python3", "Python")) or name.endswith((".pyd",))


def windows_version_file(version: str, name: str, workpath: str) -> str:
    """A PyInstaller version-resource file for a Windows executable (file properties)."""
    numbers = [int(part) for part in version.split(".")[:3] if part.isdigit()]
    quad = tuple(numbers + [0] * (4 - len(numbers)))
    text = f"""VSVersionInfo(
  ffi=FixedFileInfo(filevers={quad}, prodvers={quad}, mask=0x3f, flags=0x0, OS=0x40004,
                    fileType=0x1, subtype=0x0, date=(0, 0)),
  kids=[
    StringFileInfo([StringTable('040904B0', [
      StringStruct('CompanyName', 'pos-app'),
      StringStruct('FileDescription', 'pos-app cashier'),
      StringStruct('FileVersion', '{version}'),
      StringStruct('InternalName', '{name}'),
      StringStruct('OriginalFilename', '{name}.exe'),
      StringStruct('ProductName', 'pos-app'),
      StringStruct('ProductVersion', '{version}')])]),
    VarFileInfo([VarStruct('Translation', [1033, 1200])])
  ]
)
"""
    path = PurePath(workpath) / f"version-{name}.txt"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return str(path)
