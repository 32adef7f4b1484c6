"""The money figures of a set of payment attempts (a shift, a day), Qt-free, worked out once
for every report that shows them (the end-of-shift PDF, the F10 screen, ``pos-app terminal
report``):

    gross   = approved sales + approved captures (a sale voided later was charged: it is in
              the gross, and its void is under voids)
    voids   = approved voids of sales and of captured pre-auths: the whole charge given
              back, surcharge included
    refunds = approved refunds: the base refunded, and the surcharge the service says it
              returned with it (``amount - baseAmount`` of the refund's entry)
    net     = gross - voids - refunds (amount, surcharge and tax alike)

A sale or pre-auth approved for less than it asked (``partially_approved``) counts for what
the service approved. A pre-auth is not money taken: approved and neither captured nor
voided it is *held* (the amount authorised); its capture is in the gross for the captured
amount; a void of one never captured *releases* the hold and moves no money. A pre-auth
that was captured or released is neither held nor counted (its capture or release is).

Tax collected comes from the carts (``journal.orders``): the tax of each sale's order and
of each capture's pre-auth order (a capture for less than its cart still carries the
cart's tax: what was left out is not split into tax), less that of voided ones. A sale
approved for less than its cart leaves its order unpaid: its tax is not counted
(``partial``). A refund is not split into tax: it is shown whole under refunds, and the tax
collected stays that of the sales. A sale made without a cart (the command line) has no
totals: it is counted in ``untaxed``.

Surcharges come from the service's transaction list (``amount - baseAmount`` of the
attempt's own entry, in cents); a void's is the surcharge the list shows on the payment it
voids. Card brands are written one way (``pos_app.api.cards``).

Money moved through the service's own payment routes counts too, by what it moves like
(``Operation.acts_as``): a card on file (``card_charge``, a sale; one not captured, a
pre-auth) and its capture, void and refund by payment id are **card** money, with the
terminal's; an ACH charge, void and refund are **ACH** money (``Tender.ACH``), neither card
nor cash: ``Figures.card`` and ``Figures.ach`` split them, and the reports show the card's
figures as before with ACH on its own line. A subscription's retry is not counted: it
charges whatever the customer's default method is, outside the counter.

A phone order paid by its payment link is card money the customer paid online, neither in
the drawer nor in the terminal's card total: ``Tender.LINK``, its own line (``Figures.link``),
built from the journal's parkings by ``station.link_figures``, as are the voids and refunds
of a link's payment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import Any

from pos_app.api.cards import card_brand
from pos_app.i18n import _, ngettext
from pos_app.journal import Attempt, Operation, OrderTotals, Outcome
from pos_app.journal.models import ORDER_OPERATIONS

NO_NAME = "-"
"""The cashier or card of an attempt that does not say (automation, older journals)."""
TERMINAL_OPERATIONS = frozenset({Operation.SALE, Operation.PREAUTH, Operation.CAPTURE, Operation.VOID,
                                 Operation.REFUND})
ON_FILE_OPERATIONS = frozenset({Operation.CARD_CHARGE, Operation.CARD_CAPTURE, Operation.CARD_VOID,
                                Operation.CARD_REFUND})
"""A card charged through the service's charge route (a card on file), and its follow-ups."""
ACH_OPERATIONS = frozenset({Operation.ACH_CHARGE, Operation.ACH_VOID, Operation.ACH_REFUND})
SERVICE_ROUTE_OPERATIONS = ON_FILE_OPERATIONS | ACH_OPERATIONS
"""Money moved without a terminal: journaled on lanes of their own (``vault:<id>``,
``payment:<id>``...), so a terminal's shift takes them by time, not by terminal."""
MONEY_OPERATIONS = TERMINAL_OPERATIONS | SERVICE_ROUTE_OPERATIONS
"""The operations a report counts (a close batch moves no money of its own)."""


class Tender(StrEnum):
    """How the customer paid a line's money."""

    CARD = "card"
    """A card: on the terminal, or on file (the service's charge route)."""
    ACH = "ach"
    """A bank account: its own line, neither card nor cash."""
    LINK = "link"
    """A payment link the customer paid online by card: its own line, neither the drawer's
    nor the terminal's card total."""


def tender_of(operation: Operation) -> Tender:
    return Tender.ACH if operation in ACH_OPERATIONS else Tender.CARD


