"""The sandbox's memory: payments and terminal messages of both merchants, their
catalogs, request counts, fault knobs, and the one lock that keeps it all consistent
between the server thread and a test thread calling ``stats``/``set_faults``.

Type S messages (``records.Message``) are evaluated lazily: a message's state is a
function of the time since the sale. ``materialize`` (run at the start of every request)
creates the payments that have come due, so a transaction list shows a charge even when
nobody polled, and a poll never says ``complete`` before the payment exists; then it
runs the daily settlement when the ``settle_hour`` knob is set.
"""

from __future__ import annotations

import itertools
import math
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from pos_app.api.routes import Route
from pos_app.sandbox.catalog import Catalog
from pos_app.sandbox.faults import FOREIGN_USER_AGENT, Injections, Knobs
from pos_app.sandbox.merchants import (
    CARDS,
    Card,
    Merchant,
    Terminal,
    first_card_index,
    make_merchants,
    surcharge_for,
)
from pos_app.sandbox.protocol import (
    DROPPED,
    Call,
    Failure,
    Reply,
    StatusFailure,
    iso_time,
    not_found,
    rate_limited,
    refused,
)
from pos_app.sandbox.records import DECLINE, FollowUp, Message, Payment, QueuedJob, Sale, Transaction
from pos_app.sandbox.seeded_customers import seed_customers
from pos_app.sandbox.settlement import latest_run, settle
from pos_app.sandbox.subscription_book import SubscriptionBook
from pos_app.sandbox.vaults import Vaults

if TYPE_CHECKING:
    from pos_app.sandbox.config import SandboxConfig

POLL_WINDOW_S = 60.0


class Book:
    """Everything one merchant has: payments, messages, catalog, the next test card, and
    every gateway transaction (sale or pre-auth, capture, void, refund) in the order recorded."""

    def __init__(self, merchant: Merchant, catalog: Catalog, first_card: int) -> None:
        self.merchant = merchant
        self.catalog = catalog
        self.vaults = Vaults()
        self.subscriptions = SubscriptionBook()
        self.payments: dict[str, Payment] = {}
        self.by_transaction: dict[str, Payment] = {}
        self.messages: dict[str, Message] = {}
        self.transactions: list[Transaction] = []  # in the order recorded
        self.queued: list[QueuedJob] = []
        """Work queued by a request (a bulk charge), run once due (``materialize``)."""
        self.taxes: list[dict] = [tax.as_json() for tax in merchant.taxes]
        """The tax list as ``GET /public/tax`` answers it; ``POST /_sandbox/taxes`` replaces it
        with values the real service may send (a rate of 1E+30, a tax deleted that items name)."""
        self._cards = itertools.islice(itertools.cycle(CARDS), first_card, None)

    def next_card(self) -> Card:
        return next(self._cards)

    def add(self, payment: Payment) -> None:
        self.payments[payment.id] = payment
        self.by_transaction[payment.transaction_id] = payment
        self.transactions.append((payment, None))

    def add_follow_up(self, payment: Payment, follow_up: FollowUp) -> None:
        payment.follow_ups.append(follow_up)
        payment.touch(follow_up.at)
        self.transactions.append((payment, follow_up))


Handler = Callable[["Sandbox", Book, Call], Reply]


