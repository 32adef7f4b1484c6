"""The key-hash: checked before any request, and its value kept out of everything written.

The service may echo the key-hash back ("invalid key-hash …" in an error body), and a
library may put a header value into an exception's text. ``Redactor`` is the one
function that takes a secret's value out of text (``text``), of JSON-like values
(``value``) and of raw answers (``content``); it is applied at the few choke points:
the client's answers and errors, the journal's writes, the command line's JSON and
stderr, and the log handlers (``RedactingFilter``, tracebacks included).

``check_key_hash`` refuses a value that cannot be sent as a header (empty, a space or a
line break, a character that is not printable ASCII) with a sentence that names what
is wrong and where, never the value.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from pos_app.api.errors import InvalidKeyHash
from pos_app.i18n import N_, _

REDACTED = "[redacted]"

_NAMES = {" ": N_("a space"), "\t": N_("a tab"), "\n": N_("a line break (LF)"), "\r": N_("a carriage return (CR)")}


def key_hash_problem(value: str) -> str:
    """What makes ``value`` unusable as a key-hash (empty when it is usable): the first bad
    character's kind and 1-based position, never the character itself if it is part of
    the key (only spaces and line breaks are named)."""
    if not value:
        return _("is empty")
    for position, char in enumerate(value, start=1):
        if "\x21" <= char <= "\x7e":
            continue
        where = _("at the end") if position == len(value) else (
            _("at the start") if position == 1 else _("at position {position} of {length}").format(
                position=position, length=len(value)))
        if char in _NAMES:
            return _("has {what} {where}").format(what=_(_NAMES[char]), where=where)
        if char.isascii():
            return _("has a control character {where}").format(where=where)
        return _("has a character that is not plain ASCII (letters, digits, symbols) {where}").format(where=where)
    return ""


def check_key_hash(value: str, *, source: str = N_("the key-hash")) -> str:
    """``value`` when it can be sent as the ``key-hash`` header; ``InvalidKeyHash`` naming
    ``source`` (e.g. "the key-hash in POS_KEY_HASH") and the problem otherwise."""
    problem = key_hash_problem(value)
    if problem:
        raise InvalidKeyHash(_("{source} {problem}: a key-hash is letters, digits and symbols only, "
                               "with no spaces or line breaks; set it again without it").format(
                                   source=_(source), problem=problem))
    return value


class Redactor:
    """Replaces the values of known secrets by ``[redacted]``.

    Each secret is also looked for as JSON, a Python literal and a URL would escape it,
    so that a value quoted in an answer, a ``repr`` in a traceback or a query string is
    caught too.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._forms: tuple[str, ...] = ()
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        """Redact ``secret`` from now on (an empty one is ignored)."""
        if not secret:
            return
        forms = {secret, json.dumps(secret)[1:-1], repr(secret)[1:-1], quote(secret, safe="")}
        self._forms = tuple(sorted(set(self._forms) | forms, key=len, reverse=True))

    def __bool__(self) -> bool:
        return bool(self._forms)

    def text(self, text: str) -> str:
        for form in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text

    def value(self, value: Any) -> Any:
        """``value`` with every string in it redacted (dicts, keys included, lists, tuples)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.value(v) for v in value)
        return value

    def content(self, content: bytes) -> bytes:
        """A raw answer with the secrets' ASCII forms replaced (non-ASCII forms cannot be a key)."""
        for form in self._forms:
            if form.isascii() and (encoded := form.encode()) in content:
                content = content.replace(encoded, REDACTED.encode())
        return content


class RedactingFilter(logging.Filter):
    """A log filter (install it on a handler) that redacts the secrets from each record:
    its message with its arguments, its traceback and its stack."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.redactor:
            return True
        message = record.getMessage()
        redacted = self.redactor.text(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redactor.text(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redactor.text(record.stack_info)
        return True
