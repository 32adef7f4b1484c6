"""Card payments, bulk charge and ACH payments (reference 4.2 and 4.3): the request bodies
(strict) and the answers (lenient) of the ``card.*`` and ``ach.*`` routes, and their parsers.
The methods are in ``pos_app.api.card_payments`` and ``pos_app.api.ach``.

Checked before anything is sent, as the reference states them: amounts are positive whole
cents (the money table of ``pos_app.api.units``: cents both ways on these routes, converted
at ``wire``); a customer id is a 24-hex object id; a charged card's masked number matches
``^[0-9]{6}[*.]+[0-9]{4}$``; a charge names a card or a customer (901), a token charge
without ``card.vaultId`` carries the masked number (905); a void's reason is one of the
reference's; ``achData.last4`` is four digits; phones match the US pattern. None of the
answers is read as more than it says: whether money moved is ``pos_app.terminal``'s call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Literal, Self

from pydantic import Field, field_validator, model_validator

from pos_app.api.customer_models import require_method_id, require_vault_id
from pos_app.api.errors import InvalidInput
from pos_app.api.models import Answer, CardInfo, Cents, Flag, Lenient, Page, Text, unwrap
from pos_app.api.money import require_cents, require_phone
from pos_app.api.requests import CustomValue, Request
from pos_app.api.units import from_wire, request_unit, response_unit, to_wire
from pos_app.api.vault_models import check_account_number, check_routing_number
from pos_app.i18n import _

CHARGED_CARD_NUMBER = re.compile(r"^[0-9]{6}[*.]+[0-9]{4}$")
LAST4 = re.compile(r"^[0-9]{4}$")
CURRENCIES = ("USD", "CAD")


class VoidReason(StrEnum):
    """The reasons a void may give (reference 4.3)."""

    FRAUD = "fraud"
    USER_CANCEL = "user_cancel"
    ICC_REJECTED = "icc_rejected"
    ICC_CARD_REMOVED = "icc_card_removed"
    ICC_NO_CONFIRMATION = "icc_no_confirmation"
    POS_TIMEOUT = "pos_timeout"
    REJECTED = "rejected"
    INSUFFICIENT_FUNDS = "insufficient_funds"
    INCORRECT_INFORMATION = "incorrect_information"
    POP_TIMEOUT = "pop_timeout"


def void_reason(value: str) -> VoidReason:
    """``value`` as a ``VoidReason``, or ``InvalidInput`` listing the reasons (nothing sent)."""
    try:
        return VoidReason(value)
    except ValueError:
        raise InvalidInput(_("a void's reason must be one of {reasons}, got {value!r}").format(
            reasons=", ".join(VoidReason), value=value)) from None


class AchAccountType(StrEnum):
    BUSINESS_CHECKING = "businessChecking"
    BUSINESS_SAVINGS = "businessSavings"
    PERSONAL_CHECKING = "personalChecking"
    PERSONAL_SAVINGS = "personalSavings"


def _cents(value: Any, field: str) -> int:
    try:
        return require_cents(value, field=field)
    except InvalidInput as error:
        raise ValueError(str(error)) from None


def _phone(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return require_phone(value)
    except InvalidInput as error:
        raise ValueError(str(error)) from None


def _vault(value: str | None, field: str) -> str | None:
    if value is None:
        return None
    try:
        return require_vault_id(value, field=field)
    except InvalidInput as error:
        raise ValueError(str(error)) from None


def _method(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return require_method_id(value)
    except InvalidInput as error:
        raise ValueError(str(error)) from None


def _money_out(body: dict[str, Any], route: str, *fields: str) -> dict[str, Any]:
    """The body with its money fields in the unit ``route`` takes (``pos_app.api.units``)."""
    unit = request_unit(route)
    return {**body, **{name: to_wire(body[name], unit, field=name) for name in fields if name in body}}


# ---------------------------------------------------------------- requests (strict)


class ChargeOrder(Request):
    """The order of a charge: metadata only. ``externalId`` is the caller's own id, stored on
    the payment and searchable: the app puts the attempt id there."""

    order_id: str | None = Field(default=None, alias="orderId")
    order_description: str | None = Field(default=None, alias="orderDescription")
    po_number: str | None = Field(default=None, alias="poNumber")
    external_id: str | None = Field(default=None, alias="externalId")
    custom_values: list[CustomValue] | None = Field(default=None, alias="customValues")


class ChargeCard(Request):
    """A card to charge: a stored one (``vaultId``), or a single-use token with the masked number."""

    name: str | None = None
    payment_token: str | None = Field(default=None, alias="paymentToken")
    vault_id: str | None = Field(default=None, alias="vaultId")
    number: str | None = None
    zip_code: str | None = Field(default=None, alias="zipCode")

    @field_validator("number")
    @classmethod
    def _number(cls, value: str | None) -> str | None:
        if value is not None and not CHARGED_CARD_NUMBER.fullmatch(value):
            raise ValueError(_("number must be the masked card number: the first 6 digits, * or ., the last 4 "
                               "(411111******1111), got {value!r}").format(value=value))
        return value

    @model_validator(mode="after")
    def _names_a_card(self) -> Self:
        if not (self.vault_id or self.payment_token):
            raise ValueError(_("a card needs vaultId or paymentToken (code 902)"))
        if self.payment_token and not self.vault_id and not self.number:
            raise ValueError(_("a token charge without vaultId needs the masked card number too (code 905)"))
        return self


class _Charge(Request):
    """What a card and an ACH charge share: the amount in cents, the customer whose stored
    method pays (``overrideDefaultPaymentMethod``: not its default), the currency, the order."""

    amount: int
    customer_id: str | None = Field(default=None, alias="customerId")
    override_default_payment_method: str | None = Field(default=None, alias="overrideDefaultPaymentMethod")
    currency: Literal["USD", "CAD"] | None = None
    send_receipt: bool | None = Field(default=None, alias="sendReceipt")
    order: ChargeOrder | None = None

    @field_validator("amount", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> int:
        return _cents(value, "amount")

    @field_validator("customer_id")
    @classmethod
    def _customer(cls, value: str | None) -> str | None:
        return _vault(value, "customerId")

    @field_validator("override_default_payment_method")
    @classmethod
    def _override(cls, value: str | None) -> str | None:
        return _method(value)

    @model_validator(mode="after")
    def _override_needs_its_customer(self) -> Self:
        if self.override_default_payment_method and self.customer_id is None:
            raise ValueError(_("overrideDefaultPaymentMethod picks a method of a customer: give customerId too"))
        return self

    def with_external_id(self, external_id: str) -> Self:
        """The same charge naming ``external_id`` as its order's ``externalId``."""
        order = self.order or ChargeOrder()
        return self.model_copy(update={"order": order.model_copy(update={"external_id": external_id})})


