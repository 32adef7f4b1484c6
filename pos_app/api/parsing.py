"""Reading the service's answers: one parser per route (``RESPONSE_PARSERS``, used by the
fuzz tests and ``parse_answer``), the unwrapping of ``data``, and the expected answer types
(``Expect``) that ``PaymentsClient.call`` checks at run time. The answer models are in
``pos_app.api.models``."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast, overload

from pydantic import BaseModel, ValidationError

from pos_app.api import attachments, charge_models, customer_models, link_models, subscription_models, vault_models
from pos_app.api.errors import InvalidInput, ProtocolError
from pos_app.api.models import (
    Category,
    CloseBatchResult,
    Item,
    MessageStatus,
    Page,
    PayAccepted,
    Payment,
    Refused,
    SurchargeQuote,
    Tax,
    TerminalList,
    TerminalResult,
    TransactionEntry,
    combined_flag,
    error_flag,
    result_parts,
    unwrap,
)
from pos_app.api.units import from_wire, response_unit
from pos_app.api.wire import decode_json
from pos_app.i18n import _


def parse_pay_answer(body: Any) -> PayAccepted | TerminalResult:
    """Pay/auth answers: ``msgIdentifier`` without any error flag means type S accepted,
    otherwise a result (a decline when an error flag is set at any level)."""
    if isinstance(body, dict):
        fields, flag, __ = result_parts(body)
        if fields.get("msgIdentifier") and flag is not True:
            return PayAccepted.model_validate(fields)
    return parse_terminal_result(body)


def parse_terminal_result(body: Any) -> TerminalResult:
    """A synchronous result, even one without ids: ``proves_approval`` tells what it proves."""
    if not isinstance(body, dict):
        raise ValueError(_("a terminal result must be an object"))
    return TerminalResult.model_validate(body)


def parse_close_batch(body: Any) -> CloseBatchResult:
    """Close batch: success only when each shape present says so and no level flags an error.

    Type S ``data.success`` (a boolean) and type B ``status == "success"``; when both are
    present both must say success. Neither present: ``ValueError``.
    """
    if not isinstance(body, dict):
        raise ValueError(_("close batch answer must be an object"))
    data = body.get("data")
    inner: dict[str, Any] = data if isinstance(data, dict) else {}
    flag = combined_flag(error_flag(body.get("error")), error_flag(inner.get("error")))
    verdicts: list[bool] = []
    messages: list[str] = []
    if inner.get("success") is not None:
        if not isinstance(inner["success"], bool):
            raise ValueError(_("close batch data.success {value!r} is not a boolean").format(value=inner["success"]))
        verdicts.append(inner["success"])
        if isinstance(inner.get("message"), str) and inner["message"]:
            messages.append(inner["message"])
    if body.get("status") is not None:
        status = body["status"]
        if not isinstance(status, str):
            raise ValueError(_("close batch status {status!r} is not a text").format(status=status))
        verdicts.append(status == "success")
        gw = body.get("gwResponse")
        text = gw.get("resultTxt") if isinstance(gw, dict) else None
        messages.append(text if isinstance(text, str) and text else status)
    if not verdicts:
        raise ValueError(_("close batch answer has neither status nor data.success"))
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
        raise ValueError(_("transaction list must be {meta, data}"))
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
        raise ValueError(_("receipt answer has no pdfData"))
    if data.get("encodeType", "base64") != "base64":
        raise ValueError(_("receipt encodeType {value!r} is not base64").format(value=data.get("encodeType")))
    try:
        pdf = base64.b64decode(data["pdfData"], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(_("receipt pdfData is not valid base64")) from None
    if not pdf.startswith(b"%PDF"):
        raise ValueError(_("receipt pdfData is not a PDF"))
    return pdf


def parse_acknowledgment(body: Any) -> list[str]:
    body = unwrap(body)
    if isinstance(body, dict) and set(body) == {"text"} and isinstance(body["text"], str):
        return [p for p in body["text"].split("\n\n") if p.strip()]
    if not isinstance(body, dict) or not body or not all(isinstance(v, str) for v in body.values()):
        raise ValueError(_("acknowledgment must be an object of paragraphs"))
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
            raise ValueError(_("expected a list of {name}").format(name=model.__name__))
        return [model.model_validate(entry) for entry in body]

    return parse


def parse_ids(body: Any) -> list[str]:
    body = _bare_list(body)
    if not isinstance(body, list) or not all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in body):
        raise ValueError(_("expected a list of ids"))
    return [str(i) for i in body]


def item_parser(route_name: str) -> tuple[Callable[[Any], Item], Callable[[Any], Page[Item]]]:
    """Items arrive with ``salesPrice`` in dollars or in cents depending on the route
    (``pos_app.api.units``): converted to cents here."""
    unit = response_unit(route_name)

    def to_cents(entry: Any) -> Any:
        if not isinstance(entry, dict) or "salesPrice" not in entry:
            return entry
        try:
            cents = from_wire(entry["salesPrice"], unit, field="salesPrice")
        except InvalidInput as error:
            raise ValueError(str(error)) from error
        return {**entry, "salesPrice": cents}

    def parse_one(body: Any) -> Item:
        return Item.model_validate(to_cents(unwrap(body)))

    def parse_page(body: Any) -> Page[Item]:
        """The item list; an entry that is no item (a price that is no dollar amount, a
        missing name...) is left out of ``data`` and named in ``refused``."""
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            raise ValueError(_("item list must be {meta, data}"))
        entries: list[Any] = []
        refused: list[Refused] = []
        for entry in body["data"]:
            try:
                entries.append(to_cents(entry))
            except ValueError as error:  # a price that is no dollar amount
                refused.append(Refused(id=_entry_id(entry), reason=str(error)))
        while True:  # the whole page at once (fast); entries pydantic refuses are taken out, and again
            try:
                return Page[Item].model_validate(
                    {**body, "data": entries, "skipped": len(refused), "refused": refused})
            except ValidationError as error:
                bad = _bad_entries(error)
                if not bad:
                    raise  # the page itself (its meta) is wrong, not one of its items
                refused += [Refused(id=_entry_id(entries[index]), reason=why) for index, why in bad.items()]
                entries = [entry for index, entry in enumerate(entries) if index not in bad]

    return parse_one, parse_page


def _bad_entries(error: ValidationError) -> dict[int, str]:
    """Index → problem of each ``data`` entry a page's validation refused; empty when any
    problem lies elsewhere (then the page is wrong, not an entry)."""
    bad: dict[int, str] = {}
    for problem in error.errors():
        loc = problem["loc"]
        if len(loc) < 2 or loc[0] != "data" or not isinstance(loc[1], int):
            return {}
        where = ".".join(str(part) for part in loc[2:])
        bad.setdefault(loc[1], f"{where}: {problem['msg']}" if where else str(problem["msg"]))
    return bad


def _entry_id(entry: Any) -> str | None:
    """The ``id`` of a list entry that could not be read, as text, when it has one."""
    value = entry.get("id") if isinstance(entry, dict) else None
    return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None


parse_item_dollars, parse_item_page = item_parser("item.get")
parse_item_cents = item_parser("item.delete")[0]


def _model[M: BaseModel](model: type[M]) -> Callable[[Any], M]:
    def parse(body: Any) -> M:
        return model.model_validate(unwrap(body))

    return parse


def _success(body: Any) -> bool:
    if not isinstance(body, dict) or not isinstance(body.get("success"), bool):
        raise ValueError(_("expected {success: bool}"))
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
    "item.list": item_parser("item.list")[1],
    "item.ids": parse_ids,
    "item.categories": _list_of(Category),
    "item.get": item_parser("item.get")[0],
    "item.create": item_parser("item.create")[0],
    "item.update": item_parser("item.update")[0],
    "item.delete": item_parser("item.delete")[0],
    "item.duplicate": item_parser("item.duplicate")[0],
    "item.bulk_delete": _success,
    "item.bulk_duplicate": _success,
}
"""One parser per route: decoded JSON in, typed answer out (or an exception)."""

RESPONSE_PARSERS.update(customer_models.PARSERS)
RESPONSE_PARSERS.update(link_models.PARSERS)
RESPONSE_PARSERS.update(attachments.PARSERS)
RESPONSE_PARSERS.update(vault_models.PARSERS)
RESPONSE_PARSERS.update(subscription_models.PARSERS)
RESPONSE_PARSERS.update(charge_models.PARSERS)


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
            # a parser's bug, not the service's
            raise TypeError(f"expected {self.name}, the parser gave {type(value).__name__}")  # not for people
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


PARSE_ON_LOOP_MAX_BYTES = 16_384
"""``PaymentsClient.call`` parses an answer up to this size where it arrives; a bigger one (a
page of items, a big catalog's id list) in a worker thread, so that the event loop, the Qt
thread's, does not wait on decoding and validating it. A poll's answer stays well below."""


def parse_any_answer(
    route_name: str, content: bytes, expect: Expect[Any] | None, *, status_code: int | None = None
) -> object:
    """``parse_answer`` with an ``expect`` that may be None (no check of the answer's type)."""
    if expect is None:
        return parse_answer(route_name, content, status_code=status_code)
    return parse_answer(route_name, content, expect, status_code=status_code)


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
            _("the answer to {route} does not match the contract: {detail}").format(route=route_name, detail=detail),
            raw=content,
            status_code=status_code,
        ) from None
