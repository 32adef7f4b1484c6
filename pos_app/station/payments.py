"""The manager's payments list: the journal's card payments merged with the service's
transaction list, one row per payment, and what may still be done with each.

Why merge: the journal knows what this station asked and who was signed in, but only
the service knows what happened to the money later (settled, voided or refunded from
another lane, a charge whose answer was lost). A row takes its status from the journal
when the journal has a final outcome (a person may have decided it), from the service
otherwise; its settled flag, surcharge and card come from the service. An attempt the
journal holds as unknown stays ``UNKNOWN`` here even when the list shows a charge: only
the needs-attention workflow resolves it (checked against the service), never a list.

Money: ``base`` is what the cart cost (the amount sent to the terminal), ``surcharge``
what the service added; both integer cents. Refunds move the base (the terminal refund
route takes the base amount), so ``refundable`` is the base not yet refunded.

A payment made through the service's charge routes (a card on file, a bank account) is a
row too, saying what it is (``PaymentMethod``: "card on file •••• 4242", "ACH ••6789"), its
follow-ups found by its payment id; it is voided and refunded through those routes, never a
terminal's. One only the service lists is taken for such a payment when its entry is ACH,
carries an ``order.externalId`` (as every charge of pos-app's charge routes does) or names
no terminal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import cached_property
from typing import Any

from pos_app.api.identity import attempt_in, cashier_in
from pos_app.api.models import TransactionEntry
from pos_app.i18n import N_, _
from pos_app.journal import Attempt, Operation, Outcome
from pos_app.station.figures import moves_like
from pos_app.terminal.lookup import entry_time


class PaymentStatus(StrEnum):
    APPROVED = "approved"
    PREAUTH = "pre-auth"
    """An open authorization: funds held, nothing captured yet."""
    PARTLY_REFUNDED = "partly refunded"  # not for people: a value (``label`` is the text)
    REFUNDED = "refunded"
    VOIDED = "voided"
    DECLINED = "declined"
    FAILED = "failed"
    """Never reached the card (nothing charged)."""
    UNKNOWN = "unknown"
    """Money may or may not have moved: see the needs-attention list."""

    @property
    def label(self) -> str:
        """The status as a person reads it, in the language in force (the value stays English)."""
        return _(_STATUS_LABELS[self])


class PaymentMethod(StrEnum):
    """What a payment was taken on, and so which routes void and refund it."""

    TERMINAL = "terminal"
    """A card on a payment terminal: its follow-ups name the terminal and the pnRefNum."""
    CARD_ON_FILE = "card on file"  # not for people: a value (``label`` is the text)
    """A card charged through the service's charge route (no terminal): by payment id."""
    ACH = "ACH"
    """A bank account: by payment id on the ACH routes."""

    @property
    def label(self) -> str:
        """The method as a person reads it, in the language in force (the value stays English)."""
        return _(_METHOD_LABELS[self])


_STATUS_LABELS = {
    PaymentStatus.APPROVED: N_("approved"), PaymentStatus.PREAUTH: N_("pre-auth"),
    PaymentStatus.PARTLY_REFUNDED: N_("partly refunded"), PaymentStatus.REFUNDED: N_("refunded"),
    PaymentStatus.VOIDED: N_("voided"), PaymentStatus.DECLINED: N_("declined"), PaymentStatus.FAILED: N_("failed"),
    PaymentStatus.UNKNOWN: N_("unknown"),
}
_METHOD_LABELS = {PaymentMethod.TERMINAL: N_("terminal"), PaymentMethod.CARD_ON_FILE: N_("card on file"),
                  PaymentMethod.ACH: N_("ACH")}


CHARGE_OPERATIONS = {Operation.SALE: PaymentMethod.TERMINAL, Operation.PREAUTH: PaymentMethod.TERMINAL,
                     Operation.CARD_CHARGE: PaymentMethod.CARD_ON_FILE, Operation.ACH_CHARGE: PaymentMethod.ACH}
