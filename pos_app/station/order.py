"""An order's payment lines, its balance, and when it is paid.

An order is the cart and its payment lines: card lines (sales and pre-auths the station
made for the cart's order key, and charges of the customer's card on file, in every state
they reached) and cash lines (the journal's
cash ledger). The balance is the cart's total less what the lines count for: an approved
card line counts for what the service approved (a partial approval for its part), a cash
line for what the drawer kept (tendered less change), cash given back takes it off again;
a declined, failed or voided line counts for nothing, and an approved refund of a charge
takes what it gave back off that charge. A result settles only its own order: a capture or
another order's approval never counts; an approved void or refund of one of its charges
takes that charge (or its part) off.

While a line is approved or unknown the order ``holds``: its items are locked (the cart
changes only by cancelling the order), and an unknown line keeps the order open until it
is resolved. The order is paid once the lines cover the total.
Qt-free and I/O-free: the counter feeds it the station's outcomes and the journal's record.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from pos_app.cart import CartLine, OrderCustomer, Totals
from pos_app.catalog import TaxRate
from pos_app.i18n import _
from pos_app.journal import Attempt, CashEntry, CashKind, Operation, Outcome
from pos_app.journal.models import ORDER_OPERATIONS, REFUND_OPERATIONS, VOID_OPERATIONS
from pos_app.terminal.outcomes import OperationResult

GIVE_BACKS = VOID_OPERATIONS | REFUND_OPERATIONS
"""A void or refund of a charge: on a terminal (by its pnRefNum), or on the service's routes
(a card on file, by its payment id)."""


class Tender(StrEnum):
    CARD = "card"
    """A card: on the payment terminal, or a customer's card on file (``PaymentLine.on_file``)."""
    CASH = "cash"
    LINK = "link"
    """A payment link its customer paid (a phone order)."""


class LineState(StrEnum):
    APPROVED = "approved"
    PARTLY_APPROVED = "partly approved"  # not for people: the panel's STATES words it
    DECLINED = "declined"
    FAILED = "failed"
    """Never reached the card: nothing was charged."""
    UNKNOWN = "unknown"
    """It may have charged: the order stays open until it is checked or decided."""
    VOIDED = "voided"
    REFUNDED = "refunded"
    """Approved, then refunded in full (a charge refunded in part stays approved, for the rest)."""
    RECEIVED = "received"
    """Cash taken into the drawer."""
    GIVEN_BACK = "given back"  # not for people
    """Cash handed back from the drawer."""


_CARD_STATE = {Outcome.APPROVED: LineState.APPROVED, Outcome.PARTIALLY_APPROVED: LineState.PARTLY_APPROVED,
               Outcome.DECLINED: LineState.DECLINED, Outcome.FAILED: LineState.FAILED,
               Outcome.UNKNOWN: LineState.UNKNOWN}


@dataclass(frozen=True)
class LinkPayment:
    """What paid a link line: the link, the service's payment and the surcharge the
    customer paid on the link's page above the amount."""

    link_id: str
    payment_id: str | None
    surcharge: int = 0


@dataclass(frozen=True)
class PaymentLine:
    """One payment line of an order, in cents: what was asked (a card) or kept (cash), and
    what it counts toward the balance."""

    key: str
    """The journal's id of it (a card attempt, a cash movement)."""
    tender: Tender
    state: LineState
    amount: int
    counted: int
    tendered: int | None = None
    change: int | None = None
    card: OperationResult | None = None
    link: LinkPayment | None = None

    @property
    def on_file(self) -> bool:
        """A charge of the customer's card on file (F4), not of a card on the terminal."""
        return self.card is not None and self.card.operation is Operation.CARD_CHARGE

    @property
    def label(self) -> str:
        """How the panel and the receipt name it ("Card Visa •••• 4242", "Visa •••• 4242 (card
        on file)", "Cash", "Payment link")."""
        if self.tender is Tender.LINK:
            return _("Payment link")
        if self.tender is Tender.CASH:
            return _("Cash") if self.state is LineState.RECEIVED else _("Cash given back")
        card = self.card
        brand = (card.card_brand if card else None) or ""
        last4 = f" •••• {card.card_last4}" if card and card.card_last4 else ""
        if self.on_file:
            return _("{card} (card on file)").format(card=f"{brand or _('Card')}{last4}")
        return _("Card {card}").format(card=f"{brand}{last4}").rstrip() if (brand or last4) else _("Card")


