"""Payment links in a shift's money (the phone orders of ``station.parked``): the customer
paid the order online, by card, on the link's page. That money is neither in the drawer nor
taken on the terminal (whatever batch the service settles it in), so it is a line of its
own (``figures.Tender.LINK``), shown apart from the terminal's card total in every report.

Why a module of its own: a link's payment is no attempt of the journal. The journal has its
parking (``pos_app.journal.parked``): the amount asked (the order's total, tax included),
the payment id and the surcharge the link said, when it was paid and by whose order. So

- each parking paid during the shift is a sale line of ``Tender.LINK``, with its order's tax
  from the cart kept when it was parked;
- a void or refund of a link's payment (a return, through the service's card routes by the
  payment id) is a line of the link's money, not of a card on file; a void gives back the
  whole of what the link charged, surcharge and tax included;
- the service lists a link's payment as a sale of that payment id naming no attempt of ours
  (a follow-up's entry carries the same payment id, and names its attempt): it is paired
  with its parking by that id, never counted as a payment the journal does not know. A
  parking the list does not show, or shows for another amount or with an error, is a
  difference for the manager (``LinkPairing``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from types import MappingProxyType
from typing import Any

from pos_app.api.identity import attempt_in
from pos_app.i18n import N_, _
from pos_app.journal import Attempt, Operation, OrderTotals, Outcome, ParkedOrder
from pos_app.station.figures import NO_NAME, Category, MoneyLine, Tender, cents_in

LINK_BRAND = N_("Payment link")
"""How the reports name a link's card (the service's list alone knows its brand); a line
gets ``_(LINK_BRAND)``, in the language in force when the figures are read."""


@dataclass(frozen=True)
class LinkMismatch:
    """A paid parking whose payment the service lists otherwise than the journal has it."""

    parking: ParkedOrder
    entry: Mapping[str, Any]
    problem: str


@dataclass(frozen=True)
class LinkPairing:
    """The shift's paid links against the service's list."""

    own: Mapping[str, Mapping[str, Any]]
    """Parking id → the list's entry of its payment."""
    unlisted: tuple[ParkedOrder, ...]
    """Paid in the journal, not in the list."""
    mismatched: tuple[LinkMismatch, ...]


