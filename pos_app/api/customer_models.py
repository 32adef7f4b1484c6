"""Customer vaults (reference 4.4): the answers (lenient), the request bodies (strict) and
the answer parsers of the ``customer.*`` routes. The methods are in
``pos_app.api.customers``.

Checked before anything is sent, as the reference states them: vault ids are 24-hex
object ids; a card's masked number matches ``^[0-9]{6}([0-9]{2})?[*.]+[0-9]{4}$``; its
``exp`` is MMYY and not in the past; a phone matches the US pattern; a ZIP code is US (5 or
5+4 digits) or Canadian. A vault carries no money (``pos_app.api.units``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from pos_app.api.errors import InvalidInput
from pos_app.api.models import Flag, Lenient, Page, Refused, Text, unwrap
from pos_app.api.money import require_phone
from pos_app.api.requests import Request
from pos_app.i18n import N_, _

VAULT_ID = re.compile(r"^[0-9a-fA-F]{24}$")
CARD_NUMBER = re.compile(r"^[0-9]{6}([0-9]{2})?[*.]+[0-9]{4}$")
EXP = re.compile(r"^[0-9]{4}$")
ZIP_CODE = re.compile(r"^([0-9]{5}(-?[0-9]{4})?|[A-Za-z][0-9][A-Za-z] ?[0-9][A-Za-z][0-9])$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def require_vault_id(value: object, *, field: str = N_("customer id")) -> str:
    """A customer vault id: 24 hexadecimal characters, or ``InvalidInput`` (nothing sent)."""
    if not isinstance(value, str) or not VAULT_ID.fullmatch(value):
        raise InvalidInput(_("{field} must be a 24-character hexadecimal id, got {value!r}").format(
            field=_(field), value=value))
    return value


def require_method_id(value: object) -> str:
    """A payment method's ``customerVaultId`` (the processor's id): any non-empty text."""
    if not isinstance(value, str) or not value.strip() or "/" in value:
        raise InvalidInput(_("customerVaultId must be a non-empty id, got {value!r}").format(value=value))
    return value


def check_exp(value: str, *, today: date | None = None) -> str:
    """``exp`` as MMYY (``0429``), a real month, not in the past."""
    if not EXP.fullmatch(value):
        raise ValueError(_("exp must be four digits MMYY such as 0429, got {value!r}").format(value=value))
    month, year = int(value[:2]), 2000 + int(value[2:])
    if not 1 <= month <= 12:
        raise ValueError(_("exp {value!r} has no month {month}: MMYY").format(value=value, month=f"{month:02d}"))
    now = today or date.today()
    if (year, month) < (now.year, now.month):
        raise ValueError(_("exp {value} is in the past: the card has expired").format(value=value))
    return value


def _card_number(value: str) -> str:
    if not CARD_NUMBER.fullmatch(value):
        raise ValueError(_("number must be the masked card number: the first 6 (or 8) digits, * or ., the last 4 "
                           "(411111******1111), got {value!r}").format(value=value))
    return value


def check_phone(value: str | None) -> str | None:
    """A phone of the reference's US pattern (or None), else ``ValueError`` for a body validator."""
    if value is None:
        return None
    try:
        return require_phone(value)
    except InvalidInput as error:
        raise ValueError(str(error)) from None


