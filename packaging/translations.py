"""The app's gettext catalogs, kept with Babel's Python API (``make translations``):

- ``update``: extract every ``_()``, ``N_()`` and ``ngettext()`` text of ``pos_app`` (the
  sandbox excepted: its texts are the service's) into ``pos_app/locale/pos_app.pot``, bring
  each language's ``.po`` up to it (new texts untranslated, gone ones dropped; no fuzzy
  guesses), and compile the ``.mo`` files the app reads;
- ``check``: print what keeps a catalog from being complete (``tests/test_translations.py``
  runs the same check): a template behind the code, a text untranslated or fuzzy, a
  ``{field}`` or ``%`` placeholder a translation lost or invented, a ``.mo`` behind its ``.po``.

The files are sorted and carry file names without line numbers, so that a change of code
does not rewrite the catalogs. Run from the repository root: ``python packaging/translations.py update``.
"""

from __future__ import annotations

import argparse
import copy
import io
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.checkers import python_format
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pos_app"
LOCALE_DIR = PACKAGE / "locale"
DOMAIN = "pos_app"
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
LANGUAGES = ("es", "fr")
"""The translated languages (English is the source); adding one: README, "Adding a language"."""
METHOD_MAP = [("sandbox/**.py", "ignore"), ("**.py", "python")]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)
"""Every catalog's header date: a real one would rewrite the files at each run."""
MNEMONIC = re.compile(r"&([^&\s])")
"""The letter after ``&`` in a key's label: Alt+that letter presses it, in every language."""
FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?:[!:][^{}]*)?\}")


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str) -> Path:
    return po_path(language).with_suffix(".mo")


def extracted() -> Catalog:
    """The template the code asks for now."""
    catalog = Catalog(project="pos-app", charset="utf-8", creation_date=FIXED_DATE, revision_date=FIXED_DATE,
                      fuzzy=False)
    for filename, _lineno, message, comments, context in extract_from_dir(
            PACKAGE, method_map=METHOD_MAP, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True):
        catalog.add(message, None, [(f"pos_app/{filename}", None)], auto_comments=comments, context=context)
    return catalog


def _write_po(path: Path, catalog: Catalog) -> None:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, sort_output=True, include_lineno=False, ignore_obsolete=True,
             include_previous=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())