@dataclass(frozen=True)
class LinkPayments:
    """The journal's paid parkings, by the payment id their link's payment got."""

    by_payment: Mapping[str, ParkedOrder]

    @classmethod
    def of(cls, parkings: Iterable[ParkedOrder]) -> LinkPayments:
        return cls(MappingProxyType({p.payment_id: p for p in parkings if p.paid and p.payment_id}))

    def paid_since(self, start: datetime, until: datetime | None = None) -> tuple[ParkedOrder, ...]:
        """The parkings paid at or after ``start`` (and before ``until``), oldest first."""
        paid = [p for p in self.by_payment.values()
                if p.paid_at is not None and p.paid_at >= start and (until is None or p.paid_at < until)]
        return tuple(sorted(paid, key=lambda parking: parking.paid_at or start))

    @property
    def order_keys(self) -> set[str]:
        """The orders whose totals (tax) the lines need: a link's, and a follow-up's."""
        return {parking.order_key for parking in self.by_payment.values()}

    def is_payment_entry(self, entry: Mapping[str, Any]) -> bool:
        """The list's entry of a link's payment (see the module docstring)."""
        user_agent = entry.get("userAgent")
        return (str(entry.get("type")).casefold() == "sale" and str(entry.get("paymentId")) in self.by_payment
                and attempt_in(user_agent if isinstance(user_agent, str) else None) is None)

    def pair(self, start: datetime, entries: Iterable[Mapping[str, Any]],
             until: datetime | None = None) -> LinkPairing:
        """The links paid since ``start`` (before ``until``) paired with their payments'
        entries (``entries``: the list's, any of them; those of other payments are left alone)."""
        found: dict[str, list[Mapping[str, Any]]] = {}
        for entry in entries:
            if self.is_payment_entry(entry):
                found.setdefault(str(entry.get("paymentId")), []).append(entry)
        own: dict[str, Mapping[str, Any]] = {}
        unlisted: list[ParkedOrder] = []
        mismatched: list[LinkMismatch] = []
        for parking in self.paid_since(start, until):
            listed = found.get(parking.payment_id or "", [])
            if not listed:
                unlisted.append(parking)
                continue
            own[parking.parking_id] = listed[0]
            problem = _problem(parking, listed[0])
            if problem:
                mismatched.append(LinkMismatch(parking, listed[0], problem))
            for second in listed[1:]:
                mismatched.append(LinkMismatch(parking, second, _("the service lists its payment twice: possible "
                                                                  "double charge")))
        return LinkPairing(MappingProxyType(own), tuple(unlisted), tuple(mismatched))

    def lines(self, start: datetime, orders: Mapping[str, tuple[OrderTotals, ...]],
              own: Mapping[str, Mapping[str, Any]], attempts: Iterable[Attempt] = (),
              until: datetime | None = None) -> list[MoneyLine]:
        """A sale line of ``Tender.LINK`` per parking paid since ``start`` (before ``until``); ``own``: the entries
        ``pair`` found (a line is ``listed`` when its payment's entry is there); ``attempts``:
        the journal's, whose approved voids of a link's payment flag its line ``voided``."""
        voided = {a.ref for a in attempts if a.operation is Operation.CARD_VOID and a.outcome is Outcome.APPROVED}
        found: list[MoneyLine] = []
        for parking in self.paid_since(start, until):
            entry = own.get(parking.parking_id)
            card = (entry.get("card") or {}) if entry else {}
            tax, taxes = _tax(parking, orders)
            found.append(MoneyLine(
                attempt_id=parking.parking_id, operation=Operation.SALE, outcome=Outcome.APPROVED,
                category=Category.SALE, at=parking.paid_at or start, cashier=parking.cashier or NO_NAME,
                brand=_(LINK_BRAND), last4=str(card.get("last4") or ""), amount=parking.amount,
                surcharge=parking.surcharge, tax=tax, taxes=MappingProxyType(taxes), listed=entry is not None,
                voided=parking.payment_id in voided, tender=Tender.LINK))
        return found

    def follow_up(self, line: MoneyLine, attempt: Attempt, orders: Mapping[str, tuple[OrderTotals, ...]]) -> MoneyLine:
        """``line`` (``attempt``'s) as a line of the link's money when the attempt acts on a
        link's payment, else unchanged."""
        parking = self.by_payment.get(attempt.ref or "")
        if parking is None or attempt.operation not in (Operation.CARD_VOID, Operation.CARD_REFUND):
            return line
        line = replace(line, tender=Tender.LINK, on_file=False, brand=_(LINK_BRAND))
        if line.category is not Category.VOIDED:
            return line
        tax, taxes = _tax(parking, orders)  # a void gives back the whole charge
        return replace(line, amount=parking.amount, surcharge=parking.surcharge, tax=tax,
                       taxes=MappingProxyType(taxes))


def _tax(parking: ParkedOrder, orders: Mapping[str, tuple[OrderTotals, ...]]) -> tuple[int | None, dict[str, int]]:
    totals = OrderTotals.of(orders.get(parking.order_key, ()), parking.paid_at or parking.parked_at)
    if totals is None:
        return None, {}
    return totals.tax, dict(totals.taxes)


def _problem(parking: ParkedOrder, entry: Mapping[str, Any]) -> str:
    if entry.get("error"):
        return _("the journal has it paid, but the service's entry has error {error}").format(
            error=repr(entry.get("error")))
    base = cents_in(entry, "baseAmount")
    if base is not None and base != parking.amount:
        return _("amounts differ: journal {journal} cents, service {service} cents").format(
            journal=parking.amount, service=base)
    return ""
