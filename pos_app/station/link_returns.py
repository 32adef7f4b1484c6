"""Returns of an order paid by payment link (a phone order, ``station.parked``): its money
goes back through the service's card routes by the link's payment id
(``ChargeService.card_void`` / ``card_refund``: journaled like every give-back, each with
its one outcome event), under the same rules as a terminal's card in ``station.returns``:

- the link's payment is one charge of the order: what it counted (the amount the link
  asked), less what was refunded of it (the journal's approved refunds, or the service's
  payment record when it says more); a payment voided since covers nothing;
- settled (the service's payment record says so) it is refunded for the part returned;
  not settled it can only be voided whole (surcharge and tax included). A part of an
  unsettled link's payment is refused before anything is written: there is no card to
  present again (the customer is on the phone), so "void it and charge the kept part
  again" cannot be done;
- a void or refund of it whose result is unknown refuses the return until it is checked,
  so that nothing is given back twice; a step that is not approved stops the return, and a
  void proven not done is followed by a refund only when the payment settled meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Protocol

from pos_app.api.cards import card_brand
from pos_app.api.charge_models import VoidReason
from pos_app.api.errors import PaymentsError
from pos_app.i18n import N_, _
from pos_app.journal import Operation, Outcome, ParkedOrder
from pos_app.journal.words import outcome_name
from pos_app.money import MoneyFormat
from pos_app.station.link_figures import LINK_BRAND
from pos_app.station.service_reads import settled
from pos_app.terminal.outcomes import OperationResult

if TYPE_CHECKING:
    from pos_app.station.station import Station

FOLLOW_UPS = (Operation.CARD_VOID, Operation.CARD_REFUND)
CLOCK_SLACK = timedelta(minutes=5)
"""How long before the link was seen paid a follow-up of its payment may be journaled (it
cannot be: it is read from a little before, to be safe)."""
PART_OF_UNSETTLED = N_("the payment link's payment is not settled yet: only all of it can be given back now (a void), "
                       "since there is no card to charge the kept part again; return every line left, or return these "
                       "once it has settled (after the batch closes)")
"""Why part of an unsettled link's payment cannot be given back (``_(PART_OF_UNSETTLED)`` where shown)."""


class Charged(Protocol):
    """What a step needs of its charge (``station.returns.Charge``, not imported: it imports this)."""

    @property
    def result(self) -> OperationResult: ...
    @property
    def counted(self) -> int: ...
    @property
    def link(self) -> ParkedOrder | None: ...
    @property
    def label(self) -> str: ...


class Step(Protocol):
    """A return's step (``station.returns.Step``): what it gives back, of which charge."""

    @property
    def charge(self) -> Charged | None: ...
    @property
    def amount(self) -> int: ...


class ReturnRun(Protocol):
    """What a return did so far (``station.returns.ReturnDone``): a step adds to it."""

    results: list[OperationResult]
    done: list[str]
    given_back: int


@dataclass(frozen=True)
class LinkCharge:
    """The link's payment as a return sees it (``station.returns.Charge`` is made of it)."""

    parking: ParkedOrder
    result: OperationResult
    """The payment as a charge result: its payment id, the amount the link asked, and the
    card as the service's payment record names it ("Payment link Visa •••• 4242")."""
    refunded: int
    settled: bool | None


