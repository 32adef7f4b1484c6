"""``RawAnswer``: a 2xx answer the client hands over unparsed (``PaymentsClient.exchange``:
a CSV, or the answer to a multipart upload), in a module of its own so that the route
families can name it without importing the client."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RawAnswer:
    """A 2xx answer as it came: its status, ``content-type`` header (empty when none) and body."""

    status_code: int
    content_type: str
    content: bytes
