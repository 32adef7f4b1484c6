"""The counter's till: how the cart's order is paid, and when it is.

Card payments of the balance or a part of it (on the terminal, or the attached customer's
card on file: through the station, journaled, never resent), cash (journaled before the
drawer opens), the order's payment lines followed from every outcome the station publishes
(only its own count), the order settled once they cover the total (``OrderPaid``),
restored from the journal after a restart; open pre-auths and their capture. A part of
``Counter`` (its cart, station, staff and disk thread), kept apart so that each file says
one thing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from pos_app.api.money import PHONE_PATTERN
from pos_app.cart import Cart, Totals
from pos_app.catalog import TaxRate
from pos_app.drawer import CashDrawer
from pos_app.i18n import _
from pos_app.journal import (
    CashEntry,
    CashKind,
    JournalError,
    Operation,
    OrderAlreadyPaid,
    OrderHasUnknownAttempt,
    OrderLine,
    Outcome,
)
from pos_app.money import MoneyFormat
from pos_app.staff import AuditAction, Staff, StaffMember
from pos_app.staff.audit import check_reason
from pos_app.station.events import (
    AttemptsSettled,
    CartChanged,
    CashMoved,
    EventBus,
    OperationEnded,
    OrderPaid,
    StationEvent,
)
from pos_app.station.order import GIVE_BACKS, OrderPayments, PaidCart
from pos_app.terminal.outcomes import OperationResult, Refusal

if TYPE_CHECKING:
    from pos_app.station.card_on_file import StoredCard
    from pos_app.station.station import Station

log = logging.getLogger(__name__)
T = TypeVar("T")
DRAWER_MOVES = {CashKind.CASH_IN: AuditAction.CASH_IN, CashKind.CASH_OUT: AuditAction.CASH_OUT,
                CashKind.NO_SALE: AuditAction.NO_SALE}
"""The drawer's own movements (a manager's) and how the audit trail names each."""
OPEN_PREAUTH_DAYS = 14
"""How far back the open pre-auths list looks (a tab or a deposit is captured within days)."""


@dataclass(frozen=True)
class OpenPreauth:
    """An approved pre-auth not captured or voided yet (a tab, a deposit), as the list of
    open pre-auths shows it."""

    result: OperationResult
    at: datetime
    """When it was taken (aware)."""
    cashier: str | None
    """Who was signed in then (None: taken unattended)."""


@dataclass(frozen=True)
class CashTaken:
    """Cash taken for the order: the ledger's line, the order when this paid it (None: the
    rest is still due), and the drawer opening: a task whose result is what it did, a
    sentence for the cashier (the change is shown meanwhile: a drawer that hangs never
    holds the screen)."""

    entry: CashEntry
    paid: PaidCart | None
    drawer: asyncio.Task[str]


class Till:
    """The paying part of ``Counter`` (see the module docstring)."""

    cart: Cart
    payments: OrderPayments
    rates: dict[str, TaxRate]
    money: MoneyFormat
    events: EventBus
    cashier: StaffMember | None
    last_paid: PaidCart | None
    drawer: CashDrawer
    staff: Staff
    _restored_order_key: str | None

    @property
    def station(self) -> Station:
        raise NotImplementedError

    def totals(self) -> Totals:
        raise NotImplementedError

    def _save_soon(self) -> None:
        raise NotImplementedError

    async def disk(self, work: Callable[..., T], *args: Any) -> T:
        raise NotImplementedError

    def _in_background(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        raise NotImplementedError

    async def acknowledgment(self) -> list[str]:
        """The merchant's surcharge disclosure, rate filled in, one paragraph per entry."""
        return await self.station.client.surcharge_acknowledgment()

    async def pay(self, *, preauth: bool = False, amount: int | None = None) -> OperationResult:
        """Pay by card what is due on the cart's order (tax included), or ``amount`` cents of
        it (a part: the rest stays due); once its lines pay the total, the cart is paid
        (``OrderPaid``) and a new one begins. The cart's totals are journaled first (the
        order guard's balance, the reports' tax collected).

        A payment that ends unknown holds the order; if ``check_again``, a manager's
        ``resolve`` or start-up recovery later proves it charged, it counts then. A partial
        approval counts for what it charged: the rest stays due (the journal never lets the
        order be charged above its balance). A pre-auth holds the whole order, before any
        other line."""
        await self._restored_read()
        totals, order_key = self.totals(), self.cart.order_key  # the order asked for, whatever happens meanwhile
        if preauth and (amount is not None or self.payments.paid):
            raise ValueError(_("a pre-auth holds the whole sale: take it before any other payment, for the full total"))
        amount = self._card_amount(totals, amount)
        await self._journal_totals(order_key, totals)
        contact = self._customer_contact()
        return await self._read_if_refused(await self.station.sale(
            amount, order_key=order_key, preauth=preauth, email=contact.get("email"), phone=contact.get("phone")))

    def _customer_contact(self) -> dict[str, str]:
        """The attached customer's email and phone as the terminal's pay request carries them
        (so that the service can send the receipt there); a contact the request would refuse
        (the reference's phone pattern, an email without @) is left out, never a reason to
        refuse the payment."""
        customer = self.cart.customer
        contact: dict[str, str] = {}
        if customer is None:
            return contact
        if customer.email and "@" in customer.email and not any(c.isspace() for c in customer.email):
            contact["email"] = customer.email
        if customer.phone and PHONE_PATTERN.fullmatch(customer.phone):
            contact["phone"] = customer.phone
        return contact

    async def pay_on_file(self, card: StoredCard, *, amount: int | None = None) -> OperationResult:
        """Charge the attached customer's stored ``card`` (``card_on_file.stored_cards``) for
        what is due, or ``amount`` cents of it: a payment line of the order, under the same
        rules as ``pay`` (journaled first, never resent, an unknown holds the order, a partial
        approval counts for its part). ``ValueError`` when no customer is attached, the card
        is another customer's, or nothing can be paid."""
        await self._restored_read()
        customer = self.cart.customer
        if customer is None:
            raise ValueError(_("Attach a customer first (F6), then F4 charges their card on file."))
        if card.customer_id != customer.id:
            raise ValueError(_("that card is not {customer}'s: press F4 again").format(customer=customer.name))
        totals, order_key = self.totals(), self.cart.order_key
        amount = self._card_amount(totals, amount)
        await self._journal_totals(order_key, totals)
        return await self._read_if_refused(await self.station.card_on_file(
            customer.id, card.method_id, amount, order_key=order_key))

    def _card_amount(self, totals: Totals, amount: int | None) -> int:
        """What a card pays of the order: ``amount`` cents, or all that is due (None)."""
        due = self._check_payable(totals, card=True)
        amount = due if amount is None else amount
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= due:
            raise ValueError(_("the card amount must be above zero and at most what is due ({due})").format(
                due=self.money(due)))
        return amount

    async def _read_if_refused(self, result: OperationResult) -> OperationResult:
        if result.refusal in (Refusal.EARLIER_ATTEMPT_APPROVED, Refusal.ORDER_PAID, Refusal.ABOVE_BALANCE):
            await self._read_order()  # the journal knows of a line this counter missed (the app stopped)
        return result

    async def pay_cash(self, received: int) -> CashTaken:
        """Cash handed over for the cart's order: journaled (what is due is kept, the rest is
        change), then the drawer opens (``CashTaken.drawer``); the order is paid when it covers the balance, else
        the balance remains. ``ValueError`` for an amount that is no cash or an order that
        cannot take it now (a card payment unknown, nothing due); the journal's own errors
        when it cannot record it (nothing was taken then)."""
        await self._restored_read()
        totals, order_key = self.totals(), self.cart.order_key  # as in ``_journal_totals``
        self._check_payable(totals)
        if isinstance(received, bool) or not isinstance(received, int) or received <= 0:
            raise ValueError(_("the cash received must be above zero"))
        journal = self.station.journal
        await journal.record_order(order_key, subtotal=totals.subtotal, tax=totals.tax,
                                   taxes=totals.breakdown, lines=self._order_lines(totals))
        try:
            entry = await self.station.take_cash(order_key, received,
                                                 cashier=self.cashier.name if self.cashier else None)
        except (OrderAlreadyPaid, OrderHasUnknownAttempt):
            await self._read_order()  # the journal knows of a line this counter missed (another process)
            raise
        paid = self.last_paid if self.last_paid is not None and self.last_paid.order_key == entry.order_key else None
        opened = self.open_drawer(f"cash for order {entry.order_key}")  # not for people: the drawer's log
        return CashTaken(entry, paid, self._in_background(opened))

    async def move_drawer_cash(self, kind: CashKind, amount: int, *, manager: StaffMember,
                               reason: str) -> tuple[CashEntry, str]:
        """Cash in, cash out, or the drawer opened for no sale (``amount`` 0): a manager's,
        with a reason; journaled, written to the audit trail, then the drawer opens. The
        entry and what the drawer did. ``ValueError`` for another kind, a bad amount, no reason."""
        if kind not in DRAWER_MOVES:
            raise ValueError(f"the drawer takes cash in, cash out or no sale here, not {kind}")  # not for people
        reason = check_reason(reason)
        entry = await self.station.move_cash(kind, amount, reason=reason, by=manager.name)
        detail = f"{kind.replace('_', ' ')} {self.money(amount)}" if amount else str(kind).replace("_", " ")
        await self.disk(self.staff.record, manager.name, DRAWER_MOVES[kind], detail, reason)
        return entry, await self.open_drawer(detail)

    async def open_drawer(self, reason: str) -> str:
        """Open the cash drawer (after the cash is journaled); what it did, as a sentence. A
        drawer that cannot be reached is said, never an error: the cash is recorded."""
        return (await self.drawer.aopen(reason)).message

    def _check_payable(self, totals: Totals, *, card: bool = False) -> int:
        """What is due on the cart's order; ``ValueError`` when nothing can be paid now. A card
        payment goes on while a line is unknown: the terminal service checks that line first
        and sends nothing unless it proves declined."""
        if not totals.payable:
            raise ValueError(_("the total must be above zero to take a payment"))
        if self.payments.unknown and not card:
            raise ValueError(_("a card payment of this sale has no known result yet: check it again (F9), or have a "
                               "manager decide it, before taking another payment"))
        due = self.payments.due(totals.total)
        if due <= 0:
            raise ValueError(_("this sale is paid"))
        return due

    async def _journal_totals(self, order_key: str, totals: Totals) -> None:
        """The order's totals in the journal (the order guard's balance, the reports' tax
        collected). A journal that cannot take them does not stop a card payment: if it is
        unusable the payment's own attempt is refused next with a sentence.

        ``order_key`` is the order the payment was asked for, read before any wait: if the
        order is settled meanwhile (a late approval read in the background) the cart
        starts a new order, and the payment must still name the old one, which the journal
        then refuses as paid, never the new one with the old one's amount."""
        try:
            await self.station.journal.record_order(order_key, subtotal=totals.subtotal, tax=totals.tax,
                                                    taxes=totals.breakdown, lines=self._order_lines(totals))
        except JournalError as error:
            log.error("the totals of order %s could not be journaled: %s", order_key, error)

    def _order_lines(self, totals: Totals) -> list[OrderLine]:
        """The cart's lines as the journal keeps them with the order (what a return picks from)."""
        return [OrderLine(line.line_id, line.name, line.sku, line.unit_cents, line.quantity,
                          totals.per_line.get(line.line_id, 0)) for line in self.cart.lines]

    async def restore_order(self) -> None:
        """Read what the journal says the restored cart's order was paid (the app may have
        stopped between a payment and the new sale); a paid one becomes a new sale whose
        receipt is offered (``PaidCart.restored``)."""
        await self._read_order(restored=True)
        self._restored_order_key = None

    async def _restored_read(self) -> None:
        """The cart found at start read against the journal before it takes a payment (when
        the start-up's reading failed, it is tried again here; its error stops the payment)."""
        if self._restored_order_key is not None and self._restored_order_key == self.cart.order_key:
            await self.restore_order()

    async def _read_again(self) -> None:
        """The order read again when the journal knows more than the results said (a void or
        refund of it; a manager's decision, beside which the service's later answer may be
        kept and count); a journal that cannot be read leaves the lines as the results said
        (logged); the journal's order guard still judges every payment by its own record."""
        try:
            await self._read_order()
        except JournalError as error:
            log.warning("order %s not read again: %s", self.cart.order_key, error)

    async def _read_order(self, *, restored: bool = False) -> None:
        order_key = self.cart.order_key
        journal = self.station.journal
        charges = await journal.order_charges(order_key)
        attempts = await journal.order_attempts(order_key)
        cash = await journal.order_cash(order_key)
        if self.cart.order_key != order_key:
            return
        self.payments.restore(charges, attempts, cash)
        self._settle_if_paid(restored=restored)

    def _outcome(self, event: StationEvent) -> None:
        """Every outcome the station publishes; only this order's own lines count."""
        if isinstance(event, OperationEnded):
            self._take((event.result, *event.result.recovered))
        elif isinstance(event, AttemptsSettled):
            self._take(event.results)
        elif isinstance(event, CashMoved) and event.entry.order_key == self.payments.order_key:
            self.payments.add_cash(event.entry)
            self._settle_if_paid()

    def _take(self, results: Iterable[OperationResult]) -> None:
        taken = [result for result in results if self._follows(result)]
        read_again = False
        for result in taken:
            changed = self.payments.take(result)
            read_again |= changed and result.operation in GIVE_BACKS
            read_again |= result.resolved_by is not None and result.order_key == self.payments.order_key
        if read_again:  # the journal has the whole story (a refund seen before a restart, a late answer): read it
            self._in_background(self._read_again())
        if taken:
            self._settle_if_paid()

    def _follows(self, result: OperationResult) -> bool:
        """A result of this order's own lines (any state: the panel shows declines too), or a
        void or refund (of a charge of it, perhaps)."""
        return result.order_key == self.payments.order_key or result.operation in GIVE_BACKS

    def _settle_if_paid(self, *, restored: bool = False) -> None:
        """Paid in full: remember the cart for the receipt and start afresh (in memory at
        once; the file follows). Paid in part: the screen shows what is still due."""
        totals = self.totals()
        if not self.payments.pays(totals.total):
            log.info("order %s: %s of %s cents paid", self.payments.order_key, self.payments.paid, totals.total)
            self.events.publish(CartChanged(self.cart))
            return
        paid = PaidCart(self.payments.order_key, self.cart.lines, totals, dict(self.rates),
                        self.payments.paying_lines(), self.cashier.name if self.cashier else "-", datetime.now(UTC),
                        restored=restored, customer=self.cart.customer)
        self.last_paid = paid
        self.cart = Cart()
        self.payments = OrderPayments(self.cart.order_key)
        self.events.publish(CartChanged(self.cart))
        self.events.publish(OrderPaid(paid))
        self._save_soon()

    async def open_preauths(self, *, days: int = OPEN_PREAUTH_DAYS) -> list[OpenPreauth]:
        """Approved pre-auths of the last ``days`` days not captured or voided since (a tab,
        a deposit), newest first: their results (amount, card, ids), when and by whom."""
        today = datetime.now().date()
        attempts = []
        for back in range(days):
            attempts.extend(await self.station.journal.attempts(day=today - timedelta(days=back)))
        closed = {a.ref for a in attempts if a.operation in (Operation.CAPTURE, Operation.VOID)
                  and a.outcome is Outcome.APPROVED}
        found = [OpenPreauth(OperationResult.from_attempt(a), a.created_at, a.cashier) for a in attempts
                 if a.operation is Operation.PREAUTH and a.outcome is Outcome.APPROVED]
        return sorted((p for p in found if p.result.transaction_id and p.result.transaction_id not in closed),
                      key=lambda p: p.at, reverse=True)

    async def capture(self, preauth: OperationResult, amount: int) -> OperationResult:
        """Capture ``amount`` cents (at most the pre-auth's) of an open pre-auth."""
        assert preauth.transaction_id is not None
        return await self.station.capture(preauth.terminal_id, preauth.transaction_id, amount,
                                          payment_id=preauth.payment_id)
