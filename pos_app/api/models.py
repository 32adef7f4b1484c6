"""Typed requests and answers of the payments service.

Requests are strict: a bad amount, phone or id raises ``InvalidInput`` before anything is
sent. Answers are lenient as ``pos-contract.md`` asks: an object may come bare or wrapped
in ``data``, unknown fields are kept (``model_extra``), ids and codes that arrive as
numbers are read as strings. Money in answers is integer cents, except catalog item
prices, which ``Item`` converts from dollars where the money table says so.
"""

from __future__ import annotations

import base64
import binascii
from decimal import Decimal
from typing import Any, Generic, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from pos_app.api.errors import InvalidInput, ProtocolError
from pos_app.api.money import (
    TERMINAL_AMOUNT_MAX,
    cents_to_dollars,
    dollars_to_cents,
    require_cents,
    require_phone,
)
from pos_app.api.wire import decode_json

# ---------------------------------------------------------------- requests


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
        field = ".".join(str(p) for p in problem["loc"]) or "request"
        message = problem["msg"].removeprefix("Value error, ")
        parts.append(f"{field}: {message}")
    return "; ".join(parts)


def _id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a non-empty id")
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
            raise ValueError(f"{value!r} is not an email address")
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
            raise ValueError(f"must be a whole number of cents, got {value!r}")
        if value == 0:
            raise ValueError("must not be 0")
        return value

    @model_validator(mode="after")
    def _discount_has_no_taxes(self) -> "ItemDraft":
        if self.sales_price < 0 and self.taxes:
            raise ValueError("a negative price (discount line) cannot carry taxes")
        return self

    def wire(self) -> dict[str, Any]:
        body = super().wire()
        body["salesPrice"] = cents_to_dollars(self.sales_price)
        return body


# ---------------------------------------------------------------- answers