def moves_like(attempt: Attempt) -> Operation:
    """The terminal operation an attempt's money moves like: a card on file charged without
    capture holds the money as a pre-auth does."""
    if attempt.operation is Operation.CARD_CHARGE and attempt.request.get("capture") is False:
        return Operation.PREAUTH
    return attempt.operation.acts_as


class Category(StrEnum):
    """What an attempt counts as in the figures."""

    SALE = "sale"
    """An approved sale: in the gross."""
    CAPTURE = "capture"
    """An approved capture of a pre-auth: in the gross, for the captured amount."""
    VOIDED = "voided"
    """An approved void of a sale or of a captured pre-auth: the charge given back."""
    REFUNDED = "refunded"
    HELD = "held"
    """An approved pre-auth neither captured nor voided: money reserved, not taken."""
    RELEASED = "released"
    """An approved void of a pre-auth never captured: the hold released, no money moved."""
    PREAUTH_CLOSED = "preauth_closed"
    """An approved pre-auth since captured or released: its capture or release counts, not it."""
    DECLINED = "declined"
    NOT_CHARGED = "not_charged"
    """Failed: refused before it could move money (or a follow-up that was declined)."""
    OPEN = "open"
    """Unknown or in flight: money may have moved; a manager must settle it."""


GROSS = frozenset({Category.SALE, Category.CAPTURE})
TAXED = GROSS | {Category.VOIDED}
"""The lines that carry their order's tax (a void's: the tax it takes back)."""
UNCHARGED = frozenset({Category.DECLINED, Category.NOT_CHARGED, Category.OPEN})
"""The lines that moved no money (as far as anyone knows): no surcharge."""
GROUPED = GROSS | {Category.VOIDED, Category.REFUNDED, Category.DECLINED}
"""The lines that make a cashier or a card brand appear in the breakdowns."""

@dataclass(frozen=True)
class MoneyLine:
    """One money attempt, with what the service and the cart add to it."""

    attempt_id: str
    operation: Operation
    outcome: Outcome | None
    category: Category
    at: datetime
    cashier: str
    brand: str
    last4: str
    amount: int
    """Base amount in cents: asked (a capture's: captured; a void's: of the charge it voids)."""
    surcharge: int = 0
    """Cents the service added to the charge (a void's: the surcharge it gives back), else 0."""
    tax: int | None = 0
    """The order's tax in cents on a sale, capture or void; None there when no cart totals were
    journaled (a sale made without a cart); 0 on every other line."""
    taxes: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """The order's tax by name (each rounded on its own), on the lines that carry tax."""
    listed: bool = False
    """The service's list has the attempt's own entry."""
    voided: bool = False
    """A sale or capture voided since (its void is a line of its own)."""
    partial: bool = False
    """Approved for less than asked (``amount`` is what was charged): the order is not paid,
    so its cart's tax is not counted (``tax`` 0)."""
    tender: Tender = Tender.CARD
    on_file: bool = False
    """Money of the service's charge route (a card on file), not of a terminal."""

    @property
    def charged(self) -> int:
        return self.amount + self.surcharge


@dataclass(frozen=True)
class Tally:
    count: int = 0
    amount: int = 0
    surcharge: int = 0
    tax: int = 0

    @property
    def charged(self) -> int:
        return self.amount + self.surcharge


def tally(lines: Iterable[MoneyLine]) -> Tally:
    count = amount = surcharge = tax = 0
    for line in lines:
        count += 1
        amount += line.amount
        surcharge += line.surcharge
        tax += line.tax or 0
    return Tally(count, amount, surcharge, tax)


