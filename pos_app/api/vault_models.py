"""The rest of the customer vault routes (reference 4.4): ACH accounts, bulk delete, the
update-request and invitation links, and the CSV export, template and import. Their
request bodies (strict), answers (lenient), typed refusals and parsers; the methods are
in ``pos_app.api.customers``, the card and vault models in ``pos_app.api.customer_models``.

Checked before anything is sent, as the reference states it: vault ids are 24-hex object
ids; an ACH account's type is one of the four ACH types, its billing country US or CA, a
business account names its company and a personal one its holder; a phone matches the US
pattern and a driver's licence is letters and digits; a link goes to an email or a phone
(without one nothing is sent) and expires after a positive whole number of minutes, hours,
days or weeks. The reference gives no pattern for routing and account numbers: the app
asks for digits, a routing number of 9 (US ABA and Canadian EFT forms) and an account
number of 4 to 17 (the NACHA account field; the service keeps its last 4).

A link answer (``{"success": true, "message": …}``) means *queued*, never delivered:
``LinkQueued``. The vaults carry no money (``pos_app.api.units``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, Literal, Self

from pydantic import Field, field_validator, model_validator

from pos_app.api.customer_models import VaultAddress, check_email, check_phone, parse_method, require_vault_id
from pos_app.api.errors import ApiError, InvalidInput
from pos_app.api.models import Flag, Lenient, Text, unwrap
from pos_app.api.requests import Request
from pos_app.i18n import _

ROUTING_NUMBER = re.compile(r"^[0-9]{9}$")
ACCOUNT_NUMBER = re.compile(r"^[0-9]{4,17}$")


def check_routing_number[T: (str, str | None)](value: T) -> T:
    """A bank's routing number (9 digits), as stored and as charged; None passes."""
    if value is not None and not ROUTING_NUMBER.fullmatch(value):
        raise ValueError(_("routingNumber must be the 9 digits of the bank's routing number, got {value!r}").format(
            value=value))
    return value


def check_account_number[T: (str, str | None)](value: T) -> T:
    """A bank account number (4 to 17 digits), never echoed in the error; None passes."""
    if value is not None and not ACCOUNT_NUMBER.fullmatch(value):
        raise ValueError(_("accountNumber must be the account's digits (4 to 17), got {count} characters").format(
            count=len(value)))
    return value
DRIVER_LICENSE = re.compile(r"^[a-zA-Z0-9]+$")
BUSINESS_TYPES = frozenset({"businessChecking", "businessSavings"})
CSV_TYPES = ("text/csv", "application/csv", "text/plain", "application/vnd.ms-excel", "application/octet-stream")
"""Content types an export or template answer may carry (checked leniently: the media
type only, any case, any parameters; a missing header is accepted too)."""


class AccountType(StrEnum):
    BUSINESS_CHECKING = "businessChecking"
    BUSINESS_SAVINGS = "businessSavings"
    PERSONAL_CHECKING = "personalChecking"
    PERSONAL_SAVINGS = "personalSavings"


class TimeUnit(StrEnum):
    """``unitOfTime`` of a link's expiry (the service takes each singular or plural)."""

    MINUTES = "minutes"
    HOURS = "hours"
    DAYS = "days"
    WEEKS = "weeks"


# ---------------------------------------------------------------- requests (strict)


class AchBillingAddress(VaultAddress):
    """An ACH account's billing address: address, city, state, ZIP code and country required."""

    country: Literal["US", "CA"]
    address: str = Field(min_length=1)
    city: str = Field(min_length=1)
    state: str = Field(min_length=1)
    zip_code: str = Field(alias="zipCode")


