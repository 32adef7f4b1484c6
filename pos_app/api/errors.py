"""The errors the payments client raises, one tree under ``PaymentsError``.

::

    PaymentsError                  anything the client could not turn into a typed answer
    ├── InvalidInput               refused locally; nothing was sent (also a ValueError)
    │   ├── InvalidKeyHash         a key-hash that cannot be a header: says what and where,
    │   │                          never the value (``pos_app.api.secrets.check_key_hash``)
    │   └── RequestNotBuilt        the request could not be built or was refused by httpx/h11
    │                              before its bytes left (a header value, an encoding error)
    ├── TransportError             no HTTP answer; ``request_sent`` says if it may have arrived
    │   ├── ConnectionFailed       connect refused/reset, connection dropped mid-answer
    │   └── TimedOut               connect, write or read timeout
    ├── ProtocolError              an answer that does not parse as the contract says
    │                              (``raw`` keeps the body for diagnosis)
    └── ApiError                   the service answered with an error; ``status_code``,
        │                          ``code`` (always a str), ``text``, ``messages``, ``path``
        ├── ServiceError           service error body (``response.code``/``text``/``message``)
        │   ├── ValidationFailed   code 900: ``messages`` lists each failed field
        │   └── ChargeRequestError status 901-906, with ``meaning`` from reference section 7
        ├── StatusError            status error body (``response.statusCode``/``message``)
        │   ├── Unauthorized       401: terminal not owned, no access, bad key
        │   ├── NotFound           404
        │   └── RateLimited        429; ``retry_after`` in seconds when the service said
        ├── ServerError            5xx other than 501
        └── GatewayDeclined        501, or a 2xx whose body says ``error: true``;
                                   ``transaction_id`` and ``result`` kept when present

An ``ApiError`` is chosen by status first (401, 404, 429, 501, 5xx, 901-906), then by the
body's shape. Both body shapes fill the same attributes, so callers read ``code``,
``text`` and ``messages`` without caring which shape came back. Messages never contain
the key-hash: the client never puts headers into an error, and it takes the key-hash's
value out of every answer before building anything from it (a service may echo it).
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from pos_app.api.wire import decode_json
from pos_app.i18n import N_, _

__all__ = [
    "ApiError", "ChargeRequestError", "ConnectionFailed", "GatewayDeclined", "InvalidInput",
    "InvalidKeyHash", "NotFound", "PaymentsError", "ProtocolError", "RateLimited", "RequestNotBuilt", "ServerError",
    "ServiceError", "StatusError", "TimedOut", "TransportError", "Unauthorized", "ValidationFailed",
    "error_from_answer",
]

CHARGE_REQUEST_MEANINGS: dict[int, str] = {
    901: N_("card or payment method required"),
    902: N_("vault id or payment token required"),
    904: N_("transaction type not allowed for the merchant"),
    905: N_("card number required (token charge without card.vaultId and card.number)"),
    906: N_("customer not found"),
}
"""Reference section 7's meaning of each charge request status (``_()`` when shown)."""


class PaymentsError(Exception):
    """Base of every error the payments client raises."""


class InvalidInput(PaymentsError, ValueError):
    """Input refused before any request left: an amount, a phone number, an id."""


class InvalidKeyHash(InvalidInput):
    """A key-hash that cannot be sent: the message says what and where, never the value."""


class RequestNotBuilt(InvalidInput):
    """The request could not be built, or httpx refused it before any byte left (a header
    value it cannot send, a body that cannot be encoded): nothing was sent."""


class TransportError(PaymentsError):
    """No HTTP answer came back.

    ``request_sent`` is False when the request certainly never reached the service
    (connection refused, connect timeout): nothing can have happened there. When True,
    the service may have acted on it: for a money-moving request the outcome is unknown.
    """

    def __init__(self, message: str, *, request_sent: bool) -> None:
        super().__init__(message)
        self.request_sent = request_sent


class ConnectionFailed(TransportError):
    """The connection could not be made, or broke before the answer was read."""


class TimedOut(TransportError):
    """Connecting, sending or waiting for the answer took longer than the limit."""


class ProtocolError(PaymentsError):
    """The service answered, but not in a shape the contract allows."""

    def __init__(self, message: str, *, raw: bytes = b"", status_code: int | None = None) -> None:
        super().__init__(message)
        self.raw = raw
        self.status_code = status_code