"""The journal's operations that make a payment (a row), and what it is taken on."""


class Source(StrEnum):
    JOURNAL = "journal"
    """Only this station's journal knows it (the list does not show it, or not yet)."""
    SERVICE = "service"
    """Only the service's list shows it (another lane, or made outside pos-app)."""
    BOTH = "both"


PAYMENT_TYPES = frozenset({"sale", "auth", "ach"})
FOLLOW_UP_TYPES = frozenset({"capture", "void", "refund"})
_JOURNAL_STATUS = {Outcome.DECLINED: PaymentStatus.DECLINED, Outcome.FAILED: PaymentStatus.FAILED,
                   Outcome.UNKNOWN: PaymentStatus.UNKNOWN}


@dataclass(frozen=True)
class PaymentRow:
    """One payment (a sale, or a pre-auth and its capture; a card on file's or a bank
    account's charge) as the list shows it."""

    key: str
    """Stable identity: the payment id, else the gateway transaction id, else the attempt id."""
    at: datetime | None
    terminal_id: str | None
    """The terminal that took it; None for a payment of the service's charge routes."""
    cashier: str | None
    operation: Operation
    """``SALE`` or ``PREAUTH`` (a captured pre-auth stays ``PREAUTH``: its status says captured)."""
    status: PaymentStatus
    base: int | None
    surcharge: int = 0
    refunded: int = 0
    """Base cents refunded so far (the journal's approved refunds or the list's, whichever is more)."""
    surcharge_returned: int = 0
    """Surcharge cents the list shows returned with the refunds."""
    settled: bool | None = None
    card_brand: str | None = None
    card_last4: str | None = None
    payment_id: str | None = None
    transaction_id: str | None = None
    attempt_id: str | None = None
    source: Source = Source.JOURNAL
    decided_by: str | None = None
    """The manager who decided the outcome of an unknown, when one did."""
    conflict: bool = False
    """Decided not paid, but the service's later answer says the card was charged: the
    row shows the charge (so it can be voided or refunded) and the needs-attention list
    shows the conflict."""
    method: PaymentMethod = PaymentMethod.TERMINAL

    @property
    def total(self) -> int:
        """What the customer paid: base plus surcharge (0 for an unknown base)."""
        return (self.base or 0) + self.surcharge

    @property
    def refundable(self) -> int:
        """Base cents a refund may still return: only a settled, charged payment."""
        if self.status not in (PaymentStatus.APPROVED, PaymentStatus.PARTLY_REFUNDED) or self.settled is not True:
            return 0
        return max((self.base or 0) - self.refunded, 0)

    @property
    def voidable(self) -> bool:
        """An unsettled charge or open pre-auth: voided, not refunded."""
        return (self.status in (PaymentStatus.APPROVED, PaymentStatus.PREAUTH) and self.settled is False
                and self.refunded == 0 and self.follow_up_ref is not None)

    @property
    def follow_up_ref(self) -> str | None:
        """What a void or refund names: a terminal's pnRefNum, else the payment id."""
        return self.transaction_id if self.method is PaymentMethod.TERMINAL else self.payment_id

    @property
    def card(self) -> str:
        """``Visa •••• 4242``, ``card on file Visa •••• 4242`` or ``ACH ••6789``."""
        if self.method is PaymentMethod.ACH:
            return f"ACH ••{self.card_last4}" if self.card_last4 else "ACH"
        card = " ".join(part for part in (self.card_brand, f"•••• {self.card_last4}" if self.card_last4 else None)
                        if part)
        return _("card on file {card}").format(card=card).strip() if self.method is PaymentMethod.CARD_ON_FILE else card

    @cached_property
    def text(self) -> str:
        """What the text filter searches: ids, cashier, terminal, card, status (built once per
        row: a keystroke over 10,000 rows only tests substrings)."""
        return " ".join(str(part) for part in (
            self.key, self.payment_id, self.transaction_id, self.attempt_id, self.cashier, self.terminal_id,
            self.card_brand, self.card_last4, self.status.value, self.method.value) if part).casefold()


