"""The parts of a ``multipart/form-data`` request body (the sandbox's upload routes:
attachments, the customer CSV import), read by the standard library's MIME parser.

The handlers see the body, not the headers: the boundary is read from the body's first
line, which is where a multipart body without preamble starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP

from pos_app.sandbox.protocol import invalid


@dataclass(frozen=True)
class Part:
    """One part of the form: its field name, file name (None for a plain field), media type, bytes."""

    field: str
    filename: str | None
    media_type: str
    content: bytes


def read_parts(body: bytes, field: str) -> list[Part]:
    """Every part of ``body``; a body that is no multipart form is refused naming ``field``,
    the one the route expects."""
    first_line, newline, _ = body.partition(b"\r\n")
    if not first_line.startswith(b"--") or len(first_line) < 3 or not newline:
        raise invalid([f"body must be multipart/form-data with the field {field}"])
    if not body.rstrip().endswith(first_line + b"--"):
        raise invalid(["the multipart body is not closed by its boundary"])
    boundary = first_line[2:].decode("latin-1")
    header = f'Content-Type: multipart/form-data; boundary="{boundary}"\r\n\r\n'.encode("latin-1")
    message = BytesParser(policy=HTTP).parsebytes(header + body)
    parts = []
    for part in message.iter_parts():
        content = part.get_payload(decode=True)
        parts.append(Part(field=part.get_param("name", "", header="content-disposition") or "",
                          filename=part.get_filename(),
                          media_type=part.get_content_type(),
                          content=content if isinstance(content, bytes) else b""))
    return parts
