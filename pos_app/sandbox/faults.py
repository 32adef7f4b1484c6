"""The ways the sandbox misbehaves on purpose: test amounts, fault knobs, injections.

Test amounts (base cents sent to terminal pay or pre-auth)::

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
    other      approved                                       approved

Knobs (settable in ``SandboxConfig.faults``, ``POST /_sandbox/faults``, ``SandboxServer.
set_faults`` and ``sandbox serve --fault NAME=VALUE``) are listed in ``KNOBS``. The
``*_next`` knobs count down: each request they hit uses one.

Injections (``POST /_sandbox/inject``) make the next ``count`` requests to one route
answer a given status with its canonical body before anything is processed.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from pos_app.sandbox.protocol import CHARGE_REQUEST_TEXTS, Failure, ServiceFailure, StatusFailure

DECLINE_BELOW = 100
GATEWAY_FAILURE = 9901
TIMEOUT_THEN_COMPLETE = 9902
TIMEOUT_FOREVER = 9903
DECLINE_WITHOUT_ID = 9904
DECLINE_501 = 9905
DROP_ANSWER = 9906
POLL_429 = 9907
UNAVAILABLE = 9908


@dataclass(frozen=True)
class Knob:
    name: str
    kind: type  # int or float
    default: int | float
    help: str
    minimum: int | float = 0


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
        Knob("close_batch_decline_next", int, 0, "next N close batches answer the decline shape"),
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
    if number < knob.minimum:
        raise ValueError(f"fault knob {knob.name} must be at least {knob.minimum}, got {value}")
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
    status: int
    remaining: int
    code: int | str | None = None
    text: str | None = None

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