def _read(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as stream:
        return read_po(stream, locale=language, domain=DOMAIN)


def compiled(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


FRAGMENTS = LOCALE_DIR / "fragments"
"""Work in progress: ``<name>.<language>.po`` files, each translating the texts of some
modules (``fragment``); ``update`` takes a translation it lacks from them."""


def extracted_from(paths: list[Path]) -> Catalog:
    """The texts of some files only (a fragment's template)."""
    whole = extracted()
    wanted = {f"pos_app/{path.resolve().relative_to(PACKAGE)}" for path in paths}
    catalog = Catalog(project="pos-app", charset="utf-8", creation_date=FIXED_DATE, fuzzy=False)
    for message in whole:
        if message.id and {location for location, _line in message.locations} & wanted:
            catalog.add(message.id, None, message.locations, auto_comments=message.auto_comments)
    return catalog


def fragment(name: str, paths: list[Path]) -> None:
    """Write or bring up to date ``fragments/<name>.<language>.po`` for the texts of ``paths``."""
    template = extracted_from(paths)
    for language in LANGUAGES:
        path = FRAGMENTS / f"{name}.{language}.po"
        catalog = _read(path, language) if path.exists() else Catalog(
            locale=language, project="pos-app", charset="utf-8", creation_date=FIXED_DATE, domain=DOMAIN)
        catalog.update(copy.deepcopy(template), no_fuzzy_matching=True, update_header_comment=False)
        catalog.fuzzy = False
        _write_po(path, catalog)


def fragment_problems(name: str) -> list[str]:
    found: list[str] = []
    for language in LANGUAGES:
        path = FRAGMENTS / f"{name}.{language}.po"
        if not path.exists():
            found.append(f"{path} is missing")
            continue
        found.extend(f"{language}: {problem}" for problem in catalog_problems(_read(path, language)))
    return found


def catalog_problems(catalog: Catalog) -> Iterable[str]:
    for message in catalog:
        if not message.id:
            continue
        if message.fuzzy:
            yield f"fuzzy: {message.id!r}"
        elif not _translated(message.string) or len(_strings(message.string)) < len(_strings(message.id)):
            yield f"untranslated: {message.id!r}"
        else:
            yield from placeholder_problems(message)


def _from_fragments(catalog: Catalog, language: str) -> None:
    for path in sorted(FRAGMENTS.glob(f"*.{language}.po")) if FRAGMENTS.exists() else ():
        for message in _read(path, language):
            if not message.id or message.fuzzy or not _translated(message.string):
                continue
            mine = catalog.get(message.id)
            if mine is not None and not _translated(mine.string):
                mine.string = message.string


def update() -> None:
    template = extracted()
    _write_po(TEMPLATE, template)
    for language in LANGUAGES:
        path = po_path(language)
        if path.exists():
            catalog = _read(path, language)
        else:
            catalog = Catalog(locale=language, project="pos-app", charset="utf-8", creation_date=FIXED_DATE,
                              domain=DOMAIN)
        # a copy each: Babel's update adopts the template's own message objects, so a
        # translation filled in for one language would show in the next
        catalog.update(copy.deepcopy(template), no_fuzzy_matching=True, update_header_comment=False)
        _from_fragments(catalog, language)
        catalog.revision_date = FIXED_DATE
        catalog.fuzzy = False
        _write_po(path, catalog)
        mo_path(language).write_bytes(compiled(_read(path, language)))


def _ids(catalog: Catalog) -> set[object]:
    return {message.id for message in catalog if message.id}


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, (tuple, list)):
        return tuple(str(part) for part in value)
    return (str(value),) if value else ()


def _translated(value: object) -> bool:
    strings = _strings(value)
    return bool(strings) and all(strings)


def _mnemonic(text: str) -> str | None:
    found = MNEMONIC.search(text.replace("&&", ""))
    return found.group(1).lower() if found else None


def placeholder_problems(message: Message) -> Iterable[str]:
    """A translation whose ``{fields}`` differ from its source's (each plural form too), or
    that moves a key's Alt+letter."""
    wanted = {field for text in _strings(message.id) for field in FIELD.findall(text)}
    for text in _strings(message.string):
        found = set(FIELD.findall(text))
        if found != wanted and not (len(_strings(message.id)) > 1 and found < wanted):
            yield f"{message.id!r}: placeholders {sorted(found)} in {text!r}, the source has {sorted(wanted)}"
    source_key = _mnemonic(_strings(message.id)[0]) if _strings(message.id) else None
    for text in _strings(message.string):
        if source_key and _mnemonic(text) != source_key:
            key = source_key.upper()
            yield f"{message.id!r}: Alt+{key} is lost in {text!r} (put & before that letter, or add (&{key}))"
    if message.python_format:
        try:
            python_format(None, message)
        except Exception as exc:  # noqa: BLE001 - Babel's checker raises TranslationError
            yield f"{message.id!r}: {exc}"


SHARED_LIMIT = 0.05
"""At most this share of two languages' translations may be the same words (Spanish and
French share a few: "de {amount}"); more means one catalog was filled from the other."""


def shared_translations(catalogs: dict[str, Catalog]) -> Iterable[str]:
    languages = sorted(catalogs)
    for index, first in enumerate(languages):
        for second in languages[index + 1:]:
            translated = [message for message in catalogs[first] if message.id and _translated(message.string)
                          and message.string != message.id]
            same = [message for message in translated if (other := catalogs[second].get(message.id)) is not None
                    and other.string == message.string]
            if translated and len(same) > SHARED_LIMIT * len(translated):
                yield (f"{second} repeats {len(same)} of {first}'s {len(translated)} translations word for word "
                       f"(e.g. {same[0].id!r}): one was filled from the other")


def problems() -> list[str]:
    """Everything that keeps the catalogs from being complete and current; empty when they are."""
    found: list[str] = []
    template = extracted()
    if not TEMPLATE.exists():
        return [f"{TEMPLATE.relative_to(ROOT)} is missing: run make translations"]
    if _ids(_read(TEMPLATE)) != _ids(template):
        found.append(f"{TEMPLATE.relative_to(ROOT)} is behind the code: run make translations")
    catalogs: dict[str, Catalog] = {}
    for language in LANGUAGES:
        path = po_path(language)
        if not path.exists():
            found.append(f"{path.relative_to(ROOT)} is missing: run make translations")
            continue
        catalog = catalogs[language] = _read(path, language)
        missing = _ids(template) - _ids(catalog)
        if missing:
            found.append(f"{language}: {len(missing)} texts are not in the catalog: run make translations")
        found.extend(f"{language}: {problem}" for problem in catalog_problems(catalog))
        if not mo_path(language).exists() or mo_path(language).read_bytes() != compiled(catalog):
            found.append(f"{mo_path(language).relative_to(ROOT)} is behind its .po: run make translations")
    found.extend(shared_translations(catalogs))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Update or check pos-app's translation catalogs.")
    parser.add_argument("action", choices=("update", "check", "fragment", "check-fragment"))
    parser.add_argument("name", nargs="?", help="a fragment's name (fragment, check-fragment)")
    parser.add_argument("paths", nargs="*", type=Path, help="the files whose texts the fragment translates")
    args = parser.parse_args(argv)
    if args.action in ("fragment", "check-fragment"):
        if not args.name:
            parser.error("a fragment needs a name")
        if args.action == "fragment":
            fragment(args.name, args.paths)
        found = fragment_problems(args.name)
        for problem in found:
            print(problem, file=sys.stderr)
        print(f"{len(found)} problems in fragment {args.name}", file=sys.stderr)
        return 1 if found else 0
    if args.action == "update":
        update()
    found = problems()
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        print(f"{len(found)} problems in the catalogs", file=sys.stderr)
    return 1 if found and args.action == "check" else 0


if __name__ == "__main__":
    raise SystemExit(main())