async def link_charge(station: Station, order_key: str, notes: list[str]) -> LinkCharge | None:
    """The payment of the link that paid ``order_key``; None when no link paid it, or its
    payment was voided since. ``ValueError`` while a void or refund of it is unknown; a
    payment record that cannot be read is said in ``notes`` (taken as not settled)."""
    parking = await station.journal.paid_parking(order_key=order_key)
    if parking is None:
        return None
    payment_id = parking.payment_id
    if not payment_id:
        raise ValueError(_("the payment link's payment id was not kept: give its money back from the payments list "
                           "(F9: its payment, Alt+V void or Alt+R refund)"))
    since = (parking.paid_at or parking.parked_at) - CLOCK_SLACK
    follow_ups = [a for a in await station.journal.attempts(since=since)
                  if a.ref == payment_id and a.operation in FOLLOW_UPS]
    if any(not a.is_final or a.outcome is Outcome.UNKNOWN for a in follow_ups):
        raise ValueError(_("a void or refund of this order's payment link has no known result yet: check it again "
                           "(Needs attention) before a return, so that nothing is given back twice"))
    approved = [a for a in follow_ups if a.outcome is Outcome.APPROVED]
    if any(a.operation is Operation.CARD_VOID for a in approved):
        return None
    refunded = sum(a.amount or 0 for a in approved)
    is_settled: bool | None = None
    brand, last4 = _("card"), None
    try:
        payment = await station.client.get_payment(payment_id)
        is_settled, refunded = payment.settled, max(refunded, payment.refunded_amount or 0)
        if payment.card is not None:
            brand = card_brand(payment.card.brand, payment.card.network) or brand
            last4 = payment.card.last4
    except PaymentsError as error:
        notes.append(_("the payment link's payment {payment} could not be read ({error}): taken as not settled").format(
            payment=payment_id, error=error))
    result = OperationResult(Outcome.APPROVED, Operation.CARD_CHARGE, f"payment:{payment_id}",
                             amount=parking.amount, order_key=order_key, payment_id=payment_id,
                             card_brand=f"{_(LINK_BRAND)} {brand}", card_last4=last4)
    return LinkCharge(parking, result, refunded, is_settled)


async def give_back(station: Station, step: Step, run: ReturnRun, money: MoneyFormat, reason: str, *,
                    refund: bool) -> str:
    """A return's step on a link's payment (``refund``: a refund of the step's amount, else a
    void of the whole payment); what stopped it ("" when it was done)."""
    charge = step.charge
    assert charge is not None and charge.link is not None
    payment_id, service = charge.link.payment_id or "", station.service
    if refund:
        return await _refund(station, step, run, money, reason)
    if step.amount != charge.counted:
        return _(PART_OF_UNSETTLED)
    void = await station.published(service.card_void(payment_id, VoidReason.USER_CANCEL))
    run.results.append(void)
    if void.outcome in (Outcome.DECLINED, Outcome.FAILED) and await settled(station.client, charge.result) is True:
        return await _refund(station, step, run, money, reason)  # settled meanwhile: refund the part
    if void.outcome is not Outcome.APPROVED or void.refusal is not None:
        return _("the void of the {amount} payment ({card}) is {outcome}: {why}").format(
            amount=money(charge.counted), card=charge.label, outcome=outcome_name(void.outcome), why=_why(void))
    run.given_back += charge.counted
    surcharge = charge.link.surcharge  # a void gives the surcharge back too
    if surcharge:
        run.done.append(_("voided the {whole} ({amount} + {surcharge} surcharge) payment ({card})").format(
            whole=money(charge.counted + surcharge), amount=money(charge.counted), surcharge=money(surcharge),
            card=charge.label))
    else:
        run.done.append(_("voided the {amount} payment ({card})").format(amount=money(charge.counted),
                                                                        card=charge.label))
    return ""


async def _refund(station: Station, step: Step, run: ReturnRun, money: MoneyFormat, reason: str) -> str:
    charge = step.charge
    assert charge is not None and charge.link is not None
    refund = await station.published(station.service.card_refund(charge.link.payment_id or "", step.amount, reason))
    run.results.append(refund)
    if refund.outcome is not Outcome.APPROVED or refund.refusal is not None:
        return _("the refund of {amount} to {card} is {outcome}: {why}").format(
            amount=money(step.amount), card=charge.label, outcome=outcome_name(refund.outcome), why=_why(refund))
    run.given_back += step.amount
    run.done.append(_("refunded {amount} to {card}").format(amount=money(step.amount), card=charge.label))
    return ""


def _why(result: OperationResult) -> str:
    return result.message or _("see the back office (F9)")
