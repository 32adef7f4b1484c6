"""The payment link routes, both versions (reference 4.6 and 4.9, state in 3.4), over a
merchant's ``LinkStore`` (``pos_app.sandbox.link_store``), and the sandbox action that
pays a link.

Money on the wire, as the reference's table 2.1 gives it, written out here on purpose
rather than read from the client's unit table (so the client's table is tested against
the reference, not against itself):

- dated (202104) create and list answer cents; the view answers dollars (12.5);
- deprecated create takes whole dollars and answers dollars; its list and view dollars;
- delete (both) answers the raw payment-request document, its amount and tax in dollars.

A link's ``taxes`` in answers is what its chosen taxes come to (each of the merchant's
taxes of ``GET /public/tax`` on the amount, rounded half-up per tax); the deprecated
routes name the chosen ones in ``selectedTaxes``. ``totalAmount`` is amount plus taxes;
a link is paid when ``paidAmount`` reaches it, and then ``paymentId`` names the payment.
A delete is soft: the link leaves the lists, its view answers ``active`` false, it can
be neither sent nor paid, and a second delete is refused.

Sandbox action (not a service route, no key needed):

    POST /_sandbox/payment-link/{id}/pay  {amount?}: the link's customer pays ``amount`` cents
        (default: what is left of the total) by card: a payment is recorded (as the
        gateway records a card sale, on the merchant's first terminal), ``paidAmount``
        grows by it, ``paymentId`` names it, its surcharge adds to the link's. Answers
        {"data": <the link, in cents>, "payment": {id, amount, surcharge}}.

Links sent by email or SMS are recorded (``link_store.sent_links``), as is each upload.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from pos_app.api.money import percent_of
from pos_app.sandbox.link_store import Channel, Link, LinkStore, SentLink, store_of
from pos_app.sandbox.merchants import CUSTOM_VALUE_KEYS
from pos_app.sandbox.protocol import Call, Reply, StatusFailure, invalid, iso_time, not_found, refused
from pos_app.sandbox.records import Sale
from pos_app.sandbox.validation import Fields, page_meta, page_query, page_slice

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Handler, Sandbox

OBJECT_ID = re.compile(r"^[0-9a-fA-F]{24}$")
LINK_HOST = "https://pay.sandbox.invalid/link/"
OPTIONS = ("showBilling", "showShipping", "applyDiscount")

Money = Callable[[int], int | Decimal]


def cents(amount: int) -> int:
    return amount


def dollars(amount: int) -> Decimal:
    """Cents as the service writes dollars: 1250 → 12.5, 1200 → 12 (exact, no float)."""
    return Decimal(amount) / 100


# ---------------------------------------------------------------- shapes


def link_json(link: Link, money: Money, *, deprecated: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": link.id,
        "url": link.url,
        "amount": money(link.amount),
        "taxes": money(link.tax),
        "totalAmount": money(link.total),
        "paidAmount": money(link.paid),
        "surcharge": money(link.surcharge),
        "active": link.active,
        "createdAt": iso_time(link.created_at),
        **link.options,
        "customValues": link.custom_values,
        "attachments": link.attachments,
    }
    if deprecated:
        body["selectedTaxes"] = list(link.tax_ids)
    if link.payment_id is not None:
        body["paymentId"] = link.payment_id
    if link.deleted_at is not None:
        body["deletedAt"] = iso_time(link.deleted_at)
    return body


def _request_document(book: Book, link: Link) -> dict[str, Any]:
    """The payment-request document behind a link, as a delete answers it (dollars)."""
    assert link.deleted_at is not None
    return {"_id": link.id, "clientId": book.merchant.client_id, "type": "payment-link",
            "amount": dollars(link.amount), "tax": dollars(link.tax),
            "order": {"taxes": list(link.tax_ids), "customValues": link.custom_values},
            "attachments": link.attachments, "active": False, "deletedAt": iso_time(link.deleted_at),
            "createdAt": iso_time(link.created_at)}


# ---------------------------------------------------------------- reading requests


def _link(book: Book, call: Call) -> Link:
    link_id = call.params["id"]
    if not OBJECT_ID.fullmatch(link_id):
        raise StatusFailure(400, "Invalid id")
    link = store_of(book).links.get(link_id)
    if link is None:
        raise not_found(f"Payment link with id: {link_id} not found")
    return link


def _amount(f: Fields, *, whole_dollars: bool) -> int | None:
    if not whole_dollars:
        return f.cents("amount")
    value = f.body.get("amount")
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        f.fail("amount must be a positive integer (whole dollars)")
        return None
    return value * 100


def _tax(book: Book, tax_ids: list[str], amount: int) -> int:
    rates = {t.get("id"): t.get("rate") for t in book.taxes}
    total = 0
    for tax_id in tax_ids:
        try:
            rate = Decimal(str(rates[tax_id]))
            if not rate.is_finite():
                raise InvalidOperation
            total += percent_of(amount, rate)
        except (InvalidOperation, ValueError):
            raise refused(f"tax {tax_id} has no usable rate") from None
    return total


def _custom_values(f: Fields) -> list[dict[str, Any]]:
    entries = f.array("customValues", required=False) or []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("key", "label", "value")):
            f.fail(f"customValues.{index} must be an object {{key, label, value}} of strings")
        elif entry["key"] not in CUSTOM_VALUE_KEYS:
            f.fail(f"customValues.{index}.key {entry['key']!r} is not configured for this merchant")
    return entries


def _attachments(f: Fields, store: LinkStore) -> list[dict[str, Any]]:
    entries = f.array("attachments", required=False) or []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("path") not in store.files:
            f.fail(f"attachments.{index} must be a file object answered by the upload route")
    return entries


# ---------------------------------------------------------------- handlers


def _create(*, deprecated: bool, money: Money) -> Handler:
    def handler(sandbox: Sandbox, book: Book, call: Call) -> Reply:
        body = call.json_object()
        f = Fields(body)
        store = store_of(book)
        amount = _amount(f, whole_dollars=deprecated)
        known = {t["id"] for t in book.taxes if isinstance(t.get("id"), str)}
        tax_ids = f.ids("taxes", known, what="tax")
        options = {name: f.boolean(name, required=False) for name in OPTIONS}
        custom_values = _custom_values(f)
        attachments = _attachments(f, store)
        f.check()
        assert amount is not None
        link_id = sandbox.new_id()
        link = Link(id=link_id, url=LINK_HOST + link_id, amount=amount, tax_ids=tuple(tax_ids),
                    tax=_tax(book, tax_ids, amount), created_at=sandbox.clock(),
                    options={k: v for k, v in options.items() if v is not None},
                    custom_values=custom_values, attachments=attachments)
        store.links[link.id] = link
        return Reply(201, {"data": link_json(link, money, deprecated=deprecated)})

    return handler


def _list(*, deprecated: bool, money: Money) -> Handler:
    def handler(sandbox: Sandbox, book: Book, call: Call) -> Reply:
        page, limit = page_query(call.query)
        rows = sorted((link for link in store_of(book).links.values() if link.active),
                      key=lambda link: (link.created_at, link.id), reverse=True)
        return Reply(200, {"meta": page_meta(len(rows), page, limit),
                           "data": [link_json(link, money, deprecated=deprecated)
                                    for link in page_slice(rows, page, limit)]})

    return handler


def _get(*, deprecated: bool) -> Handler:
    def handler(sandbox: Sandbox, book: Book, call: Call) -> Reply:
        return Reply(200, {"data": link_json(_link(book, call), dollars, deprecated=deprecated)})

    return handler


def _delete(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    link = _link(book, call)
    if not link.active:
        raise refused(f"Payment link with id: {link.id} is already deleted")
    link.deleted_at = sandbox.clock()
    return Reply(200, {"data": _request_document(book, link)})


def _send(channel: Channel) -> Handler:
    field = "email" if channel is Channel.EMAIL else "phoneNumber"

    def handler(sandbox: Sandbox, book: Book, call: Call) -> Reply:
        f = Fields(call.json_object())
        to = f.email(field) if channel is Channel.EMAIL else f.phone(field)
        if f.body.get(field) is None:
            f.fail(f"{field} should not be empty")
        link_id = f.text("paymentLinkId")
        f.check()
        assert to is not None and link_id is not None
        link = store_of(book).links.get(link_id)
        if link is None:
            raise not_found(f"Payment link with id: {link_id} not found")
        if not link.active:
            raise refused(f"Payment link with id: {link_id} is not active")
        store_of(book).sent.append(SentLink(link_id=link.id, channel=channel, to=to, url=link.url,
                                            at=sandbox.clock()))
        return Reply(201, {"success": True, "message": f"Payment link sent by {channel} to {to}"})

    return handler


# ---------------------------------------------------------------- the sandbox action


def pay_link(sandbox: Sandbox, call: Call) -> dict[str, Any]:
    """``POST /_sandbox/payment-link/{id}/pay``: the link's customer pays (see the module
    docstring); an empty body pays the rest."""
    f = Fields(call.json_object() if call.body.strip() else {})
    link_id = call.params["id"]
    amount = f.body.get("amount")
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0):
        f.fail("amount must be a positive integer (cents)")
    f.check()
    found = [(book, store_of(book).links[link_id]) for book in sandbox.books.values()
             if link_id in store_of(book).links]
    if not found:
        raise not_found(f"Payment link with id: {link_id} not found")
    book, link = found[0]
    left = link.total - link.paid
    if not link.active:
        raise refused(f"Payment link with id: {link.id} is not active")
    if left <= 0:
        raise refused(f"Payment link with id: {link.id} is already paid")
    paying = left if amount is None else amount
    if paying > left:
        raise invalid([f"amount must not be greater than {left} (what is left to pay)"])
    sale = Sale(kind="sale", terminal=book.merchant.terminals[0], amount=paying, receipt=False,
                user_agent=f"payment link {link.id}")
    payment = sandbox.record_payment(book, sale, declined=False, at=sandbox.clock(), mono=sandbox.now)
    link.paid += paying
    link.surcharge += payment.surcharge
    link.payment_id = payment.id
    return {"data": link_json(link, cents, deprecated=False),
            "payment": {"id": payment.id, "amount": payment.amount, "surcharge": payment.surcharge}}


HANDLERS: dict[str, Handler] = {
    "link.list": _list(deprecated=False, money=cents),
    "link.create": _create(deprecated=False, money=cents),
    "link.get": _get(deprecated=False),
    "link.delete": _delete,
    "link.send_email": _send(Channel.EMAIL),
    "link.send_sms": _send(Channel.SMS),
    "old_link.list": _list(deprecated=True, money=dollars),
    "old_link.create": _create(deprecated=True, money=dollars),
    "old_link.get": _get(deprecated=True),
    "old_link.delete": _delete,
    "old_link.send_email": _send(Channel.EMAIL),
    "old_link.send_sms": _send(Channel.SMS),
}