@dataclass(frozen=True)
class Figures:
    """The totals of some money lines (a shift's, a day's, one cashier's, one brand's)."""

    lines: tuple[MoneyLine, ...]

    @cached_property
    def by_category(self) -> dict[Category, Tally]:
        groups: dict[Category, list[MoneyLine]] = {category: [] for category in Category}
        for line in self.lines:
            groups[line.category].append(line)
        return {category: tally(lines) for category, lines in groups.items()}

    @cached_property
    def gross(self) -> Tally:
        """Approved sales and captures, voided later or not."""
        return tally(line for line in self.lines if line.category in GROSS)

    @property
    def voids(self) -> Tally:
        return self.by_category[Category.VOIDED]

    @property
    def refunds(self) -> Tally:
        return self.by_category[Category.REFUNDED]

    @property
    def held(self) -> Tally:
        return self.by_category[Category.HELD]

    @property
    def captured(self) -> Tally:
        return self.by_category[Category.CAPTURE]

    @cached_property
    def card(self) -> Figures:
        """The card lines alone (a terminal's and cards on file): the batch's card money."""
        return Figures(tuple(line for line in self.lines if line.tender is Tender.CARD))

    @cached_property
    def ach(self) -> Figures:
        """The ACH lines alone: bank-account money, neither card nor cash."""
        return Figures(tuple(line for line in self.lines if line.tender is Tender.ACH))

    @cached_property
    def link(self) -> Figures:
        """The payment link lines alone: card money paid online, not the terminal's."""
        return Figures(tuple(line for line in self.lines if line.tender is Tender.LINK))

    @cached_property
    def net(self) -> Tally:
        """Gross less voids and refunds; its count is of the sales and captures not voided."""
        gross, voids, refunds = self.gross, self.voids, self.refunds
        return Tally(gross.count - voids.count, gross.amount - voids.amount - refunds.amount,
                     gross.surcharge - voids.surcharge - refunds.surcharge, gross.tax - voids.tax)

    @property
    def tax(self) -> int:
        """Tax collected: on the sales and captures, less that of voided ones."""
        return self.net.tax

    @cached_property
    def tax_by_name(self) -> dict[str, int]:
        """The tax collected by tax name, each rounded on its own (see ``tax_rounding``)."""
        found: dict[str, int] = {}
        for line in self.lines:
            sign = 1 if line.category in GROSS else -1 if line.category is Category.VOIDED else 0
            for name, cents in line.taxes.items():
                found[name] = found.get(name, 0) + sign * cents
        return {name: cents for name, cents in sorted(found.items()) if cents}

    @property
    def tax_rounding(self) -> int:
        """``tax - sum(tax_by_name)``: a cart's tax is rounded once per line on the sum of its
        rates, each name's share on its own rate, so they may differ by a cent or so."""
        return self.tax - sum(self.tax_by_name.values())

    @property
    def partial(self) -> int:
        """Sales approved for less than their cart: in the gross for what they charged, their
        order not paid, their tax not counted."""
        return sum(1 for line in self.lines if line.category in GROSS and line.partial)

    @property
    def untaxed(self) -> int:
        """Sales and captures whose cart totals the journal does not have (tax not known)."""
        return sum(1 for line in self.lines if line.category in GROSS and line.tax is None)

    def by_cashier(self) -> tuple[tuple[str, Figures], ...]:
        return self._grouped(lambda line: line.cashier)

    def by_brand(self) -> tuple[tuple[str, Figures], ...]:
        return self._grouped(lambda line: line.brand)

    def _grouped(self, key: Callable[[MoneyLine], str]) -> tuple[tuple[str, Figures], ...]:
        table: dict[str, list[MoneyLine]] = {}
        for line in self.lines:
            if line.category in GROUPED:
                table.setdefault(key(line), []).append(line)
        return tuple((name, Figures(tuple(lines))) for name, lines in sorted(table.items()))


def sentence(figures: Figures, money: Callable[[int], str]) -> str:
    """The figures in two lines for a screen (the F10 shift end): the card money, then the
    rest (ACH and payment links, when there were any, on a line each)."""
    ach, link = figures.ach, figures.link
    figures = figures.card
    gross, net, held = figures.gross, figures.net, figures.held
    lines = [ngettext("Gross {gross} ({count} sale or capture) - voids {voids} - refunds {refunds} = net {net}",
                      "Gross {gross} ({count} sales and captures) - voids {voids} - refunds {refunds} = net {net}",
                      gross.count).format(gross=money(gross.amount), count=gross.count,
                                          voids=money(figures.voids.amount), refunds=money(figures.refunds.amount),
                                          net=money(net.amount))]
    if figures.untaxed:
        lines.append(ngettext(
            "Surcharge {surcharge} · tax collected {tax} ({count} sale without cart totals) · pre-auths held "
            "{held} ({held_count})",
            "Surcharge {surcharge} · tax collected {tax} ({count} sales without cart totals) · pre-auths held "
            "{held} ({held_count})", figures.untaxed).format(
            surcharge=money(net.surcharge), tax=money(figures.tax), count=figures.untaxed, held=money(held.amount),
            held_count=held.count))
    else:
        lines.append(_("Surcharge {surcharge} · tax collected {tax} · pre-auths held {held} ({held_count})").format(
            surcharge=money(net.surcharge), tax=money(figures.tax), held=money(held.amount), held_count=held.count))
    if ach.lines:
        lines.append(ngettext("ACH (bank accounts) net {net} ({count} charge)",
                              "ACH (bank accounts) net {net} ({count} charges)", ach.gross.count).format(
            net=money(ach.net.amount), count=ach.gross.count))
    if link.lines:
        lines.append(ngettext(
            "Payment links (card paid online, not the terminal's) net {net} ({count} link, surcharge {surcharge}, "
            "tax {tax})",
            "Payment links (card paid online, not the terminal's) net {net} ({count} links, surcharge {surcharge}, "
            "tax {tax})", link.gross.count).format(
            net=money(link.net.amount), count=link.gross.count, surcharge=money(link.net.surcharge),
            tax=money(link.tax)))
    return "\n".join(lines)


