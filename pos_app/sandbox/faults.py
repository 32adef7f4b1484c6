"""The ways the sandbox misbehaves on purpose: test amounts, fault knobs, injections.

Test amounts (base cents sent to terminal pay or pre-auth; the card and ACH charge routes
take them too, ``pos_app.sandbox.card_payments``)::

    amount     type S (asynchronous)                          type B (synchronous)
    < 100      message completes, payment declined            2xx error true; transactionId
               (paid false, status declined, error set)       present, payment recorded declined
    9901       message ends failed (no payment)               400 service body "gateway failure"
    9902       message in timeout for timeout_hold_s, then    approved
               complete, approved (payment made when the
               timeout starts)
    9903       message stays timeout forever; the payment     approved
               IS made, approved (find it in transactions)
    9904       2xx {error: true, gwResponse DECLINED},        2xx error true decline without a
               no msgIdentifier, nothing recorded             transactionId, nothing recorded
    9905       approved                                       501 status body (declined before a
                                                              transaction id was issued)
    9906       charge made, then the answer is dropped        charge made, then the answer is dropped
    9907       first poll_429_count polls of the message      approved
               answer 429 with Retry-After 1
    9908       503 before anything is charged                 503 before anything is charged
    9909       (charge routes) charge made, then 500          charge made, then 500
    other      approved                                       approved

Knobs (settable in ``SandboxConfig.faults``, ``POST /_sandbox/faults``, ``SandboxServer.
set_faults`` and ``sandbox serve --fault NAME=VALUE``) are listed in ``KNOBS``. The
``*_next`` knobs count down: each request they hit uses one. The others change what
the service records or how it lists it, the way a real service might:

    list_lag_s          an entry of GET /public/transactions appears only this many
                        seconds after its transaction happened (GET /public/payment/{id}
                        is not lagged)
    list_oldest_first   1: the transaction list is sorted oldest first
    clock_offset_s      the service's clock is off by this many seconds (may be negative):
                        every timestamp it records or writes from then on is shifted
    foreign_user_agent  1: terminal transactions made meanwhile are recorded with the
                        user-agent FOREIGN_USER_AGENT (the terminal's own) instead of
                        the request's; switching it off later does not rewrite them
    list_bool_fields    1: list entries carry ``error: false`` instead of null and
                        ``captured`` as a boolean instead of "true"/"false"
    settle_hour         0-23: a daily settlement run at that local hour: at every
                        request, each captured, unsettled payment created before the
                        latest run (by the service's clock) is settled; -1 (the
                        default) is off

Injections (``POST /_sandbox/inject``) make the next ``count`` requests to one route
answer a given status with its canonical body, or with a given ``body`` (any status from
100, a 2xx included), before anything is processed.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pos_app.sandbox.protocol import CHARGE_REQUEST_TEXTS, Failure, Reply, ServiceFailure, StatusFailure

DECLINE_BELOW = 100
GATEWAY_FAILURE = 9901
TIMEOUT_THEN_COMPLETE = 9902
TIMEOUT_FOREVER = 9903
DECLINE_WITHOUT_ID = 9904
DECLINE_501 = 9905
DROP_ANSWER = 9906
POLL_429 = 9907
UNAVAILABLE = 9908
SERVER_ERROR_AFTER = 9909


FOREIGN_USER_AGENT = "TerminalGateway/2.1 (device)"
"""The user-agent recorded while ``foreign_user_agent`` is 1."""


@dataclass(frozen=True)
class Knob:
    """A knob and the values it accepts: from ``minimum`` (None: no lower bound) to ``maximum``."""

    name: str
    kind: type  # int or float
    default: int | float
    help: str
    minimum: int | float | None = 0
    maximum: int | float | None = None


KNOBS: dict[str, Knob] = {
    knob.name: knob
    for knob in (
        Knob("latency_ms", int, 0, "milliseconds added before every non-admin answer"),
        Knob("s_delay_min", float, 2.0, "shortest type S pay/auth to message complete, seconds"),
        Knob("s_delay_max", float, 4.0, "longest type S pay/auth to message complete, seconds"),
        Knob("timeout_hold_s", float, 6.0, "seconds an amount-9902 message stays in timeout"),
        Knob("poll_429_count", int, 3, "polls of an amount-9907 message answered 429"),
        Knob("rate_limit_per_minute", int, 120, "polls per key per sliding 60 s", minimum=1),
        Knob("drop_next", int, 0, "next N money-moving requests: processed, then the answer dropped"),
        Knob("reset_next", int, 0, "next N money-moving requests: connection aborted before processing"),
        Knob("error_5xx_next", int, 0, "next N non-admin requests answer 503 before processing"),
        Knob("error_5xx_after_next", int, 0, "next N money-moving requests: processed, then answer 500"),
        Knob("bulk_delay_s", float, 0.3, "seconds before a queued bulk charge's payments are made"),
        Knob("close_batch_decline_next", int, 0, "next N close batches answer the decline shape"),
        Knob("list_lag_s", float, 0.0, "seconds before a transaction shows in the transaction list"),
        Knob("list_oldest_first", int, 0, "1: the transaction list is sorted oldest first", maximum=1),
        Knob("clock_offset_s", float, 0.0, "seconds the service's clock is off (may be negative)", minimum=None),
        Knob("foreign_user_agent", int, 0, f"1: terminal transactions are recorded as {FOREIGN_USER_AGENT}",
             maximum=1),
        Knob("list_bool_fields", int, 0, "1: list entries carry error false and captured as booleans", maximum=1),
        Knob("settle_hour", int, -1, "local hour of a daily settlement run; -1 is off", minimum=-1, maximum=23),
        Knob("approve_at_most", int, 0, "cents: a pay or pre-auth of more is approved for only this much "
                                        "(a partial approval); 0 is off"),
    )
}


class Knobs:
    """The current knob values; ``update`` checks every change before applying any."""

    def __init__(self, initial: Mapping[str, object] | None = None) -> None:
        self._values: dict[str, int | float] = {name: knob.default for name, knob in KNOBS.items()}
        self.update(initial or {})

    def __getitem__(self, name: str) -> int | float:
        return self._values[name]

    def update(self, changes: Mapping[str, object]) -> None:
        """Apply ``changes``; ValueError naming the knob when a name or value is bad."""
        values = dict(self._values)
        for name, value in changes.items():
            knob = KNOBS.get(name)
            if knob is None:
                raise ValueError(f"unknown fault knob {name!r}; known: {', '.join(KNOBS)}")
            values[name] = _coerce(knob, value)
        if values["s_delay_min"] > values["s_delay_max"]:
            raise ValueError(
                f"s_delay_min ({values['s_delay_min']}) must not be greater than s_delay_max ({values['s_delay_max']})"
            )
        self._values = values

    def take(self, name: str) -> bool:
        """Use one count of a ``*_next`` knob; False when it is at 0."""
        if self._values[name] <= 0:
            return False
        self._values[name] -= 1
        return True

    def as_json(self) -> dict:
        """Knob values for a JSON answer: float seconds as exact decimals."""
        return {name: Decimal(repr(v)) if isinstance(v, float) else v for name, v in self._values.items()}


def _coerce(knob: Knob, value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise ValueError(f"fault knob {knob.name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"fault knob {knob.name} must be a finite number, got {value}")
    if knob.kind is int:
        if value != int(value):
            raise ValueError(f"fault knob {knob.name} must be a whole number, got {value}")
        number: int | float = int(value)
    else:
        number = float(value)
    if knob.minimum is not None and number < knob.minimum:
        raise ValueError(f"fault knob {knob.name} must be at least {knob.minimum}, got {value}")
    if knob.maximum is not None and number > knob.maximum:
        raise ValueError(f"fault knob {knob.name} must be at most {knob.maximum}, got {value}")
    return number


def parse_knob_text(text: str) -> tuple[str, int | float]:
    """``NAME=VALUE`` from the command line; the value is checked later by ``Knobs``."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"--fault needs NAME=VALUE, got {text!r}")
    try:
        value: int | float = int(raw)
    except ValueError:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"fault knob {name.strip()} must be a number, got {raw!r}") from None
    return name.strip(), value


