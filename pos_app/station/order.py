"""What the cart's order has been charged, and when it is paid.

A result settles only its own order: a sale or pre-auth counts toward the cart when its
attempt was made for the cart's order key and the service approved it (in full or in
part); a capture, a refund or another order's approval never does, and an approved void
of one of its charges takes that charge off. The order is paid once the card charges reach
the cart's total; a partial approval leaves the rest due.
Qt-free and I/O-free: the counter feeds it the station's outcomes and the journal's record.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from pos_app.cart import CartLine, Totals
from pos_app.catalog import TaxRate
from pos_app.journal import Attempt, Operation
from pos_app.journal.models import ORDER_OPERATIONS
from pos_app.terminal.outcomes import OperationResult


@dataclass(frozen=True)
class PaidCart:
    """A cart as it was paid: what the itemized receipt prints."""

    lines: tuple[CartLine, ...]
    totals: Totals
    rates: dict[str, TaxRate]
    result: OperationResult
    """The charge that completed the order."""
    cashier: str
    when: datetime
    charged: int
    """Cents the order's card charges came to (the total, unless the service took more)."""
    restored: bool = False
    """Found paid when the app started (it stopped between the approval and the new sale):
    its receipt is offered, not printed by itself."""

    @property
    def overcharged(self) -> int:
        """Cents charged beyond the total: the customer is owed them back."""
        return max(self.charged - self.totals.total, 0)


@dataclass
class OrderCharges:
    """The card charges of one order, by attempt id (cents the service approved), and the
    transaction each one charged (so that an approved void of it takes it off)."""

    order_key: str
    charges: dict[str, int] = field(default_factory=dict)
    transactions: dict[str, str] = field(default_factory=dict)
    last: OperationResult | None = None
    """The latest charge counted (what a receipt names when the order is paid)."""

    def take(self, result: OperationResult) -> bool:
        """Count ``result`` when it is a charge of this order, or take off a charge of it an
        approved void names; True when the count changed."""
        if result.operation is Operation.VOID and result.outcome.moved_money and result.refusal is None and result.ref:
            voided = [attempt for attempt, ref in self.transactions.items() if ref == result.ref]
            for attempt in voided:
                self.charges.pop(attempt, None)
                self.transactions.pop(attempt)
            return bool(voided)
        if (result.order_key != self.order_key or result.operation not in ORDER_OPERATIONS
                or result.attempt_id is None):
            return False
        charged = result.charged
        if charged is None or self.charges.get(result.attempt_id) == charged:
            return False
        self.charges[result.attempt_id] = charged
        if result.transaction_id:
            self.transactions[result.attempt_id] = result.transaction_id
        self.last = result
        return True

    def restore(self, charges: dict[str, int], attempts: Iterable[Attempt]) -> bool:
        """The journal's record of this order: ``charges`` (``Journal.order_charges``: voided
        ones left out) and its ``attempts`` (for the transactions charged)."""
        charged = [a for a in attempts if a.id in charges]
        self.transactions = {a.id: ref for a in charged if isinstance(ref := a.result.get("transaction_id"), str)
                             and ref}
        changed = charges != self.charges
        self.charges = dict(charges)
        self.last = OperationResult.from_attempt(charged[-1]) if charged else None
        return changed

    @property
    def total(self) -> int:
        return sum(self.charges.values())

    def due(self, total: int) -> int:
        """Cents still to pay of an order totalling ``total`` (0 once paid; never negative)."""
        return max(total - self.total, 0)

    def pays(self, total: int) -> bool:
        """Whether the charges pay an order of ``total`` cents (a charge exists and covers it)."""
        return bool(self.charges) and self.total >= total
