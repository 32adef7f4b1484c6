"""Phone orders paid by a payment link (Ctrl+K): ``ParkedOrders`` parks the counter's order
on a link for its total, sends it, and frees the lane; completes a parked order once its
link is paid; cancels one (the link deleted first); in training, pays one through the
sandbox. Qt-free: the watcher (``link_watcher``) calls ``check`` within the poll budget,
the window calls the rest; station events say what happened.

Each parking is kept in the journal (``pos_app.journal.parked`` says why there), so it
survives a restart. The rules:

- the parking is written before the link is asked for. A link whose answer was lost is
  looked up (the links made since, of the amount, no other parking's) and adopted; none
  found means none can be paid (a link is paid only by who got it, and none was sent), so
  the order simply stays on the lane. A parking a stopped app left before its link was
  sent ends ``failed`` at the next start: its cart is still the lane's;
- paid only on positive evidence: the link's paid amount reaches its total and its total
  is what the order asked; anything else leaves the order waiting, and says why;
- the order completes once: the journal lets one ``paid`` row per order in, and whoever
  wrote it publishes ``LinkOrderPaid`` (a second sighting, a second process: nothing);
- cancelling deletes the link first; the order comes back only when the service confirmed
  the delete; a link paid meanwhile completes the order instead.

The link is for the order's whole total (``taxes: []``: the cart's tax is in the amount),
so a sale that already took money (a card part, cash) is not parked: its rest is taken at
the counter.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING

from pos_app.api.customer_models import EMAIL
from pos_app.api.errors import ApiError, InvalidInput, PaymentsError
from pos_app.api.link_models import LinkDraft, PaymentLink
from pos_app.cart import Cart
from pos_app.cart.store import decode, encode
from pos_app.i18n import _
from pos_app.journal import JournalError, ParkedOrder, ParkingRefused, ParkStage
from pos_app.station.events import LinkOrderPaid, ParkedOrdersChanged
from pos_app.station.order import LineState, LinkPayment, PaidCart, PaymentLine, Tender

if TYPE_CHECKING:
    from pos_app.station.counter import Counter
    from pos_app.station.station import Station

log = logging.getLogger(__name__)
LOST_LINK_WINDOW = timedelta(minutes=2)
"""How long before its parking a link may have been made and still be the parking's own
(the service's clock and the station's differ a little)."""
SHOWN_FOR = timedelta(hours=12)
"""How long a paid or cancelled parking stays in the list of waiting links."""
PHONE_DIGITS = re.compile(r"^1?(\d{10})$")


class Channel(StrEnum):
    EMAIL = "email"
    SMS = "sms"


@dataclass(frozen=True)
class Contact:
    """Where a link goes: an email address, or a US phone number (by SMS)."""

    channel: Channel
    address: str


def read_contact(text: str) -> Contact:
    """What the cashier typed, as a contact; ``ValueError`` with a sentence to show otherwise."""
    text = text.strip()
    if not text:
        raise ValueError(_("Type the customer's mobile number or email address."))
    if "@" in text:
        if not EMAIL.fullmatch(text):
            raise ValueError(_("{typed} is not a complete email address: type it like ana@example.com.").format(
                typed=text))
        return Contact(Channel.EMAIL, text)
    digits = PHONE_DIGITS.fullmatch(re.sub(r"[\s().+-]", "", text))
    if digits is None:
        raise ValueError(_("{typed} is neither a US mobile number like (555) 123-4567 nor an email address.").format(
            typed=text))
    number = digits.group(1)
    return Contact(Channel.SMS, f"({number[:3]}) {number[3:6]}-{number[6:]}")


def contact_of(cart: Cart) -> str:
    """The attached customer's contact a link goes to first: the phone (the customer is on
    it), else the email; "" when there is no customer or neither."""
    customer = cart.customer
    if customer is None:
        return ""
    return customer.phone or customer.email or ""


def paid_cart(parking: ParkedOrder) -> PaidCart:
    """The parked cart as its link paid it: what the receipt prints."""
    cart = decode(parking.cart.encode())
    rates = dict(cart.known_rates)
    line = PaymentLine(parking.parking_id, Tender.LINK, LineState.APPROVED, parking.amount, parking.amount,
                       link=LinkPayment(parking.link_id or "", parking.payment_id, parking.surcharge))
    return PaidCart(parking.order_key, cart.lines, cart.totals(rates), rates, (line,), parking.cashier or "-",
                    parking.paid_at or datetime.now(UTC), customer=cart.customer)


class ParkedOrders:
    """The lane's orders parked on payment links (see the module docstring)."""

    def __init__(self, counter: Counter) -> None:
        self.counter = counter

    @property
    def station(self) -> Station:
        return self.counter.station

    # parking ----------------------------------------------------------------------------

    async def park(self, contact_text: str) -> ParkedOrder:
        """Park the lane's order on a link for its total sent to ``contact_text``; the lane
        then starts a new sale. ``ValueError`` with a sentence when it cannot (nothing sent,
        the sale still on the lane)."""
        contact = read_contact(contact_text)
        counter, journal = self.counter, self.station.journal
        cart, totals = counter.cart, counter.totals()
        if cart.is_empty or not totals.payable:
            raise ValueError(_("Add items first: a payment link pays a sale's total."))
        if counter.payments.holds or await journal.order_attempts(cart.order_key) \
                or await journal.order_cash(cart.order_key):
            raise ValueError(_("This sale has taken a payment already: take the rest at the counter (F12 card, "
                               "F8 cash). A payment link pays a whole sale."))
        await counter._journal_totals(cart.order_key, totals)
        cashier = counter.cashier.name if counter.cashier is not None else None
        try:
            parking = await journal.begin_parking(cart.order_key, totals.total, contact=contact.address,
                                                  cart=encode(cart).decode(), cashier=cashier)
        except ParkingRefused as refused:
            raise ValueError(f"{str(refused)[:1].upper()}{str(refused)[1:]}.") from refused
        link = await self._make_link(parking)
        parking = await journal.record_link(parking, link.id, link.url)
        unsent = await self._send(parking, contact)
        if counter.cart is cart:
            await counter.new_sale()
        self.station.events.publish(ParkedOrdersChanged(parking, unsent))
        return parking

    async def _make_link(self, parking: ParkedOrder) -> PaymentLink:
        journal = self.station.journal
        try:
            return await self.station.client.links.create(LinkDraft(amount=parking.amount, taxes=()))
        except (ApiError, InvalidInput) as error:  # answered: no link was made
            await journal.end_parking(parking, ParkStage.FAILED,
                                      f"the service refused the link: {error}")  # not for people: the journal's
            raise ValueError(_("No payment link was made: the service said {error}. The sale is still here.").format(
                error=error)) from error
        except PaymentsError as error:  # no answer, or one that cannot be read: was it made?
            found = await self._find_lost(parking)
            if found is not None:
                log.info("the link of order %s was made though its answer was lost: %s", parking.order_key, found.id)
                return found
            await journal.end_parking(parking, ParkStage.FAILED,
                                      f"no answer, and no link found ({error})")  # not for people: the journal's
            raise ValueError(_("The payment service did not answer ({error}), and no link of this sale was found: "
                               "nothing was sent. The sale is still here: try again.").format(error=error)) from error

    async def _find_lost(self, parking: ParkedOrder) -> PaymentLink | None:
        """The one link made for ``parking`` though its answer was lost: of its amount, made
        since shortly before it, no other parking's; None when there is not exactly one (an
        unsent link is paid by no one)."""
        try:
            page = await self.station.client.links.list(limit=50)
            known = {p.link_id for p in await self.station.journal.parked_orders(since=parking.parked_at - SHOWN_FOR)}
        except (PaymentsError, JournalError) as error:
            log.warning("the links made for order %s could not be listed: %s", parking.order_key, error)
            return None
        since = parking.parked_at - LOST_LINK_WINDOW
        found = [link for link in page.data if link.amount == parking.amount and not link.taxes
                 and link.id not in known and _made_since(link, since)]
        return found[0] if len(found) == 1 else None

    async def _send(self, parking: ParkedOrder, contact: Contact) -> str:
        """Send the link; "" when the service took it, else why not (the order stays parked:
        Ctrl+W cancels it)."""
        links = self.station.client.links
        try:
            sent = await (links.send_email(parking.link_id or "", contact.address) if contact.channel is Channel.EMAIL
                          else links.send_sms(parking.link_id or "", contact.address))
        except PaymentsError as error:
            log.warning("the link of order %s was not sent: %s", parking.order_key, error)
            return _("The link may not have reached {address} ({error}): cancel it in Ctrl+W and park again.").format(
                address=contact.address, error=error)
        if sent.success is False:
            return _("The service did not send the link to {address} ({reason}): "
                     "cancel it in Ctrl+W and park again.").format(
                address=contact.address, reason=sent.message or _("no reason given"))
        return ""

    # following ----------------------------------------------------------------------------

    async def waiting(self) -> list[ParkedOrder]:
        """The parked orders still waiting, and those paid or cancelled in the last hours."""
        return await self.station.journal.parked_orders(since=datetime.now(UTC) - SHOWN_FOR)

    async def check(self, parking: ParkedOrder) -> ParkedOrder:
        """Read the parking's link once; completes the order when it proves paid."""
        if parking.link_id is None:
            return parking
        link = await self.station.client.links.get(parking.link_id)
        return await self._settle(parking, link)

    async def _settle(self, parking: ParkedOrder, link: PaymentLink) -> ParkedOrder:
        if not link.is_paid:
            return parking
        if link.total_amount != parking.amount:
            money = self.station.money
            log.error("the link of order %s was paid %s of %s, not the %s asked: it stays waiting", parking.order_key,
                      money(link.paid_amount), money(link.total_amount), money(parking.amount))
            trouble = _("The link of order {order} was paid {paid} of {total}, not the {asked} asked: "
                        "it stays waiting; tell a manager.").format(
                order=parking.order_key, paid=money(link.paid_amount), total=money(link.total_amount),
                asked=money(parking.amount))
            self.station.events.publish(ParkedOrdersChanged(parking, trouble))
            return parking
        done = await self.station.journal.record_link_paid(
            parking, payment_id=link.payment_id, surcharge=link.surcharge or 0,
            detail=f"link {link.id} paid {link.paid_amount} of {link.total_amount} cents")  # not for people
        if done is None:  # completed already (seen before, or by another process)
            return await self.station.journal.parking(parking.parking_id)
        log.info("parked order %s paid by its link (payment %s)", done.order_key, done.payment_id)
        self.station.events.publish(LinkOrderPaid(done, paid_cart(done)))
        self.station.events.publish(ParkedOrdersChanged(done))
        return done

    async def receipt_given(self, parking: ParkedOrder) -> None:
        """The completed order's receipt was handed out (printed or shown)."""
        await self.station.journal.record_receipt(parking)

    async def after_restart(self) -> None:
        """At start: a parking the stopped app left before its link was sent ends (its cart
        is the lane's); an order completed whose receipt was never handed out gets it now."""
        for parking in await self.station.journal.parked_orders(since=datetime.now(UTC) - SHOWN_FOR):
            if parking.stage is ParkStage.PARKING:
                await self.station.journal.end_parking(parking, ParkStage.FAILED,
                                                       "the app stopped before the link was sent")  # not for people
            elif parking.stage is ParkStage.PAID:
                self.station.events.publish(LinkOrderPaid(parking, paid_cart(parking), restored=True))

    # cancelling ---------------------------------------------------------------------------

    async def cancel(self, parking: ParkedOrder) -> ParkedOrder:
        """Delete the parking's link; once the service confirmed, the order comes back to the
        (empty) lane. A link paid meanwhile completes the order instead (its parking back,
        paid). ``ValueError`` with a sentence when it cannot (the order stays parked)."""
        if not parking.waiting:
            raise ValueError(_("Order {order} is not waiting on its link any more ({stage}).").format(
                order=parking.order_key, stage=parking.stage))
        if not self.counter.cart.is_empty:
            raise ValueError(_("Finish or clear the sale on the screen first: the cancelled order comes back to the "
                               "lane."))
        client, journal = self.station.client, self.station.journal
        if parking.link_id is None:
            return await self._returned(parking, "no link had been made")  # not for people: the journal's
        refused: ApiError | None = None
        try:
            link = await client.links.get(parking.link_id)
            if link.is_paid:
                return await self._settle(parking, link)
            try:
                await client.links.delete(parking.link_id)
            except ApiError as error:  # answered: deleted already (elsewhere), or refused; read below which
                refused = error
            after = await client.links.get(parking.link_id)
        except PaymentsError as error:
            raise ValueError(_("The link could not be cancelled ({error}): it may still be paid, so the order stays "
                               "parked. Try again.").format(error=error)) from error
        if after.is_paid:
            return await self._settle(parking, after)
        if after.active:
            if refused is not None:
                raise ValueError(_("The service still shows the link as live (the service said: {error}): the order "
                                   "stays parked. Try again.").format(error=refused))
            raise ValueError(_("The service still shows the link as live: the order stays parked. Try again."))
        current = await journal.parking(parking.parking_id)
        if not current.waiting:  # another process moved it meanwhile
            return current
        return await self._returned(current, "cancelled at the counter: the link was deleted")  # not for people

    async def _returned(self, parking: ParkedOrder, detail: str) -> ParkedOrder:
        returned = await self.station.journal.end_parking(parking, ParkStage.RETURNED, detail)
        if self.counter.cart.is_empty:
            await self.counter.resume_order(decode(parking.cart.encode()))
        self.station.events.publish(ParkedOrdersChanged(returned))
        return returned

    # training -----------------------------------------------------------------------------

    async def pay_in_training(self, parking: ParkedOrder) -> ParkedOrder:
        """Training only: the sandbox's customer pays the link, then it is read at once."""
        import httpx

        if not self.station.training or parking.link_id is None:
            raise ValueError(_("Only a training link can be paid from the counter."))
        url = f"{self.station.config.base_url.rstrip('/')}/_sandbox/payment-link/{parking.link_id}/pay"
        try:
            async with httpx.AsyncClient(timeout=10) as http:
                answer = await http.post(url)
        except httpx.HTTPError as error:
            raise ValueError(_("The training sandbox did not answer ({error}).").format(error=error)) from error
        if answer.status_code != 200:
            raise ValueError(_("The training sandbox refused to pay it: {answer}").format(answer=answer.text[:200]))
        return await self.check(parking)


def _made_since(link: PaymentLink, since: datetime) -> bool:
    if link.created_at is None:
        return False
    try:
        made = datetime.fromisoformat(link.created_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    return made.tzinfo is not None and made >= since
