"""``Counter``: the sale in progress at one lane, Qt-free.

The catalog (searched as the cashier types, codes looked up as they are scanned), the
cart (saved on every change, restored after a crash), the merchant's taxes, the staff
(sign-in by PIN, manager overrides) and the order's payments, card and cash (its till:
``till.Till``). Every disk read or write (SQLite, the cart file) runs on the counter's own
worker thread, so the event loop, and the screen, never waits on the disk; the slow PIN
hashes run on a second one, so that a PIN worked out ahead (``pin_ahead``) while the
cashier types never holds up a scan, and the start's background imports wait for them
(``pos_app.give_way``): a hash that shared the cores with them took up to twice as long.

The counter opens first, on local files only (``open``): the cashier signs in and scans
while the payment side (client, journal, terminal service: most of a start's imports)
is still opening; ``attach`` brings that ``Station`` in. Until then ``station`` raises
``PaymentsNotReady`` and ``payments_ready`` is False. This module imports none of the
payment stack itself.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from pos_app.cart import (
    OPEN_PRICE_MAX_CENTS,
    Cart,
    CartError,
    CartLine,
    CartSaveError,
    CartStore,
    LineNotFound,
    OrderCustomer,
    TaxChoice,
    Totals,
    tax_choice,
)
from pos_app.cart.models import check_quantity
from pos_app.catalog import Catalog, CatalogItem, SyncResult, TaxRate
from pos_app.config import StoreConfig
from pos_app.drawer import CashDrawer
from pos_app.give_way import urgent
from pos_app.i18n import _, ngettext
from pos_app.journal import JournalError
from pos_app.money import AmountError, AmountProblem, MoneyFormat, money_format
from pos_app.staff import AuditAction, InvalidPin, PinMatch, Staff, StaffMember
from pos_app.station.events import (
    CartChanged,
    CatalogSynced,
    CatalogSyncFailed,
    EventBus,
    SaveTrouble,
)
from pos_app.station.order import OrderPayments, PaidCart
from pos_app.station.till import Till

if TYPE_CHECKING:
    from pos_app.station.station import Station

log = logging.getLogger(__name__)
T = TypeVar("T")
SAVE_RETRY = 5.0
"""Seconds between tries of a cart write the disk refused."""


@dataclass(frozen=True)
class LineLowered:
    """A cart line removed, or its quantity lowered, after a card payment was attempted on
    its order (the customer may have seen a higher total on the terminal): what the audit
    trail records, under the cashier's name."""

    line: CartLine
    """The line as it was."""
    quantity: int
    """What it was set to (0: removed)."""
    order_key: str
    attempt: str
    """Which attempt, and its outcome (or why that is not known)."""

    @property
    def action(self) -> AuditAction:
        return AuditAction.LINE_REMOVED if self.quantity == 0 else AuditAction.QUANTITY_LOWERED

    @property
    def detail(self) -> str:
        """The audit trail's record of the change (English, as the trail is kept)."""
        code = f", SKU {self.line.sku}" if self.line.sku else ""
        return (f"{self.line.name} (line {self.line.line_id}{code}): quantity {self.line.quantity} → "
                f"{self.quantity}; order {self.order_key}, after payment attempt {self.attempt}")  # not for people


class PaymentsNotReady(RuntimeError):
    """The payment side of the station has not opened yet (the first moments of a start)."""