def _text(value: object, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(_("{field} must not be empty (the service drops empty values: a field cannot be "
                           "cleared)").format(field=field))
    return value.strip()


# ---------------------------------------------------------------- requests (strict)


class VaultAddress(Request):
    country: Literal["US", "CA"] | None = None
    address: str | None = None
    address2: str | None = None
    city: str | None = None
    state: str | None = None
    zip_code: str | None = Field(default=None, alias="zipCode")

    @field_validator("zip_code")
    @classmethod
    def _zip(cls, value: str | None) -> str | None:
        if value is not None and not ZIP_CODE.fullmatch(value):
            raise ValueError(_("zipCode must be a US (12345, 12345-6789) or Canadian (K1A 0B1) code, "
                               "got {value!r}").format(value=value))
        return value


class VaultCard(Request):
    """A card to add to a vault, or to replace one with (reference: "vault card record").
    ``payment_token`` is the single-use token of the tokenization form; ``number`` the masked
    number it gave. ``last4`` and ``network`` are derived by the service, never sent."""

    number: str
    payment_token: str = Field(alias="paymentToken", min_length=1)
    exp: str | None = None
    name: str | None = None
    zip_code: str | None = Field(default=None, alias="zipCode")
    billing_address: VaultAddress | None = Field(default=None, alias="billingAddress")

    @field_validator("number")
    @classmethod
    def _number(cls, value: str) -> str:
        return _card_number(value)

    @field_validator("exp")
    @classmethod
    def _exp(cls, value: str | None) -> str | None:
        return None if value is None else check_exp(value)

    @field_validator("zip_code")
    @classmethod
    def _zip(cls, value: str | None) -> str | None:
        return VaultAddress._zip(value)


class NewCustomerCard(Request):
    """A card in the ``cards`` of a vault create: ``number`` and ``exp`` required, the
    token optional. The first card becomes the default."""

    number: str
    exp: str
    payment_token: str | None = Field(default=None, alias="paymentToken")
    name: str | None = None
    zip_code: str | None = Field(default=None, alias="zipCode")

    @field_validator("number")
    @classmethod
    def _number(cls, value: str) -> str:
        return _card_number(value)
    @field_validator("exp")
    @classmethod
    def _exp(cls, value: str) -> str:
        return check_exp(value)

    @field_validator("zip_code")
    @classmethod
    def _zip(cls, value: str | None) -> str | None:
        return VaultAddress._zip(value)


class _CustomerFields(Request):
    phone_number: str | None = Field(default=None, alias="phoneNumber")
    company_name: str | None = Field(default=None, alias="companyName")
    zip_code: str | None = Field(default=None, alias="zipCode")
    external_id: str | None = Field(default=None, alias="externalId")
    gender: Literal["Male", "Female", "Unknown"] | None = None
    date_of_birth: str | None = Field(default=None, alias="dateOfBirth")
    billing_address: VaultAddress | None = Field(default=None, alias="billingAddress")
    shipping_address: VaultAddress | None = Field(default=None, alias="shippingAddress")

    @field_validator("phone_number")
    @classmethod
    def _phone(cls, value: str | None) -> str | None:
        return check_phone(value)

    @field_validator("company_name", "external_id", "date_of_birth")
    @classmethod
    def _not_empty(cls, value: str | None) -> str | None:
        return None if value is None else _text(value, _("the value"))

    @field_validator("zip_code")
    @classmethod
    def _zip(cls, value: str | None) -> str | None:
        return VaultAddress._zip(value)


def check_email(value: str) -> str:
    """An email address (trimmed), or ``ValueError`` for a body validator."""
    if not EMAIL.fullmatch(value.strip()):
        raise ValueError(_("email must be an email address, got {value!r}").format(value=value))
    return value.strip()


class CustomerDraft(_CustomerFields):
    """A new customer vault: first and last name and email required."""

    first_name: str = Field(alias="firstName")
    last_name: str = Field(alias="lastName")
    email: str
    cards: list[NewCustomerCard] | None = None

    @field_validator("first_name", "last_name")
    @classmethod
    def _names(cls, value: str) -> str:
        return _text(value, _("the name"))

    @field_validator("email")
    @classmethod
    def _mail(cls, value: str) -> str:
        return check_email(value)


class CustomerChanges(_CustomerFields):
    """A partial update: only the fields given are sent. An empty value is refused (the
    service would drop it, so nothing can be cleared); ``cards`` are appended as new methods,
    each with a fresh token (use the card operations to replace or remove one)."""

    first_name: str | None = Field(default=None, alias="firstName")
    last_name: str | None = Field(default=None, alias="lastName")
    email: str | None = None
    cards: list[VaultCard] | None = None

    @field_validator("first_name", "last_name")
    @classmethod
    def _names(cls, value: str | None) -> str | None:
        return None if value is None else _text(value, _("the name"))

    @field_validator("email")
    @classmethod
    def _mail(cls, value: str | None) -> str | None:
        return None if value is None else check_email(value)


# ---------------------------------------------------------------- answers (lenient)


class PaymentMethod(Lenient):
    """A stored card or ACH account; ``customer_vault_id`` is its id in the processor."""

    customer_vault_id: str = Field(alias="customerVaultId")
    type: Text | None = None  # credit | debit | ach
    last4: Text | None = None
    exp: Text | None = None
    network: Text | None = None
    brand: Text | None = None
    number: Text | None = None
    name: Text | None = None
    default: Flag | None = None
    account_type: Text | None = Field(default=None, alias="accountType")  # ACH accounts only
    routing_number: Text | None = Field(default=None, alias="routingNumber")  # ACH accounts only

    @property
    def is_card(self) -> bool:
        return self.type != "ach"


class Customer(Lenient):
    """A customer vault as the service reports it (``deleted_at`` set after a soft delete)."""

    id: str
    first_name: Text | None = Field(default=None, alias="firstName")
    last_name: Text | None = Field(default=None, alias="lastName")
    email: Text | None = None
    phone_number: Text | None = Field(default=None, alias="phoneNumber")
    company_name: Text | None = Field(default=None, alias="companyName")
    external_id: Text | None = Field(default=None, alias="externalId")
    payment_method: PaymentMethod | None = Field(default=None, alias="paymentMethod")
    payment_methods: list[PaymentMethod] = Field(default_factory=list, alias="paymentMethods")
    deleted_at: Text | None = Field(default=None, alias="deletedAt")
    updated_at: Text | None = Field(default=None, alias="updatedAt")

    @property
    def name(self) -> str:
        return " ".join(part for part in (self.first_name, self.last_name) if part)

    @property
    def default_method(self) -> PaymentMethod | None:
        """``paymentMethod``, else the entry of ``paymentMethods`` flagged default."""
        if self.payment_method is not None:
            return self.payment_method
        return next((m for m in self.payment_methods if m.default is True), None)

    @property
    def default_card(self) -> PaymentMethod | None:
        """The default method when it is a card (None when it is an ACH account, or none)."""
        method = self.default_method
        return method if method is not None and method.is_card else None


def parse_customer(body: Any) -> Customer:
    return Customer.model_validate(unwrap(body))


def parse_method(body: Any) -> PaymentMethod:
    return PaymentMethod.model_validate(unwrap(body))


def parse_customer_page(body: Any) -> Page[Customer]:
    """The vault list; an entry that is no customer is left out and named in ``refused``."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise ValueError(_("customer list must be {meta, data}"))
    customers: list[Customer] = []
    refused: list[Refused] = []
    for entry in body["data"]:
        try:
            customers.append(Customer.model_validate(entry))
        except ValidationError as error:
            entry_id = entry.get("id") if isinstance(entry, dict) else None
            refused.append(Refused(id=entry_id if isinstance(entry_id, str) else None,
                                   reason=str(error.errors()[0]["msg"])))
    return Page[Customer].model_validate(
        {**body, "data": customers, "skipped": len(refused), "refused": refused})


PARSERS: dict[str, Callable[[Any], object]] = {
    "customer.list": parse_customer_page,
    "customer.create": parse_customer,
    "customer.get": parse_customer,
    "customer.update": parse_customer,
    "customer.delete": parse_customer,
    "customer.card_add": parse_method,
    "customer.card_update": parse_method,
    "customer.card_delete": parse_customer,
    "customer.card_default": parse_customer,
    "customer.ach_default": parse_customer,
}
"""The typed answers of the vault and card routes (the ACH, CSV, link and bulk routes are
in ``pos_app.api.vault_models.PARSERS``)."""
