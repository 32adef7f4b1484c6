"""The framework-free request/answer pair every sandbox handler works with, and the
two error body shapes of reference section 7.1.

Handlers take a ``Call`` and return a ``Reply`` or raise a ``Failure``; only ``app.py``
knows about Starlette. Keeping the error bodies here means every refusal, injected or
real, has exactly the shape the reference gives.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pos_app.api.wire import decode_json
from pos_app.sandbox.http_server import reason_phrase

CHARGE_REQUEST_TEXTS = {
    901: "card or payment method required",
    902: "vault id or payment token required",
    904: "transaction type not allowed for the merchant",
    905: "card number required",
    906: "customer not found",
}
"""Reference section 7.2; 903 has no meaning there and gets a generic text."""


@dataclass(frozen=True)
class Call:
    """One request as the handlers see it."""

    path: str
    query: Mapping[str, str] = field(default_factory=dict)
    params: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""
    key: str | None = None
    user_agent: str = ""

    def json_object(self) -> dict:
        """The body as a JSON object, or a 400 (code 900) saying it is not one."""
        try:
            value = decode_json(self.body) if self.body.strip() else None
        except ValueError:
            raise invalid(["body must be valid JSON"]) from None
        if not isinstance(value, dict):
            raise invalid(["body must be a JSON object"])
        return value


@dataclass(frozen=True)
class Reply:
    """A JSON answer (``body`` holds no floats), bytes sent as they are (a CSV, its
    content-type in ``headers``), or a dropped one when ``dropped``."""

    status: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    dropped: bool = False


DROPPED = Reply(0, dropped=True)
"""The connection is aborted and nothing is sent."""


class Failure(Exception):
    """An error answer; ``reply(path, now)`` renders it with the request path and the time."""

    def __init__(self, status: int, *, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.headers = dict(headers or {})

    def response(self) -> dict:
        raise NotImplementedError

    def reply(self, path: str, now: float) -> Reply:
        """The answer to a request for ``path``, stamped ``now`` (epoch seconds, service clock)."""
        body = {
            "statusCode": self.status,
            "timestamp": iso_time(now),
            "path": "/v1" + path,
            "message": _exception_name(self.status),
            "response": self.response(),
        }
        return Reply(self.status, body, self.headers)


class ServiceFailure(Failure):
    """Service error body: ``response: {code, text, message}``; ``message`` only with 900.

    ``code`` is an int for service-side codes (900, 101, 110, 901-906) and a str for
    gateway codes ("300" rejected, "400" and up processor errors).
    """

    def __init__(self, status: int, code: int | str, text: str, messages: list[str] | None = None) -> None:
        super().__init__(status)
        self.code, self.text, self.messages = code, text, messages

    def response(self) -> dict:
        response: dict[str, Any] = {"code": self.code, "text": self.text}
        if self.messages is not None:
            response["message"] = list(self.messages)
        return response


class StatusFailure(Failure):
    """Status error body: ``response: {statusCode, message, error}``."""

    def __init__(self, status: int, message: str, *, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(status, headers=headers)
        self.message = message

    def response(self) -> dict:
        return {"statusCode": self.status, "message": self.message, "error": status_text(self.status)}


def invalid(messages: list[str]) -> ServiceFailure:
    """400, code 900: request validation failed, one message per failed field."""
    return ServiceFailure(400, 900, "Request validation failed", messages)


def rejected(text: str) -> ServiceFailure:
    """400 with gateway code "300": the transaction's state does not allow the operation."""
    return ServiceFailure(400, "300", text)


def refused(text: str) -> ServiceFailure:
    """400 with code 101: a field names something that cannot be used (inactive terminal...)."""
    return ServiceFailure(400, 101, text)


def not_found(message: str) -> StatusFailure:
    return StatusFailure(404, message)


def rate_limited(retry_after: int) -> StatusFailure:
    return StatusFailure(
        429, f"too many requests; retry in {retry_after} s", headers={"Retry-After": str(retry_after)}
    )


def status_text(status: int) -> str:
    """The HTTP status text of the ``error`` field: the same words as the status line."""
    return reason_phrase(status).decode("ascii")


def _exception_name(status: int) -> str:
    """The exception summary of the ``message`` field (not for display), e.g. NotFoundException."""
    return re.sub(r"[^A-Za-z0-9]", "", status_text(status).title()) + "Exception"


def iso_time(epoch_seconds: float) -> str:
    """ISO 8601 in UTC with milliseconds, as the service writes times: 2024-05-01T12:00:00.000Z."""
    moment = datetime.fromtimestamp(epoch_seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
