"""What the route families (customers, links, uploads, card and ACH payments,
subscriptions) need of ``PaymentsClient``, in a module of their own so that they name it
without importing the client (no import circle): ``Caller``, and ``RawAnswer``, the 2xx
answer ``PaymentsClient.exchange`` hands over unparsed (a CSV, the answer to an upload)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pos_app.api.multipart import EncodedBody
from pos_app.api.parsing import Expect


@dataclass(frozen=True)
class RawAnswer:
    """A 2xx answer as it came: its status, ``content-type`` header (empty when none) and body."""

    status_code: int
    content_type: str
    content: bytes


class Caller(Protocol):
    """``PaymentsClient.call`` (``attempt_id`` for a route that may move money) and
    ``PaymentsClient.exchange``."""

    async def call[R](
        self,
        route_name: str,
        expect: Expect[R],
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        attempt_id: str | None = None,
    ) -> R: ...

    async def exchange(
        self,
        route_name: str,
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: EncodedBody | None = None,
    ) -> RawAnswer: ...