class CardCharge(_Charge):
    """Charge ``amount`` base cents (the service adds the surcharge) to a card, or to a
    customer's card on file: ``customerId`` (its default method, or
    ``overrideDefaultPaymentMethod``). ``capture`` False reserves only (a pre-auth)."""

    capture: bool = True
    card: ChargeCard | None = None
    bypass_surcharge: bool | None = Field(default=None, alias="bypassSurcharge")

    @model_validator(mode="after")
    def _names_what_to_charge(self) -> Self:
        if self.card is None and self.customer_id is None:
            raise ValueError(_("a charge needs a card or a customer (customerId) to charge (code 901)"))
        return self

    def wire(self) -> dict[str, Any]:
        return _money_out(super().wire(), "card.charge", "amount")


class CardCapture(Request):
    """Capture a pre-authorized payment for ``amount`` base cents (not above the pre-auth)."""

    payment_id: str = Field(alias="paymentId", min_length=1)
    amount: int

    @field_validator("amount", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> int:
        return _cents(value, "amount")

    def wire(self) -> dict[str, Any]:
        return _money_out(super().wire(), "card.capture", "amount")


class _Contact(Request):
    receipt: bool | None = None
    email: str | None = None
    phone_number: str | None = Field(default=None, alias="phoneNumber")

    @field_validator("phone_number")
    @classmethod
    def _phone(cls, value: str | None) -> str | None:
        return _phone(value)


class PaymentVoid(_Contact):
    """Void an unsettled payment (card or ACH): ``reason`` one of ``VoidReason``."""

    payment_id: str = Field(alias="paymentId", min_length=1)
    reason: VoidReason


class PaymentRefund(_Contact):
    """Refund ``amount`` cents of a settled payment (card or ACH); ``reason`` required."""

    payment_id: str = Field(alias="paymentId", min_length=1)
    amount: int
    reason: str = Field(min_length=1)
    transaction_component: Literal["base", "donation", "tip"] | None = Field(default=None,
                                                                            alias="transactionComponent")

    @field_validator("amount", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> int:
        return _cents(value, "amount")

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(_("a refund needs a reason (duplicate, fraudulent, requested_by_customer...)"))
        return value.strip()

    def wire(self) -> dict[str, Any]:
        return _money_out(super().wire(), "card.refund", "amount")


class BulkChargeItem(Request):
    """One charge of a bulk charge: ``amount`` cents to a customer's default method."""

    amount: int
    customer_vault_id: str = Field(alias="customerVaultId")
    bypass_surcharge: bool | None = Field(default=None, alias="bypassSurcharge")
    order: ChargeOrder | None = None

    @field_validator("amount", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> int:
        return _cents(value, "amount")

    @field_validator("customer_vault_id")
    @classmethod
    def _customer(cls, value: str) -> str:
        return _vault(value, "customerVaultId") or value


class BulkCharge(Request):
    payments: list[BulkChargeItem] = Field(min_length=1)
    send_receipt: bool | None = Field(default=None, alias="sendReceipt")

    def wire(self) -> dict[str, Any]:
        body = super().wire()
        body["payments"] = [_money_out(item, "card.bulk_charge", "amount") for item in body["payments"]]
        return body


class AchData(Request):
    routing_number: str | None = Field(default=None, alias="routingNumber")
    account_number: str | None = Field(default=None, alias="accountNumber")
    last4: str | None = None
    account_type: AchAccountType | None = Field(default=None, alias="accountType")
    payment_token: str | None = Field(default=None, alias="paymentToken")
    driver_license_number: str | None = Field(default=None, alias="driverLicenseNumber")
    phone_number: str | None = Field(default=None, alias="phoneNumber")

    @field_validator("last4")
    @classmethod
    def _last4(cls, value: str | None) -> str | None:
        if value is not None and not LAST4.fullmatch(value):
            raise ValueError(_("last4 must be exactly four digits, got {value!r}").format(value=value))
        return value

    @field_validator("routing_number")
    @classmethod
    def _routing(cls, value: str | None) -> str | None:
        return check_routing_number(value)

    @field_validator("account_number")
    @classmethod
    def _account(cls, value: str | None) -> str | None:
        return check_account_number(value)

    @field_validator("phone_number")
    @classmethod
    def _phone(cls, value: str | None) -> str | None:
        return _phone(value)


class AchCharge(_Charge):
    """Charge ``amount`` cents to a bank account: a customer's (``customerId``: its default
    method must be an ACH account, or ``overrideDefaultPaymentMethod`` names one), or
    ``achData``. ACH carries no surcharge; ``taxes`` are added to the total."""

    ach_data: AchData | None = Field(default=None, alias="achData")
    taxes: list[str] | None = None

    @model_validator(mode="after")
    def _names_an_account(self) -> Self:
        if self.customer_id is None and self.ach_data is None:
            raise ValueError(_("an ACH charge needs a customer (customerId) or the account (achData)"))
        return self

    def wire(self) -> dict[str, Any]:
        return _money_out(super().wire(), "ach.charge", "amount")

    def journaled(self) -> dict[str, Any]:
        """The body as the journal keeps it: the account by its last 4 only, as the service
        stores it (the whole number is sent, never kept)."""
        body = self.wire()
        account = body.get("achData")
        if isinstance(account, dict) and account.get("accountNumber"):
            number = str(account.pop("accountNumber"))
            account["last4"] = account.get("last4") or number[-4:]
        return body


# ---------------------------------------------------------------- answers (lenient)


class ChargeAnswer(Lenient):
    """A payment as a charge, capture, void or refund answers it (``{data: …}``). A decline
    may come as a 2xx with ``error`` set and ``paid`` false, without an ``id``: every field
    is optional, and ``declined`` says when the answer states a decline."""

    id: Text | None = None
    payment_id: Text | None = Field(default=None, alias="paymentId")
    transaction_id: Text | None = Field(default=None, alias="transactionId")
    amount: Cents | None = None
    net_amount: Cents | None = Field(default=None, alias="netAmount")
    refunded_amount: Cents | None = Field(default=None, alias="refundedAmount")
    paid: Flag | None = None
    status: Text | None = None
    settled: Flag | None = None
    error: Text | Flag | None = None
    card: CardInfo | None = None

    @property
    def declined(self) -> bool:
        """``error`` is true or a reason, and ``paid`` is not true."""
        flagged = self.error is True or (isinstance(self.error, str) and bool(self.error.strip()))
        return flagged and self.paid is not True

    @property
    def decline_text(self) -> str:
        return self.error if isinstance(self.error, str) and self.error else (self.status or "declined")

    @property
    def of_payment(self) -> str | None:
        """The payment this answer is about: ``paymentId`` of a void or refund, else ``id``."""
        return self.payment_id or self.id


class BulkQueued(Answer):
    """A bulk charge only confirms that the job was queued; its charges are read later."""

    success: bool = True
    message: str | None = None


class AchAccount(Lenient):
    account_type: Text | None = Field(default=None, alias="accountType")
    last4: Text | None = None
    first_name: Text | None = Field(default=None, alias="firstName")
    last_name: Text | None = Field(default=None, alias="lastName")
    company_name: Text | None = Field(default=None, alias="companyName")


class AchPayment(Lenient):
    """An ACH payment as ``GET /public/ach`` lists it (no card ``status``)."""

    id: str
    transaction_id: Text | None = Field(default=None, alias="transactionId")
    amount: Cents | None = None
    net_amount: Cents | None = Field(default=None, alias="netAmount")
    paid: Flag | None = None
    settled: Flag | None = None
    status: Text | None = None
    ach: AchAccount | None = None
    created_at: Text | None = Field(default=None, alias="createdAt")


MONEY_FIELDS = ("amount", "netAmount", "refundedAmount")


def _money_in(entry: Any, route: str) -> Any:
    """An answer's money fields in cents, from the unit ``route`` answers (``ValueError``
    for a value that is no amount of that unit: the field is then odd, never guessed)."""
    if not isinstance(entry, dict):
        return entry
    unit = response_unit(route)
    converted = dict(entry)
    for name in MONEY_FIELDS:
        value = entry.get(name)
        if value is None or isinstance(value, (bool, float)):
            continue
        try:
            converted[name] = from_wire(value, unit, field=name)
        except InvalidInput:
            continue  # left as it came: the model sets it aside as an odd field
    return converted


def charge_parser(route: str) -> Callable[[Any], ChargeAnswer]:
    def parse(body: Any) -> ChargeAnswer:
        data = unwrap(body)
        if not isinstance(data, dict):
            raise ValueError(_("the answer to {route} must be an object").format(route=route))
        if isinstance(body, dict) and body.get("error") is not None and "error" not in data:
            data = {**data, "error": body["error"]}  # a decline flagged at the top level only
        return ChargeAnswer.model_validate(_money_in(data, route))

    return parse


def parse_bulk(body: Any) -> BulkQueued:
    data = unwrap(body)
    if not isinstance(data, dict):
        raise ValueError(_("the bulk charge answer must be an object"))
    return BulkQueued.model_validate(data)


def parse_ach_page(body: Any) -> Page[AchPayment]:
    """The ACH list, ``{meta, data}`` (or wrapped once more in ``data``); an entry that is no
    payment is left out and counted in ``skipped``."""
    if isinstance(body, dict) and isinstance(body.get("data"), dict) and "meta" not in body:
        body = body["data"]
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise ValueError(_("the ACH list must be {meta, data}"))
    entries = []
    for raw in body["data"]:
        try:
            entries.append(AchPayment.model_validate(_money_in(raw, "ach.list")))
        except ValueError:
            continue
    return Page[AchPayment].model_validate({**body, "data": entries, "skipped": len(body["data"]) - len(entries)})


PARSERS: dict[str, Callable[[Any], object]] = {
    "card.charge": charge_parser("card.charge"),
    "card.capture": charge_parser("card.capture"),
    "card.void": charge_parser("card.void"),
    "card.refund": charge_parser("card.refund"),
    "card.bulk_charge": parse_bulk,
    "ach.charge": charge_parser("ach.charge"),
    "ach.refund": charge_parser("ach.refund"),
    "ach.void": charge_parser("ach.void"),
    "ach.list": parse_ach_page,
}