# building the lines ------------------------------------------------------------------------


@dataclass(frozen=True)
class Ledger:
    """What one line needs from beyond itself: the journal's other attempts (the payment a
    follow-up acts on, the captures and voids a payment had), the carts' totals and the
    surcharge the service's list shows on each payment."""

    originals: Mapping[str, Attempt]
    """Transaction id, and payment id → the sale or pre-auth (or charge) that made it."""
    captures: Mapping[str, tuple[Attempt, ...]]
    """Transaction id → its approved captures, in the order begun."""
    voids: Mapping[str, tuple[Attempt, ...]]
    """Transaction id → its approved voids."""
    orders: Mapping[str, tuple[OrderTotals, ...]]
    surcharges: Mapping[str, int]
    """Payment id → the surcharge of its sale or capture entry."""

    @classmethod
    def of(cls, history: Iterable[Attempt], orders: Mapping[str, tuple[OrderTotals, ...]] | None = None,
           entries: Iterable[Mapping[str, Any]] = ()) -> Ledger:
        originals: dict[str, Attempt] = {}
        captures: dict[str, list[Attempt]] = {}
        voids: dict[str, list[Attempt]] = {}
        for attempt in history:
            if attempt.operation in ORDER_OPERATIONS:
                for made in made_as(attempt):
                    originals[made] = attempt
            elif attempt.outcome is not None and attempt.outcome.moved_money and attempt.ref:
                acts_as = attempt.operation.acts_as
                if acts_as is Operation.CAPTURE:
                    captures.setdefault(attempt.ref, []).append(attempt)
                elif acts_as is Operation.VOID:
                    voids.setdefault(attempt.ref, []).append(attempt)
        surcharges: dict[str, int] = {}
        for entry in entries:  # a capture's surcharge is what the payment finally charged
            kind, payment = str(entry.get("type")).casefold(), entry.get("paymentId")
            if entry.get("error") or not isinstance(payment, str) or not payment:
                continue
            if kind == "capture":
                surcharges[payment] = surcharge_of(entry)
            elif kind in ("sale", "auth", "ach"):
                surcharges.setdefault(payment, surcharge_of(entry))
        return cls(originals, {ref: tuple(found) for ref, found in captures.items()},
                   {ref: tuple(found) for ref, found in voids.items()}, orders or {}, surcharges)

    def order_keys(self, attempts: Iterable[Attempt]) -> set[str]:
        """The orders whose totals the lines of ``attempts`` need."""
        keys: set[str] = set()
        for attempt in attempts:
            paid = self._order_attempt(attempt)
            if paid is not None and paid.order_key:
                keys.add(paid.order_key)
        return keys

    def category(self, attempt: Attempt) -> Category:
        outcome, operation = attempt.outcome, moves_like(attempt)
        if outcome is None or outcome is Outcome.UNKNOWN:
            return Category.OPEN
        if outcome is Outcome.DECLINED and attempt.operation in ORDER_OPERATIONS:
            return Category.DECLINED
        if not outcome.moved_money:
            return Category.NOT_CHARGED
        if operation is Operation.PREAUTH:
            closed = any(made in self.captures or made in self.voids for made in made_as(attempt))
            return Category.PREAUTH_CLOSED if closed else Category.HELD
        if operation is Operation.VOID:
            return Category.RELEASED if self._releases(attempt) else Category.VOIDED
        return {Operation.SALE: Category.SALE, Operation.CAPTURE: Category.CAPTURE,
                Operation.REFUND: Category.REFUNDED}[operation]

    def line(self, attempt: Attempt, entry: Mapping[str, Any] | None) -> MoneyLine:
        """The attempt as a line: amount, card and cashier from the journal, completed from its
        own service entry, and for a follow-up from the payment it acts on."""
        category = self.category(attempt)
        original = self.originals.get(attempt.ref) if attempt.ref else None
        tender = tender_of(attempt.operation)
        card: Mapping[str, Any] = (entry.get("card") or entry.get("ach") or {}) if entry else {}
        result = attempt.result
        brand = "ACH" if tender is Tender.ACH else (
            card_brand(result.get("card_brand")) or card_brand(card.get("brand"), card.get("network"))
            or (card_brand(original.result.get("card_brand")) if original else None) or NO_NAME)
        last4 = (result.get("card_last4") or card.get("last4")
                 or (original.result.get("card_last4") if original else None) or "")
        surcharge = 0
        if category not in UNCHARGED and entry is not None:
            surcharge = self._voided_surcharge(attempt, entry) if category is Category.VOIDED else surcharge_of(entry)
        partial = attempt.outcome is Outcome.PARTIALLY_APPROVED
        tax, taxes = self._tax(attempt) if category in TAXED and not partial else (0, {})
        return MoneyLine(
            attempt_id=attempt.id, operation=attempt.operation, outcome=attempt.outcome, category=category,
            at=attempt.created_at, cashier=attempt.cashier or NO_NAME, brand=brand, last4=str(last4),
            amount=self._amount(attempt, entry), surcharge=surcharge, tax=tax, taxes=MappingProxyType(taxes),
            listed=entry is not None, voided=category in GROSS and self._voided(attempt), partial=partial,
            tender=tender, on_file=attempt.operation in ON_FILE_OPERATIONS,
        )

    def _releases(self, void: Attempt) -> bool:
        """A void of a pre-auth that no capture had taken before it."""
        original = self.originals.get(void.ref or "")
        if original is None or moves_like(original) is not Operation.PREAUTH:
            return False
        return not any(capture.created_at < void.created_at for capture in self.captures.get(void.ref or "", ()))

    def _voided(self, charge: Attempt) -> bool:
        made = [charge.ref or ""] if charge.operation.acts_as is Operation.CAPTURE else made_as(charge)
        return any(void.created_at > charge.created_at for name in made for void in self.voids.get(name, ()))

    def _amount(self, attempt: Attempt, entry: Mapping[str, Any] | None) -> int:
        if attempt.amount is not None:  # asked; what moved when it moved money (a partial approval's)
            return attempt.charged if attempt.charged is not None else attempt.amount
        listed = cents_in(entry, "baseAmount") if entry else None  # a void: the voided charge's base
        if listed is not None:
            return listed
        captured = [c for c in self.captures.get(attempt.ref or "", ()) if c.created_at < attempt.created_at]
        if captured:
            return captured[-1].amount or 0
        original = self.originals.get(attempt.ref or "")
        return (original.amount or 0) if original is not None else 0

    def _voided_surcharge(self, void: Attempt, entry: Mapping[str, Any]) -> int:
        """The surcharge of the charge a void gives back, as the list shows it on the payment."""
        original = self.originals.get(void.ref or "")
        payment = entry.get("paymentId") or void.result.get("payment_id") or (
            original.result.get("payment_id") if original else None)
        return self.surcharges.get(str(payment), surcharge_of(entry))

    def _order_attempt(self, attempt: Attempt) -> Attempt | None:
        """The sale or pre-auth whose cart the attempt's money is of."""
        if attempt.operation in ORDER_OPERATIONS:
            return attempt
        return self.originals.get(attempt.ref or "")

    def _tax(self, attempt: Attempt) -> tuple[int | None, dict[str, int]]:
        paid = self._order_attempt(attempt)
        if paid is None or not paid.order_key:
            return None, {}
        totals = OrderTotals.of(self.orders.get(paid.order_key, ()), paid.created_at)
        if totals is None:
            return None, {}
        return totals.tax, dict(totals.taxes)


def made_as(charge: Attempt) -> list[str]:
    """The names a charge's follow-ups give it: its gateway transaction id (a terminal's
    pnRefNum) and its payment id (the ref of a follow-up by the service's payment routes)."""
    return [str(name) for name in (charge.result.get("transaction_id"), charge.result.get("payment_id")) if name]


def surcharge_of(entry: Mapping[str, Any]) -> int:
    """``amount - baseAmount`` of a list entry (cents), else its ``surcharge``, else 0."""
    amount, base = cents_in(entry, "amount"), cents_in(entry, "baseAmount")
    if amount is not None and base is not None:
        return amount - base
    return cents_in(entry, "surcharge") or 0


def cents_in(entry: Mapping[str, Any], key: str) -> int | None:
    value = entry.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None
