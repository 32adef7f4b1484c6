"""Payment links, both versions (reference 4.6 and 4.9): the request bodies (strict), the
answers (lenient) and the answer parsers of the ``link.*`` and ``old_link.*`` routes. The
methods are in ``pos_app.api.links``.

Money is cents in every model, whatever the route spoke; the parsers convert at the edge
through ``pos_app.api.units``, whose table holds the traps: the dated create and list
answer cents, every view answers **dollars** (12.5), the deprecated list dollars, the
deprecated create takes **whole dollars** (1250 cents is refused, never rounded) and
answers dollars, and the delete answers the raw payment-request document in dollars. An
amount that is no amount of its route's unit (12.5 where cents are due) is a protocol
error for a single link and leaves a listed link out of its page (named in ``refused``).

Checked before anything is sent: link and tax ids are 24-hex object ids (the service's
documents), a tax is named once, an SMS goes to a phone matching the reference's US
pattern, an email to an email address.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import Field, field_validator

from pos_app.api.attachments import Attachment
from pos_app.api.errors import InvalidInput
from pos_app.api.models import Cents, Flag, Lenient, Page, Refused, Text, unwrap
from pos_app.api.money import require_cents, require_phone
from pos_app.api.requests import CustomValue, Request
from pos_app.api.units import from_wire, request_unit, response_unit, to_wire
from pos_app.i18n import _

OBJECT_ID = re.compile(r"^[0-9a-fA-F]{24}$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
MONEY_FIELDS = ("amount", "taxes", "totalAmount", "paidAmount", "surcharge")
"""The money of a link answer; ``taxes`` is the computed tax amount there (a list of
tax ids only in requests)."""


def require_link_id(value: object) -> str:
    """A payment link id: a 24-hex object id, or ``InvalidInput`` (nothing sent)."""
    if not isinstance(value, str) or not OBJECT_ID.fullmatch(value):
        raise InvalidInput(_("payment link id must be a 24-character hexadecimal id, got {value!r}").format(
            value=value))
    return value


def require_email(value: object) -> str:
    if not isinstance(value, str) or not EMAIL.fullmatch(value):
        raise InvalidInput(_("email must be an email address such as ana@example.com, got {value!r}").format(
            value=value))
    return value


# ---------------------------------------------------------------- requests (strict)


class LinkDraft(Request):
    """A new payment link: ``amount`` in cents (the deprecated create sends it in whole
    dollars), ``taxes`` the merchant's tax ids (sent as ``[]`` when none)."""

    amount: int
    taxes: tuple[str, ...] = ()
    show_billing: Flag | None = Field(default=None, alias="showBilling")
    show_shipping: Flag | None = Field(default=None, alias="showShipping")
    custom_values: tuple[CustomValue, ...] | None = Field(default=None, alias="customValues")
    attachments: tuple[Attachment, ...] | None = None
    apply_discount: Flag | None = Field(default=None, alias="applyDiscount")

    @field_validator("amount", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> int:
        try:
            return require_cents(value)
        except InvalidInput as error:
            raise ValueError(str(error)) from None

    @field_validator("taxes", mode="before")
    @classmethod
    def _taxes(cls, value: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            raise ValueError(_("taxes must be a list of the merchant's tax ids ([] when none)"))
        for tax_id in value:
            if not isinstance(tax_id, str) or not OBJECT_ID.fullmatch(tax_id):
                raise ValueError(_("tax id {tax_id!r} is not a 24-character hexadecimal id").format(tax_id=tax_id))
        if len(set(value)) != len(value):
            raise ValueError(_("a tax is named twice"))
        return tuple(value)

    def wire_for(self, route_name: str) -> dict[str, Any]:
        """The body of ``route_name`` (``link.create`` or ``old_link.create``): the amount in
        that route's unit; ``InvalidInput`` when it cannot take this amount (12.50 in whole
        dollars)."""
        body = self.wire()
        body["taxes"] = list(self.taxes)
        body["amount"] = to_wire(self.amount, request_unit(route_name))
        return body


# ---------------------------------------------------------------- answers (lenient)


class PaymentLink(Lenient):
    """A payment link, its money in cents. Paid when ``paid_amount`` reaches
    ``total_amount``; ``payment_id`` (once paid) names the payment."""

    id: Text
    url: Text | None = None
    amount: Cents
    taxes: Cents | None = None  # the computed tax amount
    total_amount: Cents = Field(alias="totalAmount")
    paid_amount: Cents = Field(alias="paidAmount")
    surcharge: Cents | None = None
    active: Flag | None = None
    payment_id: Text | None = Field(default=None, alias="paymentId")
    selected_taxes: list[Text] | None = Field(default=None, alias="selectedTaxes")  # deprecated routes
    created_at: Text | None = Field(default=None, alias="createdAt")
    deleted_at: Text | None = Field(default=None, alias="deletedAt")

    @property
    def is_paid(self) -> bool:
        return self.paid_amount >= self.total_amount


class DeletedLink(Lenient):
    """What a delete answers: the raw payment-request document (``active`` false,
    ``deleted_at`` set), not the link's public shape; its money in cents."""

    id: Text
    active: Flag | None = None
    deleted_at: Text | None = Field(default=None, alias="deletedAt")
    amount: Cents | None = None
    tax: Cents | None = None


class LinkSent(Lenient):
    """A send's answer: the link was queued for delivery (not proof it was delivered).
    ``success`` false means nothing was sent."""

    success: Flag | None = None
    message: Text | None = None


def _in_cents(entry: Any, route_name: str, fields: tuple[str, ...]) -> Any:
    """``entry`` with its money ``fields`` converted to cents from the route's unit;
    ``ValueError`` when one is no amount of that unit. A ``taxes`` list (ids) is left as is."""
    if not isinstance(entry, dict):
        return entry
    unit = response_unit(route_name)
    converted = dict(entry)
    for field in fields:
        value = entry.get(field)
        if value is None or (field == "taxes" and isinstance(value, list)):
            continue
        try:
            converted[field] = from_wire(value, unit, field=field)
        except InvalidInput as error:
            raise ValueError(_("{error} ({route} answers {unit})").format(
                error=error, route=route_name, unit=unit)) from None
    return converted


def link_parsers(route_name: str) -> tuple[Callable[[Any], PaymentLink], Callable[[Any], Page[PaymentLink]]]:
    """The parsers of one link and of a page of links, for ``route_name``'s money unit."""

    def parse_one(body: Any) -> PaymentLink:
        return PaymentLink.model_validate(_in_cents(unwrap(body), route_name, MONEY_FIELDS))

    def parse_page(body: Any) -> Page[PaymentLink]:
        """A link that cannot be read (its money not of the route's unit, no id) is left
        out of ``data`` and named in ``refused``: one bad link never costs the page."""
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            raise ValueError(_("payment link list must be {meta, data}"))
        links: list[PaymentLink] = []
        refused: list[Refused] = []
        for entry in body["data"]:
            try:
                links.append(parse_one(entry))
            except ValueError as error:  # pydantic's ValidationError is one too
                entry_id = entry.get("id") if isinstance(entry, dict) else None
                refused.append(Refused(id=entry_id if isinstance(entry_id, str) else None, reason=str(error)))
        return Page[PaymentLink].model_validate(
            {**body, "data": links, "skipped": len(refused), "refused": refused})

    return parse_one, parse_page


def deleted_parser(route_name: str) -> Callable[[Any], DeletedLink]:
    def parse(body: Any) -> DeletedLink:
        document = unwrap(body)
        if isinstance(document, dict) and "id" not in document and "_id" in document:
            document = {**document, "id": document["_id"]}
        return DeletedLink.model_validate(_in_cents(document, route_name, ("amount", "tax")))

    return parse


def parse_sent(body: Any) -> LinkSent:
    return LinkSent.model_validate(unwrap(body))


def require_phone_number(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInput(_("phone must be a text, got {value!r}").format(value=value))
    return require_phone(value)


PARSERS: dict[str, Callable[[Any], object]] = {}
for _version in ("link", "old_link"):
    PARSERS[f"{_version}.list"] = link_parsers(f"{_version}.list")[1]
    PARSERS[f"{_version}.create"] = link_parsers(f"{_version}.create")[0]
    PARSERS[f"{_version}.get"] = link_parsers(f"{_version}.get")[0]
    PARSERS[f"{_version}.delete"] = deleted_parser(f"{_version}.delete")
    PARSERS[f"{_version}.send_email"] = parse_sent
    PARSERS[f"{_version}.send_sms"] = parse_sent
