"""File uploads as ``multipart/form-data`` bodies (reference, general convention 1: bodies
are JSON except file uploads).

``PaymentsClient`` sends JSON for every body except an ``EncodedBody``, which leaves as
it is given, with its own content type. ``form_files`` builds one: each file a part of
the same form field, named by its file name, with its media type.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FormFile:
    """One file of a form: the name the service sees, its media type, its bytes."""

    name: str
    media_type: str
    content: bytes


@dataclass(frozen=True)
class EncodedBody:
    """A request body already encoded: sent as ``content`` with ``content_type``."""

    content: bytes
    content_type: str


def form_files(field: str, files: Sequence[FormFile]) -> EncodedBody:
    """``files`` as parts of the form field ``field`` (``attachments``, ``file``)."""
    boundary = "pos-app-" + secrets.token_hex(16)
    parts: list[bytes] = []
    for file in files:
        name = _quoted(file.name)
        # the form's wire format (RFC 7578)
        head = (f"--{boundary}\r\n"  # not for people
                f'Content-Disposition: form-data; name="{_quoted(field)}"; filename="{name}"\r\n'
                f"Content-Type: {file.media_type}\r\n\r\n")
        parts += [head.encode(), file.content, b"\r\n"]
    parts.append(f"--{boundary}--\r\n".encode())
    return EncodedBody(b"".join(parts), f"multipart/form-data; boundary={boundary}")  # not for people


def _quoted(text: str) -> str:
    """A header parameter value: quotes and line breaks escaped as browsers do (RFC 7578)."""
    return text.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
