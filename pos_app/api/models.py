"""Typed answers of the payments service (the requests are in ``pos_app.api.requests``).

Answers are lenient as ``pos-contract.md`` asks: an object may come bare or wrapped
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

from decimal import Decimal
from typing import Annotated, Any, Literal, Self

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

from pos_app.i18n import _

# ---------------------------------------------------------------- answers

Cents = Annotated[int, Strict()]
"""An amount in cents: a plain ``int``; pydantic refuses floats, strings and bools for it."""

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


def unwrap(body: Any) -> Any:
    """An object that may come bare or as ``{"data": {...}}``."""
    if isinstance(body, dict) and isinstance(body.get("data"), dict) and len(body) <= 2:
        return body["data"]
    return body


def error_flag(value: object) -> bool | None:
    """One ``error`` field read as a decline flag.

    None when null or missing; True for ``true`` or a non-empty string (the reason);
    False for ``false`` or ``""``. Any other type is not a flag: ``ValueError``.
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return bool(value)
    raise ValueError(_("error {value!r} is neither a boolean nor a text").format(value=value))


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
            raise ValueError(_("a complete message must name its paymentId"))
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


class Refused(Answer):
    """A list entry left out of a page's ``data``: its ``id`` when it has one, and why."""

    id: str | None = None
    reason: str


class Page[T](Answer):
    """A page ``{meta, data}``; ``skipped`` counts list entries left out of ``data``.

    The item list names each one in ``refused`` (an item whose price or fields cannot be
    read), so that one bad item never costs the whole page.
    """

    meta: PageMeta
    data: list[T]
    skipped: int = 0
    refused: list[Refused] = Field(default_factory=list)


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


class Tax(Lenient):
    """A merchant tax. ``rate`` is a percentage (8.25 means 8.25 %); one that is no number
    ("NaN", ``true``) is None, its raw value in ``odd_fields``, so that one bad tax never
    costs the whole list (the catalog sync leaves it out and says so)."""

    id: str
    name: str
    rate: Decimal | None = None


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