class AchAccount(Request):
    """A bank account to add to a vault, or to replace one with (the full payload: the
    account number is required again). ``routing_number`` and ``account_number`` are
    digits; the service stores only the account's last 4."""

    account_type: AccountType = Field(alias="accountType")
    routing_number: str = Field(alias="routingNumber")
    account_number: str = Field(alias="accountNumber")
    billing_address: AchBillingAddress = Field(alias="billingAddress")
    company_name: str | None = Field(default=None, alias="companyName")
    first_name: str | None = Field(default=None, alias="firstName")
    last_name: str | None = Field(default=None, alias="lastName")
    phone_number: str | None = Field(default=None, alias="phoneNumber")
    driver_license_number: str | None = Field(default=None, alias="driverLicenseNumber")

    @field_validator("routing_number")
    @classmethod
    def _routing(cls, value: str) -> str:
        return check_routing_number(value)

    @field_validator("account_number")
    @classmethod
    def _account(cls, value: str) -> str:
        return check_account_number(value)

    @field_validator("phone_number")
    @classmethod
    def _phone(cls, value: str | None) -> str | None:
        return check_phone(value)

    @field_validator("driver_license_number")
    @classmethod
    def _licence(cls, value: str | None) -> str | None:
        if value is not None and not DRIVER_LICENSE.fullmatch(value):
            raise ValueError(_("driverLicenseNumber must be letters and digits only, got {value!r}").format(
                value=value))
        return value

    @model_validator(mode="after")
    def _holder(self) -> Self:
        if self.account_type in BUSINESS_TYPES:
            if not (self.company_name or "").strip():
                raise ValueError(_("a {account_type} account needs companyName").format(
                    account_type=self.account_type.value))
        elif not (self.first_name or "").strip() or not (self.last_name or "").strip():
            raise ValueError(_("a {account_type} account needs firstName and lastName").format(
                account_type=self.account_type.value))
        return self

    @property
    def last4(self) -> str:
        return self.account_number[-4:]


