"""Returns: a manager gives back the money of some of an order's lines, to the tenders they
came from (issue 17). Qt-free; the back office's dialog shows the plan and runs it.

``read_order`` reads what the order sold (the lines the journal kept when it was sent to be
paid), what earlier returns took back, its card charges (with each payment's ``settled``
flag and what was refunded of it, read from the service's payment record) and the cash it
kept. ``OrderForReturn.plan`` turns picked lines and quantities into an amount (each line's
price and its share of the line's tax) and steps across the tenders:

- card first, the newest charge first: a **settled** charge is refunded for its part; an
  **unsettled** one cannot be refunded in part (the service refunds only settled payments):
  the whole charge returned is a plain **void**, a part of it is "**void it and charge the
  kept part again**" (the customer presents the card again); a card on file's charge is
  given back on the service's void and refund routes, and a part of an unsettled one is
  refused before anything is sent (the cashier returns all its items or gives cash);
- then **cash**, given back from the drawer (a ``RETURN`` in the cash ledger), at most what
  the order kept in cash;
- or, as an explicit option, everything in cash from the drawer even for what a card paid
  (``to_cash``: at most what the order took; audited as ``return_to_cash``).

``run_return`` writes the return to the journal (``begun``) before any money moves, runs each
step through the ``Station`` (refund, void, sale, move_cash: journaled, never resent) and
stops at the first step that is not approved (declined, failed or unknown), saying what was
done; then ends the return in the journal and writes the audit trail (manager, reason,
what was done). Whether a charge is settled is the service's payment record's ``settled``
flag, read when the plan is made; a void proven not done (declined or failed) is followed
by a refund of the part only when the payment record now says settled (it settled
meanwhile), otherwise the return stops there.

An order paid by payment link gives its money back through the service's card routes by the
link's payment id (``station.link_returns``), under the same rules.

The lines of every begun return count as returned, even one that stopped: what it did not
give back is finished from the back office (F9), never by returning the items twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING

from pos_app.api.errors import PaymentsError
from pos_app.i18n import _
from pos_app.journal import CashKind, JournalError, OrderLine, Outcome, ParkedOrder, ReturnStage
from pos_app.journal.words import outcome_name
from pos_app.money import MoneyFormat
from pos_app.staff import AuditAction, StaffMember
from pos_app.staff.audit import check_reason
from pos_app.station.link_returns import PART_OF_UNSETTLED, give_back, link_charge
from pos_app.station.order import OrderPayments, Tender
from pos_app.station.service_reads import settled, surcharge_of
from pos_app.terminal.charges import on_service_routes
from pos_app.terminal.outcomes import OperationResult

if TYPE_CHECKING:
    from pos_app.station.counter import Counter
    from pos_app.station.station import Station


class StepKind(StrEnum):
    REFUND = "refund"
    """A settled card charge: its part refunded."""
    VOID = "void"
    """An unsettled card charge returned whole."""
    VOID_AND_CHARGE = "void and charge again"  # not for people: a value
    """An unsettled card charge returned in part: voided, the kept part charged again."""
    CASH = "cash"
    """Cash from the drawer."""


@dataclass(frozen=True)
class Charge:
    """One card charge of the order that still counts (not voided), in base cents."""

    result: OperationResult
    counted: int
    """What it charged."""
    refunded: int = 0
    """What was refunded of it so far: the service's figure, or the journal's approved
    refunds when they say more (the service's record may lag)."""
    settled: bool | None = None
    """The service's payment record's flag; None when it did not say (or could not be read)."""
    link: ParkedOrder | None = None
    """The parking whose payment link's payment this is (``station.link_returns``)."""

    @property
    def left(self) -> int:
        return max(self.counted - self.refunded, 0)

    @property
    def label(self) -> str:
        brand = self.result.card_brand or _("card")
        return f"{brand} •••• {self.result.card_last4}" if self.result.card_last4 else brand


@dataclass(frozen=True)
class Step:
    kind: StepKind
    amount: int
    """Cents this step gives back."""
    charge: Charge | None = None
    for_card: bool = False
    """Cash given back for what a card paid (the manager's refund to cash)."""

    @property
    def kept(self) -> int:
        """Cents charged again after the void (``VOID_AND_CHARGE``), else 0."""
        return self.charge.counted - self.amount if self.kind is StepKind.VOID_AND_CHARGE and self.charge else 0

    def sentence(self, money: MoneyFormat) -> str:
        charge = self.charge
        if self.kind is StepKind.CASH:
            if self.for_card:
                return _("Give back {amount} cash from the drawer (for what the card paid: the card is not "
                         "refunded)").format(amount=money(self.amount))
            return _("Give back {amount} cash from the drawer").format(amount=money(self.amount))
        assert charge is not None
        if self.kind is StepKind.REFUND:
            return _("Refund {amount} to {card}").format(amount=money(self.amount), card=charge.label)
        if self.kind is StepKind.VOID:
            return _("Void the {amount} card payment ({card})").format(amount=money(charge.counted), card=charge.label)
        return _("Void the {amount} card payment ({card}) and charge {kept} again on the card: the customer presents "
                 "the card").format(amount=money(charge.counted), card=charge.label, kept=money(self.kept))


@dataclass(frozen=True)
class ReturnLine:
    line: OrderLine
    returned: int = 0
    """Quantity earlier returns took back."""

    @property
    def left(self) -> int:
        return self.line.quantity - self.returned

    @property
    def returnable(self) -> bool:
        return self.left > 0 and self.line.unit_cents > 0


def tax_share(line: OrderLine, quantity: int) -> int:
    """The tax of ``quantity`` of the line's units, half up; the shares of the whole quantity
    add up to the line's tax exactly when taken cumulatively (``share(a + b) − share(a)``)."""
    return (2 * line.tax_cents * quantity + line.quantity) // (2 * line.quantity)


@dataclass(frozen=True)
class ReturnPlan:
    order_key: str
    picked: Mapping[int, int]
    """Line id → quantity returned."""
    subtotal: int
    tax: int
    steps: tuple[Step, ...]
    to_cash: bool = False
    after_subtotal: int = 0
    """What the order comes to after this return (its lines kept), before tax."""
    after_tax: int = 0
    returns_before: int = 0
    """How many returns the order had when it was read: a run refuses a plan made before
    another return (a second window, an old dialog)."""

    @property
    def amount(self) -> int:
        return self.subtotal + self.tax

    @property
    def customer_presents_card(self) -> bool:
        return any(step.kind is StepKind.VOID_AND_CHARGE for step in self.steps)

    def sentences(self, money: MoneyFormat) -> list[str]:
        return [step.sentence(money) for step in self.steps]


@dataclass(frozen=True)
class OrderForReturn:
    """An order as a return sees it (see the module docstring)."""

    order_key: str
    lines: tuple[ReturnLine, ...]
    charges: tuple[Charge, ...]
    """Card charges still counting, oldest first."""
    cash_kept: int
    notes: tuple[str, ...] = ()
    """What could not be read (a payment's settled flag): the plan assumes not settled."""
    returns_before: int = 0
    """How many returns the order had when it was read."""

    @property
    def has_card(self) -> bool:
        return bool(self.charges)

    def amount_of(self, picked: Mapping[int, int]) -> tuple[int, int]:
        """Cents (before tax, tax) of ``picked`` (line id → quantity); ``ValueError`` for a
        line that is not the order's, a discount line, or more than is left of a line."""
        by_id = {entry.line.line_id: entry for entry in self.lines}
        subtotal = tax = 0
        for line_id, quantity in picked.items():
            entry = by_id.get(line_id)
            if entry is None:
                raise ValueError(_("line {line} is not a line of order {order}").format(line=line_id,
                                                                                         order=self.order_key))
            if entry.line.unit_cents <= 0:
                raise ValueError(_("{item}: a discount line is not returned by itself").format(item=entry.line.name))
            if isinstance(quantity, bool) or not isinstance(quantity, int) or not 0 < quantity <= entry.left:
                raise ValueError(_("{item}: between 1 and {most} can be returned").format(item=entry.line.name,
                                                                                           most=entry.left))
            subtotal += entry.line.unit_cents * quantity
            tax += tax_share(entry.line, entry.returned + quantity) - tax_share(entry.line, entry.returned)
        return subtotal, tax

    def plan(self, picked: Mapping[int, int], *, to_cash: bool = False) -> ReturnPlan:
        """How ``picked`` goes back (see the module docstring); ``ValueError`` when nothing is
        picked or the order's tenders cannot cover it."""
        picked = {line_id: quantity for line_id, quantity in picked.items() if quantity}
        if not picked:
            raise ValueError(_("pick at least one line to return"))
        subtotal, tax = self.amount_of(picked)
        amount = subtotal + tax
        steps: list[Step] = []
        if to_cash:
            if amount > self.cash_kept + sum(c.left for c in self.charges):
                raise ValueError(_("the order's payments do not cover this return"))
            steps.append(Step(StepKind.CASH, amount, for_card=self.has_card))
        else:
            rest = amount
            for charge in reversed(self.charges):  # the newest charge first
                part = min(rest, charge.left)
                if part <= 0:
                    continue
                if charge.settled:
                    steps.append(Step(StepKind.REFUND, part, charge))
                elif part == charge.counted:
                    steps.append(Step(StepKind.VOID, part, charge))
                elif charge.link is not None:
                    raise ValueError(_(PART_OF_UNSETTLED))
                else:
                    steps.append(Step(StepKind.VOID_AND_CHARGE, part, charge))
                rest -= part
            if rest > 0 and self.cash_kept > 0:
                part = min(rest, self.cash_kept)
                steps.append(Step(StepKind.CASH, part))
                rest -= part
            if rest > 0:
                raise ValueError(_("the order's payments cover {covered} cents of this return's {amount}: give the "
                                   "rest back in cash (a manager's refund to cash)").format(covered=amount - rest,
                                                                                            amount=amount))
        after = {e.line.line_id: e.returned + picked.get(e.line.line_id, 0) for e in self.lines}
        after_subtotal = sum(e.line.unit_cents * (e.line.quantity - after[e.line.line_id]) for e in self.lines)
        after_tax = sum(e.line.tax_cents - tax_share(e.line, after[e.line.line_id]) for e in self.lines)
        return ReturnPlan(self.order_key, MappingProxyType(picked), subtotal, tax, tuple(steps), to_cash,
                          after_subtotal, after_tax, self.returns_before)


async def read_order(station: Station, order_key: str) -> OrderForReturn:
    """The order as a return sees it; ``ValueError`` when its lines were not kept or a card
    payment of it has no known result."""
    journal = station.journal
    lines = await journal.order_lines(order_key)
    if not lines:
        raise ValueError(_("this order's lines were not kept (paid before returns existed, or from the command "
                           "line): give its money back from the payments list (void or refund)"))
    returned: dict[int, int] = {}
    returns_before = 0
    for record in await journal.order_returns(order_key):
        if record.stage is ReturnStage.BEGUN:
            returns_before += 1
            for line_id, quantity in record.lines.items():
                returned[line_id] = returned.get(line_id, 0) + quantity
    payments = OrderPayments(order_key)
    payments.restore(await journal.order_charges(order_key), await journal.order_attempts(order_key),
                     await journal.order_cash(order_key))
    if payments.unknown:
        raise ValueError(_("a card payment of this order has no known result: check it again or have a manager "
                           "decide it (Needs attention) before a return"))
    charge_ids = {card.transaction_id for card in payments.cards.values() if card.transaction_id}
    if any(attempt.ref in charge_ids for attempt in await journal.in_flight()):
        raise ValueError(_("a void or refund of this order's card has no known result yet: check it again "
                           "(Needs attention) before a return, so that nothing is given back twice"))
    charges: list[Charge] = []
    notes: list[str] = []
    for line in payments.lines:
        if line.tender is not Tender.CARD or line.counted <= 0 or line.card is None:
            continue
        charged = line.card.charged or line.counted
        settled, refunded = None, charged - line.counted  # the journal's approved refunds of it
        if line.card.payment_id:
            try:
                payment = await station.client.get_payment(line.card.payment_id)
                settled, refunded = payment.settled, max(refunded, payment.refunded_amount or 0)
            except PaymentsError as error:
                notes.append(_("the card payment {payment} could not be read ({error}): taken as not settled").format(
                    payment=line.card.payment_id, error=error))
        charges.append(Charge(line.card, charged, refunded, settled))
    link = await link_charge(station, order_key, notes)
    if link is not None:
        charges.append(Charge(link.result, link.parking.amount, link.refunded, link.settled, link.parking))
    return OrderForReturn(order_key, tuple(ReturnLine(line, returned.get(line.line_id, 0)) for line in lines),
                          tuple(charges), max(payments.cash_paid, 0), tuple(notes), returns_before)


@dataclass
class ReturnDone:
    """What a return did: ``done`` (each step's sentence, past tense), the cents given back
    (net of a charge made again), and why it stopped (empty: all of it was done)."""

    plan: ReturnPlan
    done: list[str] = field(default_factory=list)
    results: list[OperationResult] = field(default_factory=list)
    given_back: int = 0
    problem: str = ""
    drawer: str = ""

    @property
    def complete(self) -> bool:
        return not self.problem

    def sentence(self, money: MoneyFormat) -> str:
        did = "; ".join(self.done) or _("nothing was given back")
        if self.complete:
            return _("Returned {amount}: {done}.").format(amount=money(self.given_back), done=did)
        return _("The return stopped: {problem}. Done: {done}.").format(problem=self.problem, done=did)


async def run_return(counter: Counter, plan: ReturnPlan, *, manager: StaffMember, reason: str) -> ReturnDone:
    """Run ``plan`` (see the module docstring): a manager's, with a reason; audited."""
    reason = check_reason(reason)
    if counter.cart.order_key == plan.order_key:
        raise ValueError(_("this order is the sale on the screen: finish it, or cancel it (Ctrl+Del)"))
    station = counter.station
    begun = await station.journal.begin_return(plan.order_key, plan.picked, plan.amount, by=manager.name,
                                               reason=reason, returns_before=plan.returns_before)
    # what the order comes to once the items are back, before any money moves: its balance
    # (the order guard: a refund or the cash given back leaves nothing due; a void leaves
    # the kept part due, which the charge again pays) and the reports' tax collected
    run = ReturnDone(plan)
    try:
        await station.journal.record_order(plan.order_key, subtotal=plan.after_subtotal, tax=plan.after_tax,
                                           taxes={})
    except (ValueError, JournalError) as error:
        run.problem = _("what the order comes to after the return could not be recorded ({error}): nothing "
                        "moved").format(error=error)
    for step in () if run.problem else plan.steps:
        try:
            run.problem = await _run_step(counter, plan, step, run, manager, reason)
        except (ValueError, RuntimeError, JournalError) as error:
            run.problem = f"{step.sentence(counter.money).lower()}: {error}"
        if run.problem:
            break
    await station.journal.end_return(begun, given_back=max(run.given_back, 0), problem=run.problem)
    action = AuditAction.RETURN_TO_CASH if plan.to_cash else AuditAction.RETURN
    lines = ", ".join(_("line {line} × {quantity}").format(line=line_id, quantity=quantity)
                      for line_id, quantity in plan.picked.items())
    detail = _("return {id} of order {order} ({lines}): {said}").format(
        id=begun.return_id, order=plan.order_key, lines=lines, said=run.sentence(counter.money))
    await counter.disk(counter.staff.record, manager.name, action, detail, reason)
    return run


async def _run_step(counter: Counter, plan: ReturnPlan, step: Step, run: ReturnDone, manager: StaffMember,
                    reason: str) -> str:
    """One step; what stopped it ("" when it was done)."""
    money, station = counter.money, counter.station
    if step.kind is StepKind.CASH:
        await station.move_cash(CashKind.RETURN, step.amount, reason=reason, by=manager.name,
                                order_key=plan.order_key, for_card=step.for_card)
        run.given_back += step.amount
        run.done.append(_("gave back {amount} cash from the drawer").format(amount=money(step.amount)))
        run.drawer = await counter.open_drawer(_("cash given back for a return of order {order}").format(
            order=plan.order_key))
        return ""
    charge = step.charge
    assert charge is not None
    if charge.link is not None:
        return await give_back(station, step, run, money, reason, refund=step.kind is StepKind.REFUND)
    card = charge.result
    if not card.transaction_id:
        return _("the card payment of {amount} has no transaction id to void or refund").format(
            amount=money(charge.counted))
    if step.kind is StepKind.REFUND:
        return await _refund(station, step, step.amount, run, money)
    if step.kind is StepKind.VOID_AND_CHARGE and on_service_routes(card.terminal_id):  # nothing sent
        return _("the card-on-file payment of {amount} is not settled yet, so a part of it cannot be given back to "
                 "the card here: return all of its items, or give the part back in cash (refund to cash)").format(
            amount=money(charge.counted))
    void = await station.void(card.terminal_id, card.transaction_id, payment_id=card.payment_id,
                              charged_by=card.operation)
    run.results.append(void)
    if void.outcome in (Outcome.DECLINED, Outcome.FAILED) and await settled(station.client, card) is True:
        return await _refund(station, step, step.amount, run, money)  # settled meanwhile: refund the part
    if void.outcome is not Outcome.APPROVED:
        return _("the void of the {amount} card payment is {outcome}: {why}").format(
            amount=money(charge.counted), outcome=outcome_name(void.outcome), why=_why(void))
    run.given_back += charge.counted
    surcharge = await surcharge_of(station.client, card)  # a void gives the surcharge back too
    whole = (_("{total} ({amount} + {surcharge} surcharge)").format(
        total=money(charge.counted + surcharge), amount=money(charge.counted), surcharge=money(surcharge))
             if surcharge else money(charge.counted))
    run.done.append(_("voided the {amount} card payment ({card})").format(amount=whole, card=charge.label))
    if step.kind is StepKind.VOID:
        return ""
    again = await station.sale(step.kept, order_key=plan.order_key, terminal_id=card.terminal_id)
    run.results.append(again)
    charged = again.charged or 0
    run.given_back -= charged
    if charged:
        said = (_("charged {amount} again on {card} •••• {last4}") if again.card_last4
                else _("charged {amount} again on {card}"))
        run.done.append(said.format(amount=money(charged), card=again.card_brand or _("the card"),
                                    last4=again.card_last4))
    if again.outcome is Outcome.APPROVED and again.refusal is None:
        return ""
    if charged:
        return _("the new charge was approved for {charged} only: {missing} of what the customer keeps is not "
                 "paid").format(charged=money(charged), missing=money(step.kept - charged))
    return _("charging {kept} again is {outcome}: {why}; the customer has the whole {amount} back").format(
        kept=money(step.kept), outcome=outcome_name(again.outcome), why=_why(again), amount=money(charge.counted))


async def _refund(station: Station, step: Step, amount: int, run: ReturnDone, money: MoneyFormat) -> str:
    charge = step.charge
    assert charge is not None
    card = charge.result
    assert card.transaction_id is not None
    refund = await station.refund(card.terminal_id, card.transaction_id, amount, payment_id=card.payment_id,
                                  charged_by=card.operation)
    run.results.append(refund)
    if refund.outcome is not Outcome.APPROVED or refund.refusal is not None:
        return _("the refund of {amount} to {card} is {outcome}: {why}").format(
            amount=money(amount), card=charge.label, outcome=outcome_name(refund.outcome), why=_why(refund))
    run.given_back += amount
    run.done.append(_("refunded {amount} to {card}").format(amount=money(amount), card=charge.label))
    return ""


def _why(result: OperationResult) -> str:
    return result.message or _("see the back office (F9)")