@dataclass
class Injection:
    """The next ``remaining`` requests of a route answer ``status``: with ``body`` exactly
    as given when ``has_body`` (any status, a 2xx included: an odd success), else with
    the canonical error body of the status."""

    status: int
    remaining: int
    code: int | str | None = None
    text: str | None = None
    body: Any = None
    has_body: bool = False

    def reply(self, path: str, now: float) -> Reply:
        if self.has_body:
            return Reply(self.status, self.body)
        return self.failure().reply(path, now)

    def failure(self) -> Failure:
        """The canonical answer for the status: service body for 400 and 900-906, status body else."""
        if self.status == 400 or 900 <= self.status <= 906:
            code = self.code if self.code is not None else (900 if self.status == 400 else self.status)
            text = self.text or CHARGE_REQUEST_TEXTS.get(self.status) or (
                "Request validation failed" if code == 900 else "charge request error"
            )
            messages = [f"injected by the sandbox: {text}"] if code == 900 else None
            return ServiceFailure(self.status, code, text, messages)
        headers = {"Retry-After": "1"} if self.status == 429 else None
        return StatusFailure(self.status, self.text or "injected by the sandbox", headers=headers)


class Injections:
    """Pending injections per route name, used first come first served."""

    def __init__(self) -> None:
        self._pending: dict[str, deque[Injection]] = {}

    def add(self, route: str, injection: Injection) -> None:
        self._pending.setdefault(route, deque()).append(injection)

    def take(self, route: str) -> Injection | None:
        queue = self._pending.get(route)
        if not queue:
            return None
        injection = queue[0]
        injection.remaining -= 1
        if injection.remaining <= 0:
            queue.popleft()
        return injection

    def as_json(self) -> dict:
        return {
            route: [{"status": i.status, "remaining": i.remaining} for i in queue]
            for route, queue in self._pending.items()
            if queue
        }