class ApiError(PaymentsError):
    """The service answered with an error status (or a decline inside a 2xx)."""

    def __init__(
        self,
        status_code: int,
        *,
        code: str | None = None,
        text: str = "",
        messages: list[str] | None = None,
        path: str | None = None,
        body: Any = None,
    ) -> None:
        self.status_code = status_code
        self.code = code
        self.text = text
        self.messages = list(messages or [])
        self.path = path
        self.body = body
        super().__init__(self._summary())

    def _summary(self) -> str:
        parts = [f"HTTP {self.status_code}"]
        if self.code is not None:
            parts.append(_("code {code}").format(code=self.code))
        if self.text:
            parts.append(self.text)
        if self.messages:
            parts.append("; ".join(self.messages))
        return ": ".join(parts)


class ServiceError(ApiError):
    """An error in the service body shape: ``response.code`` and ``response.text``."""


class ValidationFailed(ServiceError):
    """Code 900: request validation failed; ``messages`` has one entry per field."""


class ChargeRequestError(ServiceError):
    """Statuses 901-906: charge request errors; real answers, not transport failures."""

    @property
    def meaning(self) -> str:
        return _(CHARGE_REQUEST_MEANINGS.get(self.status_code, N_("charge request error (the reference gives no "
                                                                  "meaning)")))


class StatusError(ApiError):
    """An error in the status body shape: ``response.statusCode`` and ``message``."""


class Unauthorized(StatusError):
    """401: the terminal is not the merchant's, the user has no access, or the key is bad."""


class NotFound(StatusError):
    """404: no such terminal, payment, item, or the merchant lacks type B access."""


class RateLimited(StatusError):
    """429: slow down. ``retry_after`` is the service's wait in seconds, if it gave one."""

    def __init__(self, status_code: int, *, retry_after: float | None = None, **kwargs: Any) -> None:
        self.retry_after = retry_after
        super().__init__(status_code, **kwargs)


class ServerError(ApiError):
    """5xx (other than 501): the service failed; a GET may be retried, a payment never."""


class GatewayDeclined(ApiError):
    """The gateway declined: status 501, or ``error: true`` inside a 2xx answer.

    ``transaction_id`` is the gateway's id when one was issued (2xx declines may carry
    one); ``result`` is the parsed 2xx body when there was one.
    """

    def __init__(
        self, status_code: int, *, transaction_id: str | None = None, result: Any = None, **kwargs: Any
    ) -> None:
        self.transaction_id = transaction_id
        self.result = result
        super().__init__(status_code, **kwargs)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def error_from_answer(status_code: int, content: bytes, retry_after: str | None = None) -> ApiError:
    """The exception for an error answer: chosen by status, filled from either body shape.

    Never raises: a body that is not JSON, or not one of the two shapes, still yields
    the status's exception, with the raw text as ``text`` (trimmed).
    """
    try:
        body = decode_json(content) if content else None
    except (ValueError, RecursionError, UnicodeDecodeError):
        body = None
    fields = _error_fields(body)
    if not fields["text"] and body is None and content:
        fields["text"] = content[:200].decode("utf-8", "replace")
    shape_is_service = fields.pop("service_shape")
    if status_code == 401:
        return Unauthorized(status_code, body=body, **fields)
    if status_code == 404:
        return NotFound(status_code, body=body, **fields)
    if status_code == 429:
        return RateLimited(status_code, retry_after=parse_retry_after(retry_after), body=body, **fields)
    if status_code == 501:
        return GatewayDeclined(status_code, body=body, **fields)
    if 901 <= status_code <= 906:
        return ChargeRequestError(status_code, body=body, **fields)
    if 500 <= status_code < 600:
        return ServerError(status_code, body=body, **fields)
    if shape_is_service:
        if fields["code"] == "900":
            return ValidationFailed(status_code, body=body, **fields)
        return ServiceError(status_code, body=body, **fields)
    return StatusError(status_code, body=body, **fields)


def _error_fields(body: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"code": None, "text": "", "messages": [], "path": None, "service_shape": False}
    if not isinstance(body, dict):
        return fields
    if isinstance(body.get("path"), str):
        fields["path"] = body["path"]
    inner = body.get("response")
    if isinstance(inner, dict) and "code" in inner and not isinstance(inner["code"], (dict, list, bool)):
        fields["service_shape"] = True
        fields["code"] = None if inner["code"] is None else str(inner["code"])
        fields["text"] = _text(inner.get("text"))
        fields["messages"] = _messages(inner.get("message"))
    elif isinstance(inner, dict):
        fields["text"] = _text(inner.get("message")) or _text(inner.get("error"))
        fields["messages"] = _messages(inner.get("message")) if isinstance(inner.get("message"), list) else []
    if not fields["text"]:
        fields["text"] = _text(body.get("message"))
    return fields


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "; ".join(str(v) for v in value if isinstance(v, (str, int)))
    return ""


def _messages(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v if isinstance(v, str) else str(v) for v in value]
    return []