@dataclass(frozen=True)
class PaidCart:
    """A cart as it was paid: what the itemized receipt prints."""

    order_key: str
    lines: tuple[CartLine, ...]
    totals: Totals
    rates: dict[str, TaxRate]
    payments: tuple[PaymentLine, ...]
    """Every line that paid toward it (card charges, cash), oldest first."""
    cashier: str
    when: datetime
    restored: bool = False
    """Found paid when the app started (it stopped between the approval and the new sale):
    its receipt is offered, not printed by itself."""
    customer: OrderCustomer | None = None
    """The customer attached to the order (F6): named on the receipt."""

    @property
    def paid(self) -> int:
        return sum(line.counted for line in self.payments)

    @property
    def change(self) -> int:
        """Cents of change handed back."""
        return sum(line.change or 0 for line in self.payments)

    @property
    def overcharged(self) -> int:
        """Cents charged beyond the total: the customer is owed them back."""
        return max(self.paid - self.totals.total, 0)

    @property
    def cards(self) -> tuple[OperationResult, ...]:
        return tuple(line.card for line in self.payments if line.card is not None)

    @property
    def result(self) -> OperationResult | None:
        """The last card charge (what a card receipt names); None for an order paid in cash."""
        cards = self.cards
        return cards[-1] if cards else None

    @property
    def has_cash(self) -> bool:
        return any(line.tender is Tender.CASH for line in self.payments)


