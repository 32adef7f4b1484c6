"""Typed requests and answers of the payments service.

Requests are strict: a bad amount, phone or id raises ``InvalidInput`` before anything is
sent. Answers are lenient as ``pos-contract.md`` asks: an object may come bare or wrapped
in ``data``, unknown fields are kept (``model_extra``), ids and codes that arrive as
numbers are read as strings. Money in answers is integer cents, except catalog item
prices, which ``Item`` converts from dollars where the money table says so.

No answer is read as more than it proves: an ``error`` flag counts at the top level and
inside ``data``; ``TerminalResult.proves_approval`` is the evidence that money moved;
``Payment``, ``TransactionEntry`` and ``PageMeta`` read field by field (``Lenient``): a
value of an unexpected type is None, never coerced (``"true"`` is not a boolean, ``"12"``
not an amount), and kept raw in ``odd_fields``. Deciding approved or declined from a
payment or an entry is the terminal layer's job, not the model's.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, Literal, Self, cast, overload

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    Strict,
    ValidationError,
    field_validator,
    model_validator,
)

from pos_app.api.errors import InvalidInput, ProtocolError
from pos_app.api.money import (
    TERMINAL_AMOUNT_MAX,
    Cents,
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
    def _discount_has_no_taxes(self) -> Self:
        if self.sales_price < 0 and self.taxes:
            raise ValueError("a negative price (discount line) cannot carry taxes")
        return self

    def wire(self) -> dict[str, Any]:
        body = super().wire()
        body["salesPrice"] = cents_to_dollars(self.sales_price)
        return body


# ---------------------------------------------------------------- answers

Text = Annotated[str, Strict()]
"""A JSON string: a number, boolean or object is NOT read as one."""

Flag = Annotated[bool, Strict()]
"""A JSON boolean: ``"true"``, ``1`` or ``"yes"`` are NOT read as one."""

APPROVED_CODES = frozenset({"0", "00", "000"})
"""``gwResponse.resultCode`` values that mean approved."""

_BAD_RESULT_WORDS = ("DECLIN", "ERROR", "FAIL", "REJECT")


class Answer(BaseModel):
    """An answer object: unknown fields kept, numbers accepted where strings are expected."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, coerce_numbers_to_str=True, frozen=True)