class LinkExpiry(Request):
    """How long a link stays valid: ``expirationTime`` of ``unitOfTime``."""

    time: int = Field(alias="expirationTime")
    unit: TimeUnit = Field(alias="unitOfTime")

    @field_validator("time", mode="before")
    @classmethod
    def _positive(cls, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(_("must be a whole number above 0, got {value!r}").format(value=value))
        return value

    @classmethod
    def parse(cls, text: str) -> LinkExpiry:
        """``24h``, ``30m``, ``7d``, ``2w`` (or ``24 hours``…), else ``InvalidInput``."""
        match = re.fullmatch(r"\s*([0-9]+)\s*([a-zA-Z]+)\s*", text)
        units = {"m": TimeUnit.MINUTES, "h": TimeUnit.HOURS, "d": TimeUnit.DAYS, "w": TimeUnit.WEEKS}
        word = match.group(2).lower() if match else ""
        unit = units.get(word) or next((u for u in TimeUnit if word in (u.value, u.value[:-1])), None)
        if match is None or unit is None:
            raise InvalidInput(_("expiry must be a number and a unit such as 30m, 24h, 7d or 2w, got {text!r}").format(
                text=text))
        return cls(expirationTime=int(match.group(1)), unitOfTime=unit)


class LinkContact(Request):
    """Where an update-request or invitation link goes: an email, a phone, or both; with
    neither nothing would be sent, so it is refused here."""

    email: str | None = None
    phone_number: str | None = Field(default=None, alias="phoneNumber")

    @field_validator("email")
    @classmethod
    def _email(cls, value: str | None) -> str | None:
        return None if value is None else check_email(value)

    @field_validator("phone_number")
    @classmethod
    def _phone(cls, value: str | None) -> str | None:
        return check_phone(value)

    @model_validator(mode="after")
    def _one_contact(self) -> Self:
        if self.email is None and self.phone_number is None:
            raise ValueError(_("give an email or a phone number: without one the service sends nothing"))
        return self


def link_body(contact: LinkContact, expiry: LinkExpiry) -> dict[str, Any]:
    """An update request's or invitation's body: only the contacts given, the expiry."""
    return {**expiry.wire(), **contact.wire()}


def require_vault_ids(ids: Sequence[str]) -> list[str]:
    """``itemList`` of vault ids: at least one, each 24-hex, none twice."""
    if not ids:
        raise InvalidInput(_("give at least one customer id"))
    for vault_id in ids:
        require_vault_id(vault_id)
    repeated = sorted({i for i in ids if list(ids).count(i) > 1})
    if repeated:
        raise InvalidInput(_("customer id given twice: {ids}").format(ids=", ".join(repeated)))
    return list(ids)


# ---------------------------------------------------------------- answers (lenient)


class LinkQueued(Lenient):
    """An update request, bulk update request or invitation the service took: the link is
    QUEUED, not delivered (the service sends it later, or may not)."""

    success: Flag
    message: Text | None = None


class LinkNotQueued(ApiError):
    """A link answer that does not say ``success: true``: nothing was queued."""


class BulkDeleted(Lenient):
    """A bulk delete that deleted every id (soft: each vault keeps ``deletedAt``)."""

    success: Flag
    deleted: list[str] = Field(default_factory=list)


class BulkDeleteFailed(ApiError):
    """400 of a bulk delete: it is not atomic, so some vaults may be deleted. ``failed``
    names each id not deleted and why; ``deleted`` the ids that were, when the service said."""

    def __init__(self, error: ApiError, *, deleted: list[str], failed: dict[str, str]) -> None:
        self.deleted = deleted
        self.failed = failed
        super().__init__(error.status_code, code=error.code, text=error.text, messages=error.messages,
                         path=error.path, body=error.body)


class ImportRejected(ApiError):
    """400 of a CSV import: all-or-nothing, so nothing changed. ``lines`` are the failing
    line numbers of the file (the header is line 1), as the service listed them."""

    def __init__(self, error: ApiError, *, lines: list[int]) -> None:
        self.lines = lines
        super().__init__(error.status_code, code=error.code, text=error.text, messages=error.messages,
                         path=error.path, body=error.body)


def bulk_delete_failure(error: ApiError) -> BulkDeleteFailed:
    """The typed failure of a bulk delete, from the service's ``response.error``
    (``deleted`` ids, ``failed`` entries of ``{id, message}``), as far as it is there."""
    detail = error.body.get("response", {}).get("error") if isinstance(error.body, dict) else None
    deleted: list[str] = []
    failed: dict[str, str] = {}
    if isinstance(detail, dict):
        deleted = [i for i in detail.get("deleted") or [] if isinstance(i, str)]
        for entry in detail.get("failed") or []:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                failed[entry["id"]] = str(entry.get("message") or _("not deleted"))
    return BulkDeleteFailed(error, deleted=deleted, failed=failed)


_LINE_NUMBERS = re.compile(r"\blines?\b\s*:?\s*((?:[0-9]+)(?:\s*(?:,|and)\s*[0-9]+)*)", re.IGNORECASE)


def import_rejection(error: ApiError) -> ImportRejected:
    """The typed refusal of an import: every line number the service's text and messages
    name (``Line 3: …``, ``Invalid rows at lines 3, 5``), in order, each once."""
    found: list[int] = []
    for text in (error.text, *error.messages):
        for match in _LINE_NUMBERS.finditer(text):
            found += [int(n) for n in re.findall(r"[0-9]+", match.group(1))]
    return ImportRejected(error, lines=sorted(set(found)))


def check_csv_type(content_type: str) -> None:
    """``ValueError`` unless ``content_type`` is one a CSV may come as (or missing)."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media and media not in CSV_TYPES:
        raise ValueError(_("expected a CSV (text/csv), the service answered {media}").format(media=media))


def _success(model: type[LinkQueued] | type[BulkDeleted]) -> Callable[[Any], object]:
    def parse(body: Any) -> object:
        if not isinstance(body, dict):
            raise ValueError(_("{name} answer must be an object").format(name=model.__name__))
        return model.model_validate(unwrap(body) if "success" not in body else body)

    return parse


def parse_import(body: Any) -> bool:
    if not isinstance(body, dict) or not isinstance(body.get("success"), bool):
        raise ValueError(_("import answer must be {success: bool}"))
    return bool(body["success"])


def refuse_json_for_csv(body: Any) -> object:
    """Export and template answer CSV (``PaymentsClient.exchange``): JSON there is no answer."""
    raise ValueError(_("export and template answer text/csv, not JSON"))


PARSERS: dict[str, Callable[[Any], object]] = {
    "customer.bulk_delete": _success(BulkDeleted),
    "customer.ach_add": parse_method,
    "customer.ach_replace": parse_method,
    "customer.update_request": _success(LinkQueued),
    "customer.bulk_update_request": _success(LinkQueued),
    "customer.invitation": _success(LinkQueued),
    "customer.export": refuse_json_for_csv,
    "customer.template": refuse_json_for_csv,
    "customer.import": parse_import,
}
"""The typed answers of the vault routes of this module (with ``customer_models.PARSERS``,
every ``customer.*`` route)."""