@dataclass
class OrderPayments:
    """The payment lines of one order (see the module docstring)."""

    order_key: str
    cards: dict[str, OperationResult] = field(default_factory=dict)
    """Each card attempt of the order by attempt id: its latest result."""
    voided: set[str] = field(default_factory=set)
    """Card attempts whose charge an approved void took off."""
    refunded: dict[str, int] = field(default_factory=dict)
    """Cents approved refunds gave back of a card attempt's charge."""
    late: dict[str, int] = field(default_factory=dict)
    """Cents the journal counts for a card attempt a manager decided "not paid" that the
    service approved later (a conflict: the charge pays the order all the same)."""
    refunds_seen: set[str] = field(default_factory=set)
    """The refunds (attempt ids) counted since the last ``restore``: a result published
    again (checked again, recovered) is counted once."""
    cash: list[CashEntry] = field(default_factory=list)

    def take(self, result: OperationResult) -> bool:
        """Follow ``result`` when it is a card line of this order, or an approved void or
        refund of a charge of it; True when what the order counts changed."""
        if (result.operation in GIVE_BACKS and result.outcome is Outcome.APPROVED
                and result.refusal is None and result.ref):
            return self._given_back(result)
        if (result.order_key != self.order_key or result.operation not in ORDER_OPERATIONS
                or result.attempt_id is None or result.refusal is not None):
            return False
        before = self.counted_of(result.attempt_id)
        self.cards[result.attempt_id] = result
        return self.counted_of(result.attempt_id) != before

    def _given_back(self, result: OperationResult) -> bool:
        """An approved void (the whole charge) or refund (its amount) of a charge of this order
        (named by its transaction id, or by its payment id on the service's routes)."""
        before = self.paid
        if result.operation in REFUND_OPERATIONS:
            if result.attempt_id is None or result.attempt_id in self.refunds_seen:
                return False
            self.refunds_seen.add(result.attempt_id)
        for key, card in self.cards.items():
            if result.ref not in (card.transaction_id, card.payment_id) or key in self.voided:
                continue
            if result.operation in VOID_OPERATIONS:
                self.voided.add(key)
            else:
                self.refunded[key] = self.refunded.get(key, 0) + (result.amount or 0)
        return self.paid != before

    def add_cash(self, entry: CashEntry) -> None:
        if entry.order_key == self.order_key and entry not in self.cash:
            self.cash.append(entry)

    def restore(self, charges: dict[str, int], attempts: Iterable[Attempt], cash: Iterable[CashEntry]) -> bool:
        """The journal's record of this order: ``charges`` (``Journal.order_charges``: voided
        ones left out, refunds taken off), its card ``attempts`` and its ``cash``; True when
        what it counts changed."""
        before = self.paid
        self.cards = {a.id: OperationResult.from_attempt(a) for a in attempts if a.order_key == self.order_key}
        self.voided = {key for key, card in self.cards.items() if card.charged is not None and key not in charges}
        self.refunded = {key: card.charged - charges[key] for key, card in self.cards.items()
                         if card.charged is not None and charges.get(key, card.charged) < card.charged}
        self.late = {key: charges[key] for key, card in self.cards.items() if card.charged is None and charges.get(key)}
        self.refunds_seen = set()  # the journal's figures hold every refund so far
        self.cash = [entry for entry in cash if entry.order_key == self.order_key]
        return self.paid != before

    def counted_of(self, attempt_id: str) -> int:
        card = self.cards.get(attempt_id)
        if card is None or attempt_id in self.voided:
            return 0
        if attempt_id in self.late:
            return self.late[attempt_id]
        return max((card.charged or 0) - self.refunded.get(attempt_id, 0), 0)

    @property
    def lines(self) -> tuple[PaymentLine, ...]:
        """Every line, cards first in the order they were made, then cash."""
        found = [self._card_line(key, card) for key, card in self.cards.items()]
        for entry in self.cash:
            if entry.kind is CashKind.SALE:
                found.append(PaymentLine(entry.id, Tender.CASH, LineState.RECEIVED, entry.amount, entry.amount,
                                         tendered=entry.tendered, change=entry.change))
            elif entry.kind is CashKind.RETURN:
                found.append(PaymentLine(entry.id, Tender.CASH, LineState.GIVEN_BACK, entry.amount, -entry.amount))
        return tuple(found)

    def _card_line(self, key: str, card: OperationResult) -> PaymentLine:
        if key in self.voided:
            state = LineState.VOIDED
        elif self.refunded.get(key, 0) and not self.counted_of(key):
            state = LineState.REFUNDED
        elif key in self.late:
            state = LineState.APPROVED  # by the service, after a manager's "not paid"
        else:
            state = _CARD_STATE[card.outcome]
        return PaymentLine(key, Tender.CARD, state, card.amount or 0, self.counted_of(key), card=card)

    @property
    def card_paid(self) -> int:
        return sum(self.counted_of(key) for key in self.cards)

    @property
    def cash_paid(self) -> int:
        return sum(entry.drawer_change for entry in self.cash if entry.kind in (CashKind.SALE, CashKind.RETURN))

    @property
    def paid(self) -> int:
        """Cents the lines count for (card charges and cash kept)."""
        return self.card_paid + self.cash_paid

    @property
    def holds(self) -> bool:
        """Money was taken for the order (and not given back) or may have been: its items are locked."""
        return self.paid > 0 or self.unknown

    @property
    def unknown(self) -> bool:
        return any(line.state is LineState.UNKNOWN for line in self.lines)

    def due(self, total: int) -> int:
        """Cents still to pay of an order totalling ``total`` (0 once paid; never negative)."""
        return max(total - self.paid, 0)

    def pays(self, total: int) -> bool:
        """Whether the lines pay an order of ``total`` cents (something counts and covers it)."""
        return self.paid > 0 and self.paid >= total

    def paying_lines(self) -> tuple[PaymentLine, ...]:
        """The lines that count toward the balance (what a receipt lists): cash given back is
        taken off the newest cash received (a line given back in full is left out), so that a
        receipt never lists a negative tender."""
        lines = [line for line in self.lines if line.counted > 0]
        given_back = sum(-line.counted for line in self.lines if line.state is LineState.GIVEN_BACK)
        for index in reversed(range(len(lines))):
            line = lines[index]
            if not given_back or line.tender is not Tender.CASH:
                continue
            taken = min(given_back, line.counted)
            given_back -= taken
            tendered = None if line.tendered is None else line.tendered - taken
            lines[index] = replace(line, counted=line.counted - taken, tendered=tendered)
        return tuple(line for line in lines if line.counted)