class Lenient(Answer):
    """An answer read field by field: one odd field never rejects the whole object.

    A known optional field whose value has an unexpected type (``amount: "12"``,
    ``captured: 1``, ``userAgent: 5``) is set to None and its raw value kept in
    ``odd_fields``. A required field with an odd value still fails the object.
    """

    _odd: dict[str, Any] = PrivateAttr(default_factory=dict)

    @property
    def odd_fields(self) -> dict[str, Any]:
        """The raw values of known fields that had an unexpected type, by wire name."""
        return dict(self._odd)

    @model_validator(mode="wrap")
    @classmethod
    def _read_field_by_field(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        if not isinstance(data, dict):
            return handler(data)
        remaining = dict(data)
        odd: dict[str, Any] = {}
        while True:
            try:
                model = handler(remaining)
            except ValidationError as error:
                keys = cls._odd_keys(error, remaining)
                if not keys:
                    raise
                for key in keys:
                    odd[key] = remaining.pop(key)
                continue
            if odd:
                model._odd = odd
            return model

    @classmethod
    def _odd_keys(cls, error: ValidationError, data: dict[str, Any]) -> set[str]:
        """The top-level keys to set aside, or nothing when any problem is not an odd optional field."""
        optional: set[str] = set()
        for name, field in cls.model_fields.items():
            if not field.is_required():
                optional.add(name)
                if field.alias:
                    optional.add(field.alias)
        keys: set[str] = set()
        for problem in error.errors():
            loc = problem["loc"]
            if not loc or not isinstance(loc[0], str) or loc[0] not in data or loc[0] not in optional:
                return set()
            keys.add(loc[0])
        return keys


def error_flag(value: object) -> bool | None:
    """One ``error`` field read as a decline flag.

    None when null or missing; True for ``true`` or a non-empty string (the reason);
    False for ``false`` or ``""``. Any other type is not a flag: ``ValueError``.
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return bool(value)
    raise ValueError(f"error {value!r} is neither a boolean nor a text")


def combined_flag(*flags: bool | None) -> bool | None:
    """True when any level says error, False when one says no error and none says error, else None."""
    if True in flags:
        return True
    if False in flags:
        return False
    return None


_RESULT_KEYS = ("transactionId", "paymentId", "gwResponse", "msgIdentifier", "amount")


def result_parts(body: dict[str, Any]) -> tuple[dict[str, Any], bool | None, str | None]:
    """A terminal answer split into (the object with its fields, its error flag, its error text).

    ``{"error": …, "data": {…}}`` is read from the inner object, with the error flags of
    BOTH levels: ``error`` true at either level (or both) is a decline.
    """
    levels = [body]
    fields = body
    inner = body.get("data")
    if isinstance(inner, dict):
        levels.append(inner)
        if not any(key in body for key in _RESULT_KEYS):
            fields = inner
    flags = [error_flag(level.get("error")) for level in levels]
    texts = [level["error"] for level in levels if isinstance(level.get("error"), str) and level["error"]]
    return fields, combined_flag(*flags), (texts[0] if texts else None)


class GatewayResponse(Answer):
    result_code: str | None = Field(default=None, alias="resultCode")
    result_txt: str | None = Field(default=None, alias="resultTxt")

    @property
    def approves(self) -> bool:
        """The gateway's own words say approved.

        With a ``resultCode``: it is 0/00/000 and ``resultTxt`` (when present) contains
        none of DECLIN, ERROR, FAIL, REJECT. Without a code: ``resultTxt`` starts with APPROV.
        """
        text = (self.result_txt or "").upper()
        if any(word in text for word in _BAD_RESULT_WORDS):
            return False
        if self.result_code is not None:
            return self.result_code in APPROVED_CODES
        return text.lstrip().startswith("APPROV")


class PayAccepted(Answer):
    """Type S pay/auth: the terminal took the request; poll ``msg_identifier`` for the result."""

    msg_identifier: str = Field(alias="msgIdentifier", min_length=1)
    poll_url: str | None = Field(default=None, alias="pollUrl")
    status: str | None = None


class TerminalResult(Answer):
    """A synchronous terminal answer: type B pay/auth, and capture/void/refund for all.

    ``error`` is True when an ``error`` flag says so at the top level or inside ``data``;
    ``error_flag`` is that flag as it came (None when no level carried one) and
    ``error_text`` the reason when the flag was a text. A result without ids is returned
    as it is: ``proves_approval`` says whether it is evidence that money moved.
    """

    error: bool = False
    error_flag: bool | None = None
    error_text: str | None = None
    transaction_id: str | None = Field(default=None, alias="transactionId")
    payment_id: str | None = Field(default=None, alias="paymentId")
    amount: Cents | None = None
    gw_response: GatewayResponse | None = Field(default=None, alias="gwResponse")

    @model_validator(mode="before")
    @classmethod
    def _flags_of_every_level(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fields, flag, text = result_parts(data)
        rest = {k: v for k, v in fields.items() if k not in {"error", "error_flag", "error_text"}}
        return {**rest, "error": flag is True, "error_flag": flag, "error_text": text}

    @property
    def gateway_text(self) -> str:
        return (self.gw_response.result_txt if self.gw_response else None) or self.error_text or ""

    @property
    def proves_approval(self) -> bool:
        """True only with no error flag, a gateway result that approves, and a transactionId."""
        return (
            self.error_flag is not True
            and self.gw_response is not None
            and self.gw_response.approves
            and bool(self.transaction_id and self.transaction_id.strip())
        )


MessageState = Literal["received", "processing", "complete", "failed", "timeout"]


class MessageStatus(Answer):
    """A type S message. ``timeout`` is NOT final: the sale may still complete."""

    msg_identifier: str | None = Field(default=None, alias="msgIdentifier")
    status: MessageState
    payment_id: str | None = Field(default=None, alias="paymentId")
    error: str | None = None

    @model_validator(mode="after")
    def _complete_names_payment(self) -> Self:
        if self.status == "complete" and not self.payment_id:
            raise ValueError("a complete message must name its paymentId")
        return self


class CardInfo(Lenient):
    last4: str | None = None
    network: str | None = None
    brand: str | None = None
    type: str | None = None
    name: str | None = None
    number: str | None = None


class Payment(Lenient):
    """A payment as the service reports it; approved or declined is the caller's decision.

    ``paid`` is None unless the answer carried a JSON boolean (the raw value is then in
    ``odd_fields``); the same holds for every optional field. ``id`` is required.
    """

    id: str
    transaction_id: str | None = Field(default=None, alias="transactionId")
    amount: Cents | None = None
    net_amount: Cents | None = Field(default=None, alias="netAmount")
    refunded_amount: Cents | None = Field(default=None, alias="refundedAmount")
    currency: Text | None = None
    paid: Flag | None = None
    status: Text | None = None
    settled: Flag | None = None
    error: Text | None = None
    card: CardInfo | None = None
    created_at: Text | None = Field(default=None, alias="createdAt")

    @property
    def surcharge(self) -> int:
        if self.amount is None or self.net_amount is None:
            return 0
        return self.net_amount - self.amount


class TransactionEntry(Lenient):
    """One entry of ``GET /public/transactions``, read field by field (see ``Lenient``).

    ``error`` is the decline reason (text) or flag (boolean); ``captured`` is the
    reference's string flag, or a boolean. ``type`` names what the entry records
    (sale, auth, capture, void, refund...); ``terminal_id`` comes from ``device``.
    """

    id: str | None = None
    payment_id: str | None = Field(default=None, alias="paymentId")
    transaction_id: str | None = Field(default=None, alias="transactionId")
    type: Text | None = None
    status: Text | None = None
    amount: Cents | None = None
    base_amount: Cents | None = Field(default=None, alias="baseAmount")
    surcharge: Cents | None = None
    captured: Text | Flag | None = None
    settled: Flag | None = None
    voidable: Flag | None = None
    error: Text | Flag | None = None
    user_agent: Text | None = Field(default=None, alias="userAgent")
    created_at: Text | None = Field(default=None, alias="createdAt")
    card: CardInfo | None = None

    @property
    def declined(self) -> bool:
        """The entry records a decline: ``error`` is true or a non-empty text."""
        return self.error is True or (isinstance(self.error, str) and bool(self.error))

    @property
    def terminal_id(self) -> str | None:
        """``device.terminalId`` when the entry names its terminal, else None."""
        device = (self.model_extra or {}).get("device")
        if isinstance(device, dict) and isinstance(device.get("terminalId"), str):
            return str(device["terminalId"])
        return None


class PageMeta(Lenient):
    """Paging facts; ``page``/``limit`` come back as strings when the query supplied them.

    Values that are not whole numbers (or digit strings) are None, kept in ``odd_fields``.
    """

    count: Cents | None = None
    total_pages: Cents | None = Field(default=None, alias="totalPages")
    page: Cents | None = None
    limit: Cents | None = None
    sort_by: Text | None = Field(default=None, alias="sortBy")

    @field_validator("page", "limit", "count", "total_pages", mode="before")
    @classmethod
    def _int_text(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
        return value


class Page[T](Answer):
    """A page ``{meta, data}``; ``skipped`` counts list entries that were not objects."""

    meta: PageMeta
    data: list[T]
    skipped: int = 0


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
    """Close batch normalised: ``success`` only when every shape present says success and no
    ``error`` flag is set; ``error_flag`` as in ``TerminalResult``."""

    success: bool
    message: str = ""
    error_flag: bool | None = None


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
    """Pay/auth answers: ``msgIdentifier`` without any error flag means type S accepted,
    otherwise a result (a decline when an error flag is set at any level)."""
    if isinstance(body, dict):
        fields, flag, _ = result_parts(body)
        if fields.get("msgIdentifier") and flag is not True:
            return PayAccepted.model_validate(fields)
    return parse_terminal_result(body)


def parse_terminal_result(body: Any) -> TerminalResult:
    """A synchronous result, even one without ids: ``proves_approval`` tells what it proves."""
    if not isinstance(body, dict):
        raise ValueError("a terminal result must be an object")
    return TerminalResult.model_validate(body)


def parse_close_batch(body: Any) -> CloseBatchResult:
    """Close batch: success only when each shape present says so and no level flags an error.

    Type S ``data.success`` (a boolean) and type B ``status == "success"``; when both are
    present both must say success. Neither present: ``ValueError``.
    """
    if not isinstance(body, dict):
        raise ValueError("close batch answer must be an object")
    data = body.get("data")
    inner: dict[str, Any] = data if isinstance(data, dict) else {}
    flag = combined_flag(error_flag(body.get("error")), error_flag(inner.get("error")))
    verdicts: list[bool] = []
    messages: list[str] = []
    if inner.get("success") is not None:
        if not isinstance(inner["success"], bool):
            raise ValueError(f"close batch data.success {inner['success']!r} is not a boolean")
        verdicts.append(inner["success"])
        if isinstance(inner.get("message"), str) and inner["message"]:
            messages.append(inner["message"])
    if body.get("status") is not None:
        status = body["status"]
        if not isinstance(status, str):
            raise ValueError(f"close batch status {status!r} is not a text")
        verdicts.append(status == "success")
        gw = body.get("gwResponse")
        text = gw.get("resultTxt") if isinstance(gw, dict) else None
        messages.append(text if isinstance(text, str) and text else status)
    if not verdicts:
        raise ValueError("close batch answer has neither status nor data.success")
    return CloseBatchResult(success=all(verdicts) and flag is not True, message="; ".join(messages), error_flag=flag)


def parse_terminals(body: Any) -> TerminalList:
    if isinstance(body, list):
        body = {"data": body}
    return TerminalList.model_validate(body)


def parse_transactions(body: Any) -> Page[TransactionEntry]:
    """The transaction list, never rejected whole for one odd entry.

    An entry that is not an object (or that fails even field by field) is skipped and
    counted in ``skipped``; odd fields of an entry are None, kept in its ``odd_fields``.
    """
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise ValueError("transaction list must be {meta, data}")
    entries: list[TransactionEntry] = []
    for raw in body["data"]:
        if not isinstance(raw, dict):
            continue
        try:
            entries.append(TransactionEntry.model_validate(raw))
        except ValidationError:
            continue
    skipped = len(body["data"]) - len(entries)
    return Page[TransactionEntry].model_validate({**body, "data": entries, "skipped": skipped})


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


def _list_of[M: BaseModel](model: type[M]) -> Callable[[Any], list[M]]:
    def parse(body: Any) -> list[M]:
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


def item_parser(
    unit: Literal["dollars", "cents"],
) -> tuple[Callable[[Any], Item], Callable[[Any], Page[Item]]]:
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


def _model[M: BaseModel](model: type[M]) -> Callable[[Any], M]:
    def parse(body: Any) -> M:
        return model.model_validate(unwrap(body))

    return parse


def _success(body: Any) -> bool:
    if not isinstance(body, dict) or not isinstance(body.get("success"), bool):
        raise ValueError("expected {success: bool}")
    return bool(body["success"])


RESPONSE_PARSERS: dict[str, Callable[[Any], object]] = {
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
    "transactions.list": parse_transactions,
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


# ---------------------------------------------------------------- expected answer types


@dataclass(frozen=True)
class Expect[R]:
    """The type a route's answer must have: mypy reads ``R``, ``check`` proves it at run time.

    Build one with ``instance``, ``either``, ``list_of`` or ``page_of``; ``parse_answer``
    and ``PaymentsClient.call`` raise ``ProtocolError`` when the parsed answer is not one.
    """

    name: str
    check: Callable[[object], bool]

    def verify(self, value: object) -> R:
        if not self.check(value):
            raise TypeError(f"expected {self.name}, the parser gave {type(value).__name__}")
        return cast(R, value)  # proven by check


def instance[A](cls: type[A]) -> Expect[A]:
    return Expect[A](cls.__name__, lambda value: isinstance(value, cls))


def either[A, B](first: type[A], second: type[B]) -> Expect[A | B]:
    return Expect[A | B](
        f"{first.__name__} | {second.__name__}", lambda value: isinstance(value, (first, second))
    )


def list_of[A](cls: type[A]) -> Expect[list[A]]:
    return Expect[list[A]](
        f"list[{cls.__name__}]", lambda value: isinstance(value, list) and all(isinstance(v, cls) for v in value)
    )


def page_of[A](cls: type[A]) -> Expect[Page[A]]:
    return Expect[Page[A]](
        f"Page[{cls.__name__}]",
        lambda value: isinstance(value, Page) and all(isinstance(v, cls) for v in value.data),
    )


@overload
def parse_answer(route_name: str, content: bytes, *, status_code: int | None = None) -> object: ...


@overload
def parse_answer[R](route_name: str, content: bytes, expect: Expect[R], *, status_code: int | None = None) -> R: ...


def parse_answer(
    route_name: str, content: bytes, expect: Expect[Any] | None = None, *, status_code: int | None = None
) -> object:
    """Decode and parse an answer body; anything malformed becomes ``ProtocolError``.

    With ``expect``, the parsed answer must also be of that type (else ``ProtocolError``).
    """
    try:
        body = decode_json(content)
        parsed = RESPONSE_PARSERS[route_name](body)
        return parsed if expect is None else expect.verify(parsed)
    except (ValueError, TypeError, ValidationError, RecursionError, InvalidInput) as error:
        detail = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
        raise ProtocolError(
            f"the answer to {route_name} does not match the contract: {detail}",
            raw=content,
            status_code=status_code,
        ) from None