@dataclass(frozen=True)
class PaymentFilter:
    """What the manager narrowed the list to; empty fields match everything."""

    terminal_id: str | None = None
    status: PaymentStatus | None = None
    min_total: int | None = None
    max_total: int | None = None
    """Bounds on ``total`` in cents, inclusive."""
    text: str = ""

    def __call__(self, row: PaymentRow) -> bool:
        if self.terminal_id and row.terminal_id != self.terminal_id:
            return False
        if self.status is not None and row.status is not self.status:
            return False
        if self.min_total is not None and row.total < self.min_total:
            return False
        if self.max_total is not None and row.total > self.max_total:
            return False
        words = self.text.casefold().split()
        if words:
            haystack = row.text
            return all(word in haystack for word in words)
        return True


def filtered(rows: Iterable[PaymentRow], wanted: PaymentFilter) -> list[PaymentRow]:
    return [row for row in rows if wanted(row)]


@dataclass
class _Group:
    """The list entries of one payment: its sale/auth entry and its follow-ups."""

    payment: TransactionEntry | None = None
    follow_ups: list[TransactionEntry] = field(default_factory=list)


@dataclass
class _Kept:
    """What ``merge_history`` keeps of one row between calls: the attempt it was drafted
    from, the journal's part of its draft, and the last whole draft with its row."""

    attempt: Attempt | None
    journal_part: dict[str, Any]
    draft: dict[str, Any] | None = None
    row: PaymentRow | None = None


Drafts = dict[str, _Kept]
"""Kept rows by attempt id (or list key for a row only the service has); see ``merge_history``."""


def merge_history(attempts: Iterable[Attempt], entries: Iterable[TransactionEntry], *,
                  drafts: Drafts | None = None) -> list[PaymentRow]:
    """Rows for the journal's sales and pre-auths and the list's payments, newest first.

    ``attempts`` may hold every operation of the period (follow-ups are folded into the
    payments they name); ``entries`` are the list entries of the same period. Each row is
    drafted as a dict and built once. ``drafts``, kept by the caller between calls, spares
    redrafting an attempt that has not changed (the same ``Attempt`` object) and rebuilding
    a row whose draft came out the same as last time (the same ``PaymentRow`` comes back)."""
    groups = _group(entries)
    attempts = list(attempts)
    kept_rows: Drafts = drafts if drafts is not None else {}
    follow_ups: dict[str, list[Attempt]] = {}
    for attempt in attempts:
        if attempt.operation.acts_as in (Operation.CAPTURE, Operation.VOID, Operation.REFUND) and attempt.ref:
            follow_ups.setdefault(attempt.ref, []).append(attempt)
    by_attempt: dict[str, str] = {}
    by_transaction: dict[str, str] = {}
    for key, group in groups.items():
        if group.payment is not None:
            named = attempt_in(group.payment.user_agent)
            if named:
                by_attempt[named] = key
            if group.payment.transaction_id:
                by_transaction[group.payment.transaction_id] = key
    rows: list[PaymentRow] = []
    used: set[str] = set()
    for attempt in attempts:
        if attempt.operation not in CHARGE_OPERATIONS:
            continue
        kept = kept_rows.get(attempt.id)
        if kept is None or kept.attempt is not attempt:
            kept = kept_rows[attempt.id] = _Kept(attempt, _journal_draft(attempt))
        draft = dict(kept.journal_part)
        transaction = draft["transaction_id"]
        found = (by_attempt.get(attempt.id) or (by_transaction.get(transaction) if transaction else None)
                 or (draft["payment_id"] if draft["payment_id"] in groups else None))
        if found and found not in used:
            used.add(found)
            _add_service(draft, groups[found])
        _add_journal_follow_ups(draft, [*follow_ups.get(draft["transaction_id"] or "", []),
                                        *follow_ups.get(draft["payment_id"] or "", [])])
        rows.append(_row(kept, draft))
    for key, group in groups.items():
        if key not in used and group.payment is not None:
            draft = _service_draft(key, group.payment)
            _add_service(draft, group)
            rows.append(_row(kept_rows.setdefault(f"service {key}", _Kept(None, {})), draft))  # not for people
    return sorted(rows, key=lambda r: r.at.timestamp() if r.at else 0.0, reverse=True)