class Sandbox:
    """The state of one sandbox service; every method that touches it holds ``lock``."""

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.lock = threading.RLock()
        self.reset()

    def reset(self) -> None:
        """Fresh state from the config: same seed, same catalogs and seeded customers, knobs as configured."""
        config = self.config
        with self.lock:
            self.knobs = Knobs(
                {
                    "latency_ms": config.latency_ms,
                    "s_delay_min": config.s_delay[0],
                    "s_delay_max": config.s_delay[1],
                    **config.faults,
                }
            )
            self.injections = Injections()
            self._rng = random.Random(config.seed)
            self._serial = itertools.count(1)
            self.now = time.monotonic()
            merchants = make_merchants(config.key_s, config.key_b)
            self.by_key = {m.key: m for m in merchants}
            self.books = {
                m.code: Book(m, Catalog(m, config.seed, self.new_id, self.clock), first_card_index(config.seed, m.code))
                for m in merchants
            }
            for book in self.books.values():
                seed_customers(book.vaults, self.new_id, self.clock())
            self.counts: dict[str, Counter] = {m.code: Counter() for m in merchants}
            self._polls: dict[str, deque[float]] = {m.code: deque() for m in merchants}

    # ids -------------------------------------------------------------------------

    def new_id(self) -> str:
        """A 24-hex object id, unique within this sandbox."""
        return f"{self._rng.getrandbits(64):016x}{next(self._serial):08x}"

    def new_transaction_id(self) -> str:
        """A 12-digit gateway transaction id (pnRefNum)."""
        return f"{self._rng.randrange(1000, 10000)}{next(self._serial):08d}"

    # the service's view ----------------------------------------------------------------

    def clock(self) -> float:
        """The service's clock: epoch seconds, off by the ``clock_offset_s`` knob."""
        return time.time() + self.knobs["clock_offset_s"]

    def recorded_agent(self, call: Call) -> str:
        """The user-agent the service records for a terminal transaction requested by ``call``."""
        return FOREIGN_USER_AGENT if self.knobs["foreign_user_agent"] else call.user_agent

    # requests ----------------------------------------------------------------------

    def handle(self, route: Route, call: Call, handler: Handler) -> Reply:
        """Count, materialize, apply faults, authenticate, run ``handler``."""
        with self.lock:
            merchant = self.by_key.get(call.key) if call.key else None
            if merchant is not None:
                self.counts[merchant.code][route.name] += 1
            self.materialize()
            drop = False
            try:
                injection = self.injections.take(route.name)
                if injection is not None:
                    return injection.reply(call.path, self.clock())
                if self.knobs.take("error_5xx_next"):
                    raise StatusFailure(503, "service unavailable (sandbox fault error_5xx_next)")
                if route.moves_money and self.knobs.take("reset_next"):
                    return DROPPED
                drop = route.moves_money and self.knobs.take("drop_next")
                if merchant is None:
                    raise StatusFailure(401, "missing or unknown key-hash")
                reply = handler(self, self.books[merchant.code], call)
            except Failure as failure:
                reply = failure.reply(call.path, self.clock())
            if drop:
                return DROPPED
            if route.moves_money and self.knobs.take("error_5xx_after_next"):
                return StatusFailure(500, "internal error after processing (sandbox fault error_5xx_after_next)") \
                    .reply(call.path, self.clock())
            return reply

    def latency_s(self) -> float:
        return self.knobs["latency_ms"] / 1000

    def terminal(self, merchant: Merchant, terminal_id: str) -> Terminal:
        """The merchant's usable terminal: 401 when another merchant's, 404 unknown, 400 inactive."""
        terminal = merchant.terminal(terminal_id)
        if terminal is None:
            if any(b.merchant.terminal(terminal_id) for b in self.books.values()):
                raise StatusFailure(401, "terminal is not owned by this merchant")
            raise not_found(f"terminal {terminal_id} not found")
        if not terminal.is_active:
            raise refused("terminal is inactive")
        return terminal

    def count_poll(self, merchant: Merchant) -> None:
        """Take a slot of the sliding poll window, or 429 with the seconds until one frees."""
        window = self._polls[merchant.code]
        while window and window[0] <= self.now - POLL_WINDOW_S:
            window.popleft()
        limit = self.knobs["rate_limit_per_minute"]
        if len(window) >= limit:
            frees_at = window[len(window) - limit] + POLL_WINDOW_S
            raise rate_limited(max(1, math.ceil(frees_at - self.now)))
        window.append(self.now)

    # payments and messages ------------------------------------------------------------

    def record_payment(self, book: Book, sale: Sale, *, declined: bool, at: float, mono: float) -> Payment:
        """Record a sale or pre-auth that happened at ``at`` (service clock) and ``mono``."""
        card = book.next_card()
        payment = Payment(
            id=self.new_id(),
            record_id=self.new_id(),
            transaction_id=self.new_transaction_id(),
            merchant=book.merchant,
            sale=sale,
            card=card,
            amount=sale.amount,
            surcharge=surcharge_for(book.merchant, card, sale.amount),
            status="declined" if declined else ("captured" if sale.kind == "sale" else "auth"),
            paid=not declined,
            captured=sale.kind == "sale" and not declined,
            error="DECLINED" if declined else None,
            created_at=at,
            created_mono=mono,
            updated_at=at,
        )
        book.add(payment)
        return payment

    def start_message(self, book: Book, sale: Sale, outcome: str, *, polls_429: int) -> Message:
        low, high = self.knobs["s_delay_min"], self.knobs["s_delay_max"]
        message = Message(
            id="m-" + self.new_id(),
            sale=sale,
            outcome=outcome,
            created_mono=self.now,
            created_wall=self.clock(),
            duration=self._rng.uniform(low, high),
            hold=self.knobs["timeout_hold_s"],
            polls_429_left=polls_429,
        )
        book.messages[message.id] = message
        return message

    def materialize(self) -> None:
        """Record the payments of every type S message whose gateway answer is due, then
        run the daily settlement if ``settle_hour`` is set and its latest run has passed."""
        self.now = time.monotonic()
        for book in self.books.values():
            due = [m for m in book.messages.values() if m.charge_due(self.now)]
            for message in sorted(due, key=lambda m: m.created_mono + m.duration):
                payment = self.record_payment(
                    book,
                    message.sale,
                    declined=message.outcome == DECLINE,
                    at=message.created_wall + message.duration,
                    mono=message.created_mono + message.duration,
                )
                message.payment_id = payment.id
        for book in self.books.values():
            for job in [job for job in book.queued if job.due <= self.now]:
                book.queued.remove(job)
                job.run()
        hour = int(self.knobs["settle_hour"])
        if hour >= 0:
            now = self.clock()
            cutoff = latest_run(hour, now)
            settle((p for p in self._all_payments() if p.created_at < cutoff), at=now)

    def _all_payments(self) -> list[Payment]:
        return [p for book in self.books.values() for p in book.payments.values()]

    # admin ---------------------------------------------------------------------------

    def stats(self) -> dict:
        with self.lock:
            self.materialize()
            payments = sorted(self._all_payments(), key=lambda p: p.created_at)
            messages = sorted(
                ((book.merchant.code, m) for book in self.books.values() for m in book.messages.values()),
                key=lambda pair: pair[1].created_mono,
            )
            return {
                "requests": {code: dict(counter) for code, counter in self.counts.items()},
                "payments": [
                    {
                        "merchant": p.merchant.code,
                        "id": p.id,
                        "terminalId": p.sale.terminal.id,
                        "amount": p.amount,
                        "status": p.status,
                        "paid": p.paid,
                        "userAgent": p.sale.user_agent,
                        "createdAt": iso_time(p.created_at),
                    }
                    for p in payments
                ],
                "terminals": [
                    {
                        "merchant": book.merchant.code,
                        "id": t.id,
                        "name": t.name,
                        "serialNumber": t.serial_number,
                        "isActive": t.is_active,
                    }
                    for book in self.books.values()
                    for t in book.merchant.terminals
                ],
                "messages": [
                    {
                        "merchant": code,
                        "msgIdentifier": m.id,
                        "amount": m.sale.amount,
                        "status": m.status(self.now),
                        "completedAt": _epoch(m.completed_at(self.now)),
                    }
                    for code, m in messages
                ],
            }

    def set_faults(self, knobs: dict[str, object]) -> dict:
        with self.lock:
            self.knobs.update(knobs)
            return self.knobs.as_json()

    def settle(self) -> int:
        """Settle every captured, unsettled payment of both merchants; how many were settled."""
        with self.lock:
            self.materialize()
            return settle(self._all_payments(), at=self.clock())


def _epoch(seconds: float | None) -> Decimal | None:
    return None if seconds is None else Decimal(f"{seconds:.3f}")
