"""Typed request bodies of the payments service, strict: a bad amount, phone or id raises
``InvalidInput`` naming each field before anything is sent. ``wire()`` is the JSON body
with the service's field names (catalog prices converted from cents to dollars at this
edge)."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pos_app.api.errors import InvalidInput
from pos_app.api.money import TERMINAL_AMOUNT_MAX, require_cents, require_phone
from pos_app.api.units import request_unit, to_wire
from pos_app.i18n import _


class Request(BaseModel):
    """A request body. Invalid field values raise ``InvalidInput`` naming each field."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise InvalidInput(_explain(error)) from None

    def wire(self) -> dict[str, Any]:
        """The JSON body, with the service's field names."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="python")


def _explain(error: ValidationError) -> str:
    parts = []
    for problem in error.errors():
        field = ".".join(str(p) for p in problem["loc"]) or _("request")
        message = problem["msg"].removeprefix("Value error, ")  # not for people: pydantic's prefix
        parts.append(f"{field}: {message}")
    return "; ".join(parts)


def _id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(_("must be a non-empty id"))
    return value.strip()


class CustomValue(Request):
    key: str
    label: str
    value: str


class PayRequest(Request):
    """Terminal sale or pre-auth: ``amount`` is the base amount in cents."""

    terminal_id: str = Field(alias="terminalId")
    amount: int
    receipt: bool = False
    order_number: str | None = Field(default=None, alias="orderNumber")
    email: str | None = None
    phone: str | None = None
    custom_values: list[CustomValue] | None = Field(default=None, alias="customValues")
    taxes: list[str] | None = None

    @field_validator("terminal_id", mode="before")
    @classmethod
    def _terminal(cls, value: Any) -> str:
        return _id(value)

    @field_validator("amount", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> int:
        return require_cents(value)

    @field_validator("phone")
    @classmethod
    def _phone(cls, value: str | None) -> str | None:
        return None if value is None else require_phone(value)

    @field_validator("email")
    @classmethod
    def _email(cls, value: str | None) -> str | None:
        if value is not None and ("@" not in value or value.strip() != value or " " in value):
            raise ValueError(_("{value!r} is not an email address").format(value=value))
        return value


class RefRequest(Request):
    """Capture, void and refund name the gateway transaction (pnRefNum) they act on."""

    terminal_id: str = Field(alias="terminalId")
    pn_ref_num: str = Field(alias="pnRefNum")

    @field_validator("terminal_id", "pn_ref_num", mode="before")
    @classmethod
    def _ids(cls, value: Any) -> str:
        return _id(value)


class CaptureRequest(RefRequest):
    amount: int

    @field_validator("amount", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> int:
        return require_cents(value, maximum=TERMINAL_AMOUNT_MAX)


class VoidRequest(RefRequest):
    pass


class RefundRequest(CaptureRequest):
    pass


class CloseBatchRequest(Request):
    """``terminal_id`` is the serial number when closing by serial."""

    terminal_id: str = Field(alias="terminalId")

    @field_validator("terminal_id", mode="before")
    @classmethod
    def _terminal(cls, value: Any) -> str:
        return _id(value)


class CategoryRef(Request):
    """A category on an item: an existing ``id``, or ``id=None`` to create ``name``."""

    id: str | None = None
    name: str


class ItemDraft(Request):
    """An item to create or update; ``sales_price`` in cents (sent as dollars)."""

    name: str = Field(min_length=1)
    type: str = Field(min_length=1)
    sales_price: int = Field(alias="salesPrice")
    description: str | None = None
    sku: str | None = None
    categories: list[CategoryRef] = Field(default_factory=list)
    taxes: list[str] = Field(default_factory=list)

    @field_validator("sales_price", mode="before")
    @classmethod
    def _price(cls, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(_("must be a whole number of cents, got {value!r}").format(value=value))
        if value == 0:
            raise ValueError(_("must not be 0"))
        return value

    @model_validator(mode="after")
    def _discount_has_no_taxes(self) -> Self:
        if self.sales_price < 0 and self.taxes:
            raise ValueError(_("a negative price (discount line) cannot carry taxes"))
        return self

    def wire(self) -> dict[str, Any]:
        body = super().wire()
        body["salesPrice"] = to_wire(self.sales_price, request_unit("item.create"), field="salesPrice")
        return body