def _row(kept: _Kept, draft: dict[str, Any]) -> PaymentRow:
    """The row of ``draft``: the one built last time when the draft is the same."""
    if kept.row is None or kept.draft != draft:
        kept.draft, kept.row = draft, PaymentRow(**draft)
    return kept.row


def _group(entries: Iterable[TransactionEntry]) -> dict[str, _Group]:
    groups: dict[str, _Group] = {}
    for entry in entries:
        kind = (entry.type or "").casefold()
        key = entry.payment_id or entry.transaction_id or entry.id
        if not key or kind not in PAYMENT_TYPES | FOLLOW_UP_TYPES:
            continue
        group = groups.setdefault(key, _Group())
        if kind in PAYMENT_TYPES:
            group.payment = entry
        else:
            group.follow_ups.append(entry)
    return groups


def _journal_draft(attempt: Attempt) -> dict[str, Any]:
    late = attempt.conflict or {}
    charged_anyway = late.get("outcome") == Outcome.APPROVED.value  # a late approval after "not paid"
    result = {**(attempt.result or {}), **late} if charged_anyway else (attempt.result or {})
    operation, method = moves_like(attempt), CHARGE_OPERATIONS[attempt.operation]
    if attempt.outcome is Outcome.APPROVED or charged_anyway:
        status = PaymentStatus.PREAUTH if operation is Operation.PREAUTH else PaymentStatus.APPROVED
    else:
        status = _JOURNAL_STATUS.get(attempt.outcome or Outcome.UNKNOWN, PaymentStatus.UNKNOWN)
    return {
        "key": _text(result.get("payment_id")) or _text(result.get("transaction_id")) or attempt.id,
        "at": attempt.created_at, "cashier": attempt.cashier,
        "terminal_id": attempt.terminal_id if method is PaymentMethod.TERMINAL else None,
        "operation": operation, "status": status, "base": attempt.amount, "surcharge": 0, "refunded": 0,
        "surcharge_returned": 0, "settled": None, "card_brand": _text(result.get("card_brand")),
        "card_last4": _text(result.get("card_last4")), "payment_id": _text(result.get("payment_id")),
        "transaction_id": _text(result.get("transaction_id")), "attempt_id": attempt.id, "source": Source.JOURNAL,
        "decided_by": attempt.resolved_by, "conflict": charged_anyway, "method": method,
    }


def _service_draft(key: str, entry: TransactionEntry) -> dict[str, Any]:
    kind = (entry.type or "").casefold()
    if entry.declined:
        status = PaymentStatus.DECLINED
    else:
        status = PaymentStatus.PREAUTH if kind == "auth" else PaymentStatus.APPROVED
    return {
        "key": key, "at": entry_time(entry), "cashier": cashier_in(entry.user_agent),
        "terminal_id": entry.terminal_id if _method(entry) is PaymentMethod.TERMINAL else None,
        "operation": Operation.PREAUTH if kind == "auth" else Operation.SALE, "status": status,
        "base": entry.base_amount if entry.base_amount is not None else entry.amount, "surcharge": 0, "refunded": 0,
        "surcharge_returned": 0, "settled": None, "card_brand": None, "card_last4": None,
        "payment_id": entry.payment_id, "transaction_id": entry.transaction_id,
        "attempt_id": attempt_in(entry.user_agent), "source": Source.SERVICE, "decided_by": None, "conflict": False,
        "method": _method(entry),
    }


def _method(entry: TransactionEntry) -> PaymentMethod:
    """What a payment only the service lists was taken on (see the module docstring)."""
    extra = entry.model_extra or {}
    if (entry.type or "").casefold() == "ach" or isinstance(extra.get("ach"), dict):
        return PaymentMethod.ACH
    order = extra.get("order")
    if (isinstance(order, dict) and order.get("externalId")) or entry.terminal_id is None:
        return PaymentMethod.CARD_ON_FILE
    return PaymentMethod.TERMINAL