class Answer(BaseModel):
    """An answer object: unknown fields kept, numbers accepted where strings are expected."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, coerce_numbers_to_str=True, frozen=True)


class GatewayResponse(Answer):
    result_code: str | None = Field(default=None, alias="resultCode")
    result_txt: str | None = Field(default=None, alias="resultTxt")


class PayAccepted(Answer):
    """Type S pay/auth: the terminal took the request; poll ``msg_identifier`` for the result."""

    msg_identifier: str = Field(alias="msgIdentifier", min_length=1)
    poll_url: str | None = Field(default=None, alias="pollUrl")
    status: str | None = None


class TerminalResult(Answer):
    """A synchronous terminal answer: type B pay/auth, and capture/void/refund for all."""

    error: bool = False
    transaction_id: str | None = Field(default=None, alias="transactionId")
    payment_id: str | None = Field(default=None, alias="paymentId")
    amount: int | None = None
    gw_response: GatewayResponse | None = Field(default=None, alias="gwResponse")

    @property
    def gateway_text(self) -> str:
        return (self.gw_response.result_txt if self.gw_response else None) or ""


MessageState = Literal["received", "processing", "complete", "failed", "timeout"]


class MessageStatus(Answer):
    """A type S message. ``timeout`` is NOT final: the sale may still complete."""

    msg_identifier: str | None = Field(default=None, alias="msgIdentifier")
    status: MessageState
    payment_id: str | None = Field(default=None, alias="paymentId")
    error: str | None = None

    @model_validator(mode="after")
    def _complete_names_payment(self) -> "MessageStatus":
        if self.status == "complete" and not self.payment_id:
            raise ValueError("a complete message must name its paymentId")
        return self


class CardInfo(Answer):
    last4: str | None = None
    network: str | None = None
    brand: str | None = None
    type: str | None = None
    name: str | None = None
    number: str | None = None


class Payment(Answer):
    id: str
    transaction_id: str | None = Field(default=None, alias="transactionId")
    amount: int | None = None
    net_amount: int | None = Field(default=None, alias="netAmount")
    currency: str | None = None
    paid: bool
    status: str | None = None
    settled: bool | None = None
    error: str | None = None
    card: CardInfo | None = None
    created_at: str | None = Field(default=None, alias="createdAt")

    @property
    def surcharge(self) -> int:
        if self.amount is None or self.net_amount is None:
            return 0
        return self.net_amount - self.amount


class TransactionEntry(Answer):
    id: str | None = None
    payment_id: str | None = Field(default=None, alias="paymentId")
    transaction_id: str | None = Field(default=None, alias="transactionId")
    type: str | None = None
    amount: int | None = None
    base_amount: int | None = Field(default=None, alias="baseAmount")
    surcharge: int | None = None
    captured: str | None = None
    settled: bool | None = None
    voidable: bool | None = None
    error: str | None = None
    user_agent: str | None = Field(default=None, alias="userAgent")
    created_at: str | None = Field(default=None, alias="createdAt")
    card: CardInfo | None = None


class PageMeta(Answer):
    """Paging facts; ``page``/``limit`` come back as strings when the query supplied them."""

    count: int | None = None
    total_pages: int | None = Field(default=None, alias="totalPages")
    page: int | None = None
    limit: int | None = None
    sort_by: str | None = Field(default=None, alias="sortBy")

    @field_validator("page", "limit", "count", "total_pages", mode="before")
    @classmethod
    def _int_text(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
        return value


T = TypeVar("T")


class Page(Answer, Generic[T]):
    meta: PageMeta
    data: list[T]


class Terminal(Answer):
    id: str
    name: str | None = None
    serial_number: str | None = Field(default=None, alias="serialNumber")
    is_active: bool | None = Field(default=None, alias="isActive")


class TerminalList(Answer):
    """Both shapes: type S ``{data, total}``, type B ``{meta, data}``."""

    data: list[Terminal]
    total: int | None = None
    meta: PageMeta | None = None


class CloseBatchResult(Answer):
    """Close batch normalised: ``success`` read from ``status`` (B) or ``data.success`` (S)."""

    success: bool
    message: str = ""


class SurchargeQuote(Answer):
    surcharge: int
    rate: Decimal
    type: str | None = None
    card_brand: str | None = Field(default=None, alias="cardBrand")


class Tax(Answer):
    id: str
    name: str
    rate: Decimal  # percent: 8.25 means 8.25 %


class Category(Answer):
    id: str
    name: str


class Item(Answer):
    """A catalog item with ``sales_price`` in cents, whatever unit its route spoke."""

    id: str
    name: str
    type: str | None = None
    description: str | None = None
    sales_price: int = Field(alias="salesPrice")
    sku: str | None = None
    categories: list[Category] = Field(default_factory=list)
    taxes: list[str] = Field(default_factory=list)
    deleted_at: str | None = Field(default=None, alias="deletedAt")

    @field_validator("taxes", mode="before")
    @classmethod
    def _tax_ids(cls, value: Any) -> Any:
        # some answers list tax objects rather than ids
        if isinstance(value, list):
            return [t.get("id") if isinstance(t, dict) else t for t in value]
        return value


# ---------------------------------------------------------------- parsing


def unwrap(body: Any) -> Any:
    """An object that may come bare or as ``{"data": {...}}``."""
    if isinstance(body, dict) and isinstance(body.get("data"), dict) and len(body) <= 2:
        return body["data"]
    return body


def parse_pay_answer(body: Any) -> PayAccepted | TerminalResult:
    """Pay/auth answers: ``msgIdentifier`` means type S accepted, otherwise a result."""
    body = unwrap(body)
    if isinstance(body, dict) and body.get("msgIdentifier") and body.get("error") is not True:
        return PayAccepted.model_validate(body)
    return parse_terminal_result(body)


def parse_terminal_result(body: Any) -> TerminalResult:
    result = TerminalResult.model_validate(unwrap(body))
    if not result.error and not (result.transaction_id or result.payment_id):
        raise ValueError("a terminal result must carry transactionId or paymentId")
    return result


def parse_close_batch(body: Any) -> CloseBatchResult:
    if not isinstance(body, dict):
        raise ValueError("close batch answer must be an object")
    if "status" in body:
        gw = body.get("gwResponse") or {}
        text = gw.get("resultTxt") if isinstance(gw, dict) else None
        return CloseBatchResult(success=body["status"] == "success" and body.get("error") is not True,
                                message=str(text or body["status"]))
    data = body.get("data")
    if isinstance(data, dict) and isinstance(data.get("success"), bool):
        return CloseBatchResult(success=data["success"], message=str(data.get("message") or ""))
    raise ValueError("close batch answer has neither status nor data.success")


def parse_terminals(body: Any) -> TerminalList:
    if isinstance(body, list):
        body = {"data": body}
    return TerminalList.model_validate(body)


def parse_receipt_pdf(body: Any) -> bytes:
    data = unwrap(body)
    if not isinstance(data, dict) or not isinstance(data.get("pdfData"), str):
        raise ValueError("receipt answer has no pdfData")
    if data.get("encodeType", "base64") != "base64":
        raise ValueError(f"receipt encodeType {data.get('encodeType')!r} is not base64")
    try:
        pdf = base64.b64decode(data["pdfData"], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("receipt pdfData is not valid base64") from None
    if not pdf.startswith(b"%PDF"):
        raise ValueError("receipt pdfData is not a PDF")
    return pdf


def parse_acknowledgment(body: Any) -> list[str]:
    body = unwrap(body)
    if isinstance(body, dict) and set(body) == {"text"} and isinstance(body["text"], str):
        return [p for p in body["text"].split("\n\n") if p.strip()]
    if not isinstance(body, dict) or not body or not all(isinstance(v, str) for v in body.values()):
        raise ValueError("acknowledgment must be an object of paragraphs")
    return list(body.values())


def _bare_list(body: Any) -> Any:
    """A list that may come bare or as ``{"data": [...]}``."""
    if isinstance(body, dict) and isinstance(body.get("data"), list):
        return body["data"]
    return body


def _list_of(model: type[BaseModel]):
    def parse(body: Any) -> list:
        body = _bare_list(body)
        if not isinstance(body, list):
            raise ValueError(f"expected a list of {model.__name__}")
        return [model.model_validate(entry) for entry in body]

    return parse


def parse_ids(body: Any) -> list[str]:
    body = _bare_list(body)
    if not isinstance(body, list) or not all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in body):
        raise ValueError("expected a list of ids")
    return [str(i) for i in body]


def item_parser(unit: Literal["dollars", "cents"]):
    """Items arrive with ``salesPrice`` in dollars or in cents depending on the route."""

    def to_cents(entry: Any) -> Any:
        if not isinstance(entry, dict) or "salesPrice" not in entry:
            return entry
        price = entry["salesPrice"]
        if isinstance(price, bool) or not isinstance(price, (int, Decimal, str)):
            raise ValueError(f"salesPrice {price!r} is not a number")
        if unit == "dollars":
            cents = dollars_to_cents(price)
        elif isinstance(price, int):
            cents = price
        else:
            raise ValueError(f"salesPrice {price!r} should be whole cents here")
        return {**entry, "salesPrice": cents}

    def parse_one(body: Any) -> Item:
        return Item.model_validate(to_cents(unwrap(body)))

    def parse_page(body: Any) -> Page[Item]:
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            raise ValueError("item list must be {meta, data}")
        return Page[Item].model_validate({**body, "data": [to_cents(e) for e in body["data"]]})

    return parse_one, parse_page


parse_item_dollars, parse_item_page = item_parser("dollars")
parse_item_cents, _ = item_parser("cents")


def _model(model: type[BaseModel]):
    return lambda body: model.model_validate(unwrap(body))


def _success(body: Any) -> bool:
    if not isinstance(body, dict) or not isinstance(body.get("success"), bool):
        raise ValueError("expected {success: bool}")
    return body["success"]


RESPONSE_PARSERS = {
    "terminal.pay": parse_pay_answer,
    "terminal.auth": parse_pay_answer,
    "terminal.capture": parse_terminal_result,
    "terminal.void": parse_terminal_result,
    "terminal.refund": parse_terminal_result,
    "terminal.close_batch": parse_close_batch,
    "terminal.close_batch_by_serial": parse_close_batch,
    "terminal.list": parse_terminals,
    "terminal.poll_message": _model(MessageStatus),
    "payment.get": _model(Payment),
    "transactions.list": Page[TransactionEntry].model_validate,
    "receipt.pdf": parse_receipt_pdf,
    "surcharge.rate": _model(SurchargeQuote),
    "surcharge.acknowledgment": parse_acknowledgment,
    "tax.list": _list_of(Tax),
    "item.list": parse_item_page,
    "item.ids": parse_ids,
    "item.categories": _list_of(Category),
    "item.get": parse_item_dollars,
    "item.create": parse_item_dollars,
    "item.update": parse_item_dollars,
    "item.delete": parse_item_cents,
    "item.duplicate": parse_item_cents,
    "item.bulk_delete": _success,
    "item.bulk_duplicate": _success,
}
"""One parser per route: decoded JSON in, typed answer out (or an exception)."""


def parse_answer(route_name: str, content: bytes, *, status_code: int | None = None) -> Any:
    """Decode and parse an answer body; anything malformed becomes ``ProtocolError``."""
    try:
        body = decode_json(content)
        return RESPONSE_PARSERS[route_name](body)
    except (ValueError, TypeError, ValidationError, RecursionError, InvalidInput) as error:
        detail = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise ProtocolError(
            f"the answer to {route_name} does not match the contract: {detail}",
            raw=content,
            status_code=status_code,
        ) from None
