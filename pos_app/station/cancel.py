"""Cancelling an order that has taken money: a manager gives every payment line back.

Each card charge is voided on the terminal that took it; when the void is proven not done
and the service shows the payment settled, what the charge still keeps is refunded instead
(a void not done for another reason, or a payment that cannot be read, stops the cancel:
nothing is refunded on a guess). A void or refund whose answer is not known stops the
cancel there (nothing more is sent, the cashier is told to check it). A charge refunded
already (by an earlier cancel that stopped, or from the back office) keeps nothing and is
skipped: a cancel tried again never gives the same money back twice. The cash the order
kept is given back from the drawer (a ``RETURN`` in the cash ledger, journaled before the
drawer opens). All of it is recorded in the audit trail under the manager's name, with the
reason.

Once everything came back, the cart's lines start a new order (a new order key, nothing
paid): the items may change again and the customer pays anew, or the cashier abandons it.
Qt-free: the cashier's window asks for the PIN and the reason and shows the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pos_app.i18n import _
from pos_app.journal import CashKind, Outcome
from pos_app.journal.words import operation_name, outcome_name
from pos_app.staff import AuditAction, StaffMember
from pos_app.station.order import LineState, Tender
from pos_app.station.service_reads import settled as read_settled
from pos_app.terminal.outcomes import OperationResult

if TYPE_CHECKING:
    from pos_app.station.counter import Counter


@dataclass
class OrderCancelled:
    """What a cancel gave back, and whether all of it came back (``done``)."""

    order_key: str
    given_back: list[OperationResult] = field(default_factory=list)
    """The voids and refunds that were approved."""
    cash_returned: int = 0
    drawer: str = ""
    problem: str = ""
    """Why the cancel stopped (a void or refund not done or not known): empty when it is done."""

    @property
    def done(self) -> bool:
        return not self.problem


async def cancel_order(counter: Counter, manager: StaffMember, reason: str) -> OrderCancelled:
    """Give back every payment line of the counter's order (see the module docstring).
    ``ValueError`` when there is nothing to give back or a line's result is still unknown."""
    payments = counter.payments
    order_key = payments.order_key
    if payments.unknown:
        raise ValueError(_("a card payment of this sale has no known result yet: check it again (F9) or have a "
                           "manager decide it before cancelling"))
    if not payments.holds:
        raise ValueError(_("this sale has taken no money: nothing to give back"))
    money = counter.money
    cancelled = OrderCancelled(order_key)
    station = counter.station
    for line in payments.lines:
        card = line.card
        if (line.tender is not Tender.CARD or line.counted <= 0
                or line.state not in (LineState.APPROVED, LineState.PARTLY_APPROVED)):
            continue
        assert card is not None
        if not card.transaction_id:
            cancelled.problem = _("the card payment of {amount} has no transaction id to void or refund").format(
                amount=money(line.counted))
            break
        back = await station.void(card.terminal_id, card.transaction_id, payment_id=card.payment_id,
                                  charged_by=card.operation)
        if back.outcome in (Outcome.DECLINED, Outcome.FAILED):  # not voided: refund it only once proven settled
            settled = await read_settled(station.client, card)
            if settled is not True:
                said = _("the void of the card payment of {amount} is {outcome}: {why}").format(
                    amount=money(line.counted), outcome=outcome_name(back.outcome),
                    why=back.message or _("see the back office (F9)"))
                cancelled.problem = said if settled is False else f"{said}; {settled}"
                break
            back = await station.refund(card.terminal_id, card.transaction_id, line.counted,
                                        payment_id=card.payment_id, charged_by=card.operation)
        if back.outcome is not Outcome.APPROVED:
            cancelled.problem = _("the {operation} of the card payment of {amount} is {outcome}: {why}").format(
                operation=operation_name(back.operation), amount=money(line.counted),
                outcome=outcome_name(back.outcome), why=back.message or _("see the back office (F9)"))
            break
        cancelled.given_back.append(back)
    kept = payments.cash_paid
    if not cancelled.problem and kept > 0:
        await station.move_cash(CashKind.RETURN, kept, reason=reason, by=manager.name, order_key=order_key)
        cancelled.cash_returned = kept
        cancelled.drawer = await counter.open_drawer(_("cash given back for order {order}").format(order=order_key))
    given = ", ".join(f"{operation_name(r.operation)} {money(r.amount or 0)}" for r in cancelled.given_back)
    fields = {"order": order_key, "given": given or _("no card"), "cash": money(cancelled.cash_returned),
              "problem": cancelled.problem}
    detail = (_("order {order} cancelled: {given}; cash given back {cash}; stopped: {problem}") if cancelled.problem
              else _("order {order} cancelled: {given}; cash given back {cash}")).format(**fields)
    await counter.disk(counter.staff.record, manager.name, AuditAction.ORDER_CANCELLED, detail, reason)
    if cancelled.done:
        await counter.renew_order()
    return cancelled