def _add_service(draft: dict[str, Any], group: _Group) -> None:
    """The service's facts on the draft: settled, surcharge, card, ids, and its follow-ups."""
    entry = group.payment
    assert entry is not None
    card = entry.card
    if isinstance(entry.settled, bool):
        draft["settled"] = entry.settled
    surcharge = entry.surcharge if entry.surcharge is not None else (
        entry.amount - entry.base_amount if entry.amount is not None and entry.base_amount is not None else 0)
    draft["surcharge"] = max(surcharge, 0)
    account = (entry.model_extra or {}).get("ach")
    if draft["method"] is PaymentMethod.ACH and isinstance(account, dict):  # a bank account: no card brand
        draft["card_brand"] = None
        draft["card_last4"] = draft["card_last4"] or _text(account.get("last4"))
    elif card is not None:
        draft["card_brand"] = draft["card_brand"] or card.brand or card.network or card.type
        draft["card_last4"] = draft["card_last4"] or card.last4
    draft["payment_id"] = draft["payment_id"] or entry.payment_id
    draft["transaction_id"] = draft["transaction_id"] or entry.transaction_id
    if draft["method"] is PaymentMethod.TERMINAL:
        draft["terminal_id"] = draft["terminal_id"] or entry.terminal_id
    if draft["cashier"] is None:
        draft["cashier"] = cashier_in(entry.user_agent)
    if draft["source"] is Source.JOURNAL:
        draft["source"] = Source.BOTH
    refunded = returned = 0
    voided = False
    for follow_up in group.follow_ups:
        if follow_up.declined:
            continue
        kind = (follow_up.type or "").casefold()
        if kind == "void":
            voided = True
        elif kind == "refund":
            refunded += follow_up.base_amount if follow_up.base_amount is not None else (follow_up.amount or 0)
            returned += follow_up.surcharge or 0
        elif kind == "capture":
            if draft["status"] is PaymentStatus.PREAUTH:
                draft["status"] = PaymentStatus.APPROVED
                if follow_up.base_amount is not None:
                    draft["base"] = follow_up.base_amount
            if follow_up.surcharge is not None:
                draft["surcharge"] = max(follow_up.surcharge, 0)
    draft["refunded"] = max(draft["refunded"], refunded)
    draft["surcharge_returned"] = returned
    _settle_status(draft, voided)


def _add_journal_follow_ups(draft: dict[str, Any], follow_ups: list[Attempt]) -> None:
    """This station's approved captures, voids and refunds of the draft (the list may lag)."""
    approved = [a for a in follow_ups if a.outcome is Outcome.APPROVED]
    if not approved:
        return
    captures = [a for a in approved if a.operation.acts_as is Operation.CAPTURE]
    if captures and draft["status"] is PaymentStatus.PREAUTH:
        draft["status"] = PaymentStatus.APPROVED
        draft["base"] = captures[-1].amount
    refunded = sum(a.amount or 0 for a in approved if a.operation.acts_as is Operation.REFUND)
    draft["refunded"] = max(draft["refunded"], refunded)
    _settle_status(draft, any(a.operation.acts_as is Operation.VOID for a in approved))


def _settle_status(draft: dict[str, Any], voided: bool) -> None:
    if draft["status"] not in (PaymentStatus.APPROVED, PaymentStatus.PREAUTH, PaymentStatus.PARTLY_REFUNDED):
        return  # an unknown, declined or failed row is not changed by follow-ups
    if voided:
        draft["status"] = PaymentStatus.VOIDED
    elif draft["refunded"] and draft["base"] is not None:
        full = draft["refunded"] >= draft["base"]
        draft["status"] = PaymentStatus.REFUNDED if full else PaymentStatus.PARTLY_REFUNDED


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