class Counter(Till):
    """The cashier's side of a station; see the module docstring."""

    def __init__(self, config: StoreConfig, events: EventBus, catalog: Catalog, cart_store: CartStore,
                 staff: Staff, cart: Cart, rates: dict[str, TaxRate], executor: ThreadPoolExecutor, *,
                 money: MoneyFormat, training: bool = False, restore_notice: str | None = None) -> None:
        self.config = config
        self.money = money
        """How this store writes and reads amounts (its currency and locale)."""
        self.events = events
        self.training = training
        self.catalog = catalog
        self.cart_store = cart_store
        self.staff = staff
        self.cart = cart
        self.rates = rates
        self.cashier: StaffMember | None = None
        self.last_paid: PaidCart | None = None
        self.payments = OrderPayments(cart.order_key)
        """The payment lines of the cart's order so far (card, cash): what is still due."""
        self.unsaved: str | None = None
        """Why the newest cart is not on disk yet (it is written again every ``save_retry`` s)."""
        self.save_retry = SAVE_RETRY
        self.drawer = CashDrawer.from_config(config)
        self.restore_notice = restore_notice
        """Why the saved sale was not restored (a new one was started), for the cashier; None when it was."""
        self._station: Station | None = None
        self._executor = executor
        self._pin_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pin-check")
        self._saving = asyncio.Lock()
        self._later: set[asyncio.Task[Any]] = set()  # saves started by a settlement, drawers opening
        self._retrying: asyncio.Task[None] | None = None
        self._unsubscribe = events.subscribe(self._outcome)
        self._editing = asyncio.Lock()  # one cart edit at a time (an audit write may come first)
        self._restored_order_key = None if cart.is_empty else cart.order_key
        """The order of the cart found on disk at start: it may have had a payment attempt
        before the journal (``attach``) is open to say; until ``restore_order`` has read what
        it was charged, its lines cannot be lowered."""

    @classmethod
    async def open(cls, config: StoreConfig, events: EventBus, *, training: bool = False) -> Counter:
        """Open the catalog, the staff file and the saved cart (restored when there is one);
        in ``training`` the demo staff are made sure of; load the store's money format (Babel's
        data for its locale, before the sale screen writes its first amount). No payment side
        yet: ``attach``."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="counter")
        loop = asyncio.get_running_loop()

        def open_all() -> tuple[Catalog, CartStore, Staff, Cart, dict[str, TaxRate], str | None, MoneyFormat]:
            money = money_format(config.currency, config.locale).load()
            catalog = Catalog.open(config.catalog_path)
            staff = Staff.open(config.staff_path)
            if training:
                staff.ensure_demo_staff()
            store = CartStore(config.cart_path)
            rates = catalog.taxes()
            cart, notice = _restored_cart(store, rates)
            return catalog, store, staff, cart, rates, notice, money

        try:
            catalog, store, staff, cart, rates, notice, money = await loop.run_in_executor(executor, open_all)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(config, events, catalog, store, staff, cart, rates, executor, money=money, training=training,
                   restore_notice=notice)

    def attach(self, station: Station) -> None:
        """The payment side has opened: card payments, the catalog sync and the service's
        answers go through ``station`` from now on (a cashier signed in meanwhile is named
        in its requests)."""
        self._station = station
        if self.cashier is not None:
            station.sign_in(self.cashier.name)

    @property
    def payments_ready(self) -> bool:
        return self._station is not None

    @property
    def station(self) -> Station:
        """The payment side; ``PaymentsNotReady`` before ``attach``."""
        if self._station is None:
            raise PaymentsNotReady(_("card payments are still starting: the payment service is not connected yet"))
        return self._station

    async def aclose(self) -> None:
        self._unsubscribe()
        if self._retrying is not None:
            self._retrying.cancel()
        await asyncio.gather(*self._later, return_exceptions=True)
        await asyncio.get_running_loop().run_in_executor(self._pin_executor, lambda: None)  # a PIN hash under way
        self._pin_executor.shutdown(wait=True)
        await self.disk(self._close_files)
        self._executor.shutdown(wait=True)

    def _close_files(self) -> None:
        self.catalog.close()
        self.staff.close()

    async def disk(self, work: Callable[..., T], *args: Any) -> T:
        """Run ``work(*args)`` on the counter's disk thread (SQLite, files, slow PIN checks)."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, functools.partial(work, *args))

    # catalog ----------------------------------------------------------------------------

    async def search(self, text: str, limit: int = 20) -> list[CatalogItem]:
        return await self.disk(self.catalog.search, text, limit)

    async def categories(self) -> list[str]:
        return await self.disk(self.catalog.categories)

    async def in_category(self, name: str) -> list[CatalogItem]:
        return await self.disk(self.catalog.in_category, name)

    async def synced_at(self) -> datetime | None:
        return await self.disk(self.catalog.synced_at)

    async def sync_catalog(self) -> SyncResult | None:
        """Copy the service's catalog; on failure the old one stays (an event says why)."""
        from pos_app.api.errors import PaymentsError
        from pos_app.catalog import CatalogError, sync_catalog

        try:
            result = await sync_catalog(self.station.client, self.catalog)
        except (CatalogError, PaymentsError) as error:
            log.warning("catalog sync failed: %s", error)
            self.events.publish(CatalogSyncFailed(str(error)))
            return None
        self.rates = await self.disk(self.catalog.taxes)
        if not self.cart.is_empty and not self.payments.holds:
            # its totals follow the new rates (a tax no longer listed keeps its known one); an order that
            # took money keeps the total the customer is paying
            self.cart.refresh_rates(self.rates)
            await self._changed()
        self.events.publish(CatalogSynced(result))
        return result

    # the cart ---------------------------------------------------------------------------

    def totals(self) -> Totals:
        """The cart's totals at the merchant's rates; once the order took money, at the rates
        it was rung up with (a tax changed by a sync meanwhile does not move what is due)."""
        if not self.payments.holds:
            return self.cart.totals(self.rates)
        known = self.cart.known_rates  # a tax the merchant no longer lists stays flagged at its kept rate
        return self.cart.totals({tax_id: known.get(tax_id, rate) for tax_id, rate in self.rates.items()})

    async def scan(self, code: str, quantity: int = 1) -> CartLine | None:
        """A scanned or typed code: ``quantity`` of the item whose SKU/barcode it is, added;
        None if none."""
        item = await self.disk(self.catalog.by_code, code)
        if item is None:
            return None
        return await self.add(item, quantity)

    async def add(self, item: CatalogItem, quantity: int = 1) -> CartLine:
        """``ValueError`` (the cart unchanged) for a bad quantity, an item naming a tax no
        rate is known for (``UnknownTax``), or an order whose items are locked by a payment."""
        async with self._editing:
            self._check_unlocked()
            line = self.cart.add(item, quantity, rates=self.rates)
            self.events.publish(CartChanged(self.cart))
        await self._save()
        return line

    async def open_price_taxes(self) -> TaxChoice:
        """The tax classes the misc key offers, and the one picked at first (``tax_choice``)."""
        return tax_choice(self.rates, await self.disk(self.catalog.tax_uses))

    def read_price(self, text: str) -> int:
        """A misc item's price as the cashier typed it, in the store's format (``"4,99"`` in
        de_DE), as cents; ``ValueError`` with a sentence to show under the field otherwise:
        nothing typed, not an amount, 0 or less, more than ``OPEN_PRICE_MAX_CENTS``."""
        money = self.money
        not_positive = _("The price must be more than {zero}. For a discount, scan the discount's code.").format(
            zero=money(0))
        too_dear = _("A misc item costs at most {most}: check the price. A dearer item must "
                     "be in the catalog.").format(most=money(OPEN_PRICE_MAX_CENTS))
        try:
            cents = money.parse(text)
        except AmountError as error:
            said = {AmountProblem.NEGATIVE: not_positive, AmountProblem.TOO_LARGE: too_dear}
            raise ValueError(said.get(error.problem, f"{error}.")) from None
        if cents is None:
            raise ValueError(_("Type the price, like {example}.").format(example=money.example))
        if cents <= 0:
            raise ValueError(not_positive)
        if cents > OPEN_PRICE_MAX_CENTS:
            raise ValueError(too_dear)
        return cents

    async def add_open_price(self, name: str, unit_cents: int, tax_ids: Iterable[str] = ()) -> CartLine:
        """One item the catalog lacks (the misc key), at ``unit_cents`` taxed by ``tax_ids``
        (a class of ``open_price_taxes``); ``ValueError`` (the cart unchanged) as
        ``Cart.add_open_price`` says, or while the order's items are locked by a payment."""
        async with self._editing:
            self._check_unlocked()
            line = self.cart.add_open_price(name, unit_cents, tax_ids, rates=self.rates)
            self.events.publish(CartChanged(self.cart))
        await self._save()
        return line

    async def set_quantity(self, line_id: int, quantity: int) -> CartLine | None:
        """Set a line's quantity; 0 removes it (None). See ``_edit_line`` for the audit."""
        return await self._edit_line(line_id, lambda line: quantity)

    async def step_quantity(self, line_id: int, step: int) -> CartLine | None:
        """One more (``+1``) or one less (``-1``) of a line, counted from its quantity when
        this edit's turn comes (two quick presses make two steps); 1 less than 1 removes it."""
        return await self._edit_line(line_id, lambda line: line.quantity + step)

    async def remove(self, line_id: int) -> None:
        await self._edit_line(line_id, lambda line: 0)

    async def _edit_line(self, line_id: int, quantity_of: Callable[[CartLine], int]) -> CartLine | None:
        """Set line ``line_id`` to ``quantity_of(line)`` (0 removes it), one edit at a time.

        Lowering or removing a line once a payment was attempted on the order is written to
        the audit trail first (``LineLowered``); if that record cannot be written the error
        (``StaffError``) reaches the caller and the line is left as it was. ``ValueError``
        for a quantity out of range, ``LineNotFound`` for a line no longer there (also when
        the order was paid meanwhile, e.g. by recovery: a new cart has begun)."""
        async with self._editing:
            cart = self.cart
            line = cart.line(line_id)
            quantity = check_quantity(quantity_of(line), allow_zero=True)
            if quantity == line.quantity:
                return line
            if quantity < line.quantity:
                attempt = await self._attempt_before_lowering(cart.order_key)
                if attempt is not None:
                    if self.cart is not cart:
                        raise LineNotFound(line_id)
                    lowered = LineLowered(line, quantity, cart.order_key, attempt)
                    cashier = self.cashier.name if self.cashier else "-"
                    await self.disk(self.staff.record, cashier, lowered.action, lowered.detail)
            if self.cart is not cart:
                raise LineNotFound(line_id)
            self._check_unlocked()
            changed = cart.set_quantity(line_id, quantity)
            self.events.publish(CartChanged(self.cart))
        await self._save()
        return changed

    def _check_unlocked(self) -> None:
        """``ValueError`` while a payment line of the order moved money (or may have), and
        while the cart found at start is not read against the journal yet (it may have been
        paid before the app stopped): what the customer pays for must not change under a
        payment."""
        if self.cart.order_key == self._restored_order_key:
            raise ValueError(_("the sale found at start is still being checked with the payment record: "
                               "change it in a moment"))
        if self.payments.holds:
            raise ValueError(_("this sale has payments: its items cannot change now. Take the rest "
                               "({due}) by card or cash, or have a "
                               "manager void the card payment in the back office (F9).").format(
                due=self.money(self.payments.due(self.totals().total))))

    async def _attempt_before_lowering(self, order_key: str) -> str | None:
        """What says a card payment was attempted on ``order_key`` (for the audit trail);
        None when none was, or when the journal cannot tell (the note then says so).

        ``ValueError`` while the cart restored at start is not read against the journal yet
        (``restore_order``), and while a payment of the order has no known result: were it
        charged, it would pay for what is left, not for what the customer took."""
        if order_key == self._restored_order_key:
            raise ValueError(_("the sale found at start is still being checked with the payment record: "
                               "lower or remove its lines in a moment"))
        if self._station is None:
            return None
        try:
            attempts = await self._station.journal.order_attempts(order_key)
        except JournalError as error:
            return f"not known: the payment record could not be read ({error})"  # not for people: the audit trail's
        if any(a.needs_resolution for a in attempts):
            raise ValueError(_("a card payment of this sale has no known result yet: check it again, or have a "
                               "manager decide it, before taking items off"))
        if not attempts:
            return None
        latest = attempts[-1]
        return f"{latest.id} ({latest.outcome})"

    async def attach_customer(self, customer: OrderCustomer | None) -> None:
        """Attach ``customer`` to the cart's order (None: detach), saved with the cart; the
        amount does not change, so a payment holding the order does not stop it."""
        async with self._editing:
            self.cart.attach_customer(customer)
        await self._changed()

    async def renew_order(self) -> None:
        """The cart's lines under a new order key, nothing paid (its order was cancelled and
        everything given back): the items (and the customer) may change again."""
        async with self._editing:
            old = self.cart
            self.cart = Cart(lines=old.lines, next_line_id=old.next_line_id, known_rates=old.known_rates.values(),
                             customer=old.customer)
            self.payments = OrderPayments(self.cart.order_key)
        await self._changed()

    async def resume_order(self, cart: Cart) -> None:
        """``cart`` back on the empty lane as it was (a parked order whose link was cancelled),
        under its own order key, charged nothing."""
        self.cart = cart
        self.payments = OrderPayments(cart.order_key)
        await self._changed()

    async def new_sale(self) -> None:
        """An empty cart with a new order key, charged nothing yet (the last one was paid or abandoned)."""
        self.cart = Cart()
        self.payments = OrderPayments(self.cart.order_key)
        await self._changed()

    async def _changed(self) -> None:
        """Publish the change at once (the screen follows), then save it (on the disk thread)."""
        self.events.publish(CartChanged(self.cart))
        await self._save()

    async def _save(self) -> None:
        """Write the newest cart. When the disk refuses (full, read-only, gone), the cart
        stays in memory, a ``SaveTrouble`` says so, and it is written again every
        ``save_retry`` seconds until it is saved (another ``SaveTrouble``, ``saved``)."""
        async with self._saving:  # saves in order: the file always ends as the newest cart
            try:
                await self.disk(self.cart_store.save, self.cart)
            except (CartSaveError, OSError) as error:
                self._save_failed(error)
                return
        if self.unsaved is not None:
            self.unsaved = None
            log.info("the cart is saved again")
            self.events.publish(SaveTrouble("cart", _("The sale is saved again."), saved=True))

    def _save_failed(self, error: Exception) -> None:
        first = self.unsaved is None
        self.unsaved = str(error)
        if first:
            log.error("the cart could not be saved (kept in memory, written again every %s s): %s",
                      self.save_retry, error)
            self.events.publish(SaveTrouble("cart", _(
                "The sale could not be saved to disk ({error}). Nothing is lost while the app runs: it is "
                "saved again as soon as the disk takes it.").format(error=error)))
        if self._retrying is None or self._retrying.done():
            self._retrying = asyncio.get_running_loop().create_task(self._save_later())

    async def _save_later(self) -> None:
        while self.unsaved is not None:
            await asyncio.sleep(self.save_retry)
            await self._save()

    def _save_soon(self) -> None:
        """Save the cart from a synchronous event handler (a settlement): a task, awaited by ``aclose``."""
        self._in_background(self._save())

    def _in_background(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """``work`` as a task of the counter's, awaited by ``aclose``."""
        task = asyncio.get_running_loop().create_task(work)
        self._later.add(task)
        task.add_done_callback(self._later.discard)
        return task

    # staff ------------------------------------------------------------------------------

    def pin_ahead(self, pin: str) -> asyncio.Future[PinMatch | None]:
        """Work out whose PIN ``pin`` is while the cashier is still typing (``Staff.match``:
        nothing is counted or written); None for text that is no PIN (yet). The hash is
        handed to the PIN thread at once, from the key's own handler: as a task it began only
        after the field was repainted, some 10 ms later on a busy start."""
        return asyncio.get_running_loop().run_in_executor(self._pin_executor, _urgently, self._match, pin)

    def _match(self, pin: str) -> PinMatch | None:
        try:
            return self.staff.match(pin)
        except InvalidPin:
            return None

    async def sign_in(self, pin: str, *, ahead: PinMatch | None = None) -> StaffMember:
        """Raises the staff errors (``WrongPin``, ``LockedOut``, ``InvalidPin``...); with
        ``ahead`` for this PIN it costs no hash."""
        member = await asyncio.get_running_loop().run_in_executor(
            self._pin_executor, functools.partial(_urgently, self.staff.sign_in, pin, ahead=ahead))
        log.info("signed in: %s (%s)", member.name, member.role)
        self.cashier = member
        if self._station is not None:
            self._station.sign_in(member.name)
        return member

    def sign_out(self) -> None:
        self.cashier = None
        if self._station is not None:
            self._station.sign_out()

    async def check_manager(self, pin: str, *, action: AuditAction, detail: str, reason: str = "") -> StaffMember:
        """A manager's PIN typed on the cashier's screen: the override is recorded (who,
        what, why, on whose screen) in the audit trail."""
        manager = await self.disk(self.staff.check_manager, pin)
        cashier = self.cashier.name if self.cashier else "-"
        await self.disk(self.staff.record, manager.name, action, f"{detail} (on {cashier}'s screen)", reason)
        return manager


def _urgently[R](work: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """``work`` (a PIN's hash) done while the start's background imports wait for it
    (``pos_app.give_way``)."""
    with urgent():
        return work(*args, **kwargs)


def _restored_cart(store: CartStore, rates: dict[str, TaxRate]) -> tuple[Cart, str | None]:
    """The saved cart with its known rates brought up to date, or a new one and why (a file
    that cannot be read, or a cart with a line whose tax no rate is known for, is kept aside).
    Runs on the disk thread."""
    try:
        cart = store.load() or Cart()
    except CartError as error:  # kept aside by the store
        log.error("the saved cart could not be restored: %s", error)
        return Cart(), _("The saved sale could not be restored ({error}); a new sale was started.").format(error=error)
    cart.refresh_rates(rates)
    unrated = cart.totals(rates).unrated_lines
    if not unrated:
        return cart, None
    names = ", ".join(cart.line(line_id).name for line_id in unrated)
    kept = store.keep_aside()
    log.error("the saved cart was not restored: %s name taxes with no known rate; kept as %s", names, kept)
    why = ngettext("The saved sale could not be restored: {names} names a tax the merchant no longer lists, and an "
                   "older pos-app saved it without the rates it was rung up with.",
                   "The saved sale could not be restored: {names} name a tax the merchant no longer lists, and an "
                   "older pos-app saved it without the rates it was rung up with.", len(unrated)).format(names=names)
    if kept:
        where = _("It was kept as {path}; a new sale was started.").format(path=kept)
    else:
        where = _("It could not be moved aside; a new sale was started.")
    return Cart(), f"{why} {where}"
