"""``PaymentsClient``: the app's one connection to the Merchant Payments Service.

One ``httpx.AsyncClient`` per app with explicit timeouts; the ``key-hash`` header on
every call; a ``user-agent`` naming app version, store, station and cashier, plus the
attempt id on every request that may move money (pos-contract.md, "Headers").

Retry policy: GETs are retried on connection failures, timeouts, 429 (honouring
Retry-After) and 5xx, with jittered exponential backoff. A request that may move money
(``Route.moves_money``) is NEVER retried here: its failure goes to the caller, who
decides (the terminal service journals it as unknown and looks it up, never resends).
Message polls are not retried either: the poll scheduler paces them itself.

Errors are the tree of ``pos_app.api.errors``; answers are the models of
``pos_app.api.models``. Every typed method names the answer type it expects
(``pos_app.api.parsing.Expect``): mypy checks it, and ``call`` verifies it at run time
(``ProtocolError`` on a mismatch).

Retry decisions are logged (logger ``pos_app.api.client``, INFO): each retry with its
route, try number, delay and reason, and each refusal to retry a money-moving request.
Never a header, so never the key-hash.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, overload

import httpx

from pos_app.api.ach import AchPayments
from pos_app.api.address import check_base_url
from pos_app.api.caller import RawAnswer
from pos_app.api.card_payments import CardPayments
from pos_app.api.customers import CustomerVaults
from pos_app.api.errors import (
    ConnectionFailed,
    GatewayDeclined,
    InvalidInput,
    InvalidKeyHash,
    RequestNotBuilt,
    TimedOut,
    error_from_answer,
    parse_retry_after,
)
from pos_app.api.identity import Identity
from pos_app.api.links import PaymentLinks
from pos_app.api.models import (
    Category,
    CloseBatchResult,
    Item,
    MessageStatus,
    Page,
    PayAccepted,
    Payment,
    SurchargeQuote,
    Tax,
    TerminalList,
    TerminalResult,
    TransactionEntry,
)
from pos_app.api.money import require_cents
from pos_app.api.multipart import EncodedBody
from pos_app.api.parsing import PARSE_ON_LOOP_MAX_BYTES, either, instance, list_of, page_of, parse_any_answer
from pos_app.api.parsing import Expect as Expect
from pos_app.api.requests import CaptureRequest, CloseBatchRequest, ItemDraft, PayRequest, RefundRequest, VoidRequest
from pos_app.api.routes import Route, RouteTable
from pos_app.api.secrets import Redactor, check_key_hash
from pos_app.api.subscriptions import Subscriptions
from pos_app.api.uploads import SubscriptionAttachments
from pos_app.api.wire import encode_json
from pos_app.i18n import _

log = logging.getLogger(__name__)

PAY_ANSWER = either(PayAccepted, TerminalResult)
RESULT = instance(TerminalResult)


@dataclass(frozen=True)
class RetryPolicy:
    """How GETs are retried: ``attempts`` tries in all, backoff doubling from ``base_delay``."""

    attempts: int = 3
    base_delay: float = 0.2
    max_delay: float = 5.0

    def delay(self, retry_number: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay * 6)
        ceiling = min(self.max_delay, self.base_delay * (2 ** (retry_number - 1)))
        return random.uniform(ceiling / 2, ceiling)


class PaymentsClient:
    """Async client of the payments service. Use one per app; close it with ``aclose``."""

    def __init__(
        self,
        base_url: str,
        key_hash: str,
        *,
        identity: Identity = Identity(),
        routes: RouteTable | None = None,
        connect_timeout: float = 5.0,
        read_timeout: float = 30.0,
        retry: RetryPolicy = RetryPolicy(),
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not key_hash:
            raise InvalidKeyHash(_("no key-hash configured: set it in the OS keyring or POS_KEY_HASH"))
        check_key_hash(key_hash)
        self.redactor = Redactor([key_hash])
        self.base_url = check_base_url(base_url)
        self.identity = identity
        self.routes = routes or RouteTable()
        self.retry = retry
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers={"key-hash": key_hash, "accept": "application/json"},
            timeout=httpx.Timeout(read_timeout, connect=connect_timeout),
            follow_redirects=False,
            transport=transport,
        )

    def __repr__(self) -> str:  # never shows the key
        return f"PaymentsClient({self.base_url!r}, identity={self.identity!r})"

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> PaymentsClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ------------------------------------------------------------ transport

    @overload
    async def call(
        self,
        route_name: str,
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        attempt_id: str | None = None,
        retry: bool | None = None,
    ) -> object: ...

    @overload
    async def call[R](
        self,
        route_name: str,
        expect: Expect[R],
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        attempt_id: str | None = None,
        retry: bool | None = None,
    ) -> R: ...

    async def call(
        self,
        route_name: str,
        expect: Expect[Any] | None = None,
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        attempt_id: str | None = None,
        retry: bool | None = None,
    ) -> object:
        """Send one operation and return its parsed answer, or raise from the error tree.

        With ``expect`` the answer is checked to be of that type (``ProtocolError`` if not)
        and typed as such; without it the answer is an ``object`` to narrow yourself.
        An answer bigger than ``PARSE_ON_LOOP_MAX_BYTES`` is parsed in a worker thread.
        """
        route = self.routes[route_name]
        if route.moves_money and not attempt_id:
            # not for people: a caller's bug
            raise ValueError(f"{route_name} may move money: it needs an attempt id")  # not for people
        response = await self._send(route, path_params or {}, query, body, attempt_id, retry)
        content = response.content
        if not content.startswith(b"%PDF"):  # a receipt is binary: nothing to echo there
            content = self.redactor.content(content)  # a service that echoes the key-hash
        if not 200 <= response.status_code < 300:
            raise error_from_answer(response.status_code, content, response.headers.get("retry-after"))
        if len(content) <= PARSE_ON_LOOP_MAX_BYTES:
            return parse_any_answer(route_name, content, expect, status_code=response.status_code)
        return await asyncio.to_thread(parse_any_answer, route_name, content, expect, status_code=response.status_code)

    async def _send(
        self,
        route: Route,
        path_params: Mapping[str, str],
        query: Mapping[str, Any] | None,
        body: Any,
        attempt_id: str | None,
        retry: bool | None,
    ) -> httpx.Response:
        try:
            path = route.format(**path_params)
        except ValueError as error:
            raise InvalidInput(str(error)) from None
        request = self._build(route, path, query, body, attempt_id)
        may_retry = (route.method == "GET" and not route.moves_money) if retry is None else retry
        tries = self.retry.attempts if may_retry and not route.moves_money else 1
        for number in range(1, tries + 1):
            last = number == tries
            try:
                response = await self._http.send(request)
            except httpx.HTTPError as error:
                if isinstance(error, NOT_SENT):
                    raise RequestNotBuilt(self._not_built(route, error)) from error
                reason = type(error).__name__
                if route.moves_money:
                    log.info("not retrying %s after %s: it may move money; the caller looks the outcome up",
                             route.name, reason)
                if last:
                    if tries > 1:
                        log.info("giving up on %s after %d tries (last: %s)", route.name, tries, reason)
                    raise _transport_error(route, error) from None
                delay = self.retry.delay(number)
                log.info("retrying %s: try %d of %d failed with %s; next in %.2fs",
                         route.name, number, tries, reason, delay)
                await asyncio.sleep(delay)
                continue
            if not _retryable_status(response.status_code):
                return response
            if route.moves_money:
                log.info("not retrying %s after status %d: it may move money", route.name, response.status_code)
                return response
            if last:
                if tries > 1:
                    log.info("giving up on %s after %d tries (last: status %d)", route.name, tries,
                             response.status_code)
                return response
            wait = parse_retry_after(response.headers.get("retry-after")) if response.status_code == 429 else None
            delay = self.retry.delay(number, wait)
            log.info("retrying %s: try %d of %d answered status %d; next in %.2fs",
                     route.name, number, tries, response.status_code, delay)
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _build(
        self, route: Route, path: str, query: Mapping[str, Any] | None, body: Any, attempt_id: str | None
    ) -> httpx.Request:
        """The request as it will leave (headers encoded, body as JSON, an ``EncodedBody`` as
        it is); ``RequestNotBuilt`` when it cannot be built: nothing was sent."""
        headers = {"user-agent": self.identity.user_agent(attempt_id if route.moves_money else None)}
        params = {k: v for k, v in (query or {}).items() if v is not None}
        try:
            content = None
            if isinstance(body, EncodedBody):  # a file upload (multipart)
                content = body.content
                headers["content-type"] = body.content_type
            elif body is not None:
                content = encode_json(body)
                headers["content-type"] = "application/json"
            return self._http.build_request(route.method, path, params=params, content=content, headers=headers)
        except (httpx.HTTPError, httpx.InvalidURL, ValueError, TypeError) as error:  # UnicodeError is a ValueError
            raise RequestNotBuilt(self._not_built(route, error)) from error

    async def exchange(
        self,
        route_name: str,
        *,
        path_params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: EncodedBody | None = None,
    ) -> RawAnswer:
        """An operation whose answer is not JSON (a CSV) or is read by the caller (the answer
        to a multipart upload: ``body`` from ``multipart.form_files``). Same headers, retries and
        error tree as ``call``; a 2xx answer comes back as it came (the key-hash taken out),
        for the caller to parse. Never for a route that moves money."""
        route = self.routes[route_name]
        if route.moves_money:
            # not for people: a caller's bug
            raise ValueError(f"{route_name} may move money: use call with an attempt id")  # not for people
        response = await self._send(route, path_params or {}, query, body, None, None)
        content = self.redactor.content(response.content)
        if not 200 <= response.status_code < 300:
            raise error_from_answer(response.status_code, content, response.headers.get("retry-after"))
        return RawAnswer(response.status_code, response.headers.get("content-type", ""), content)

    def _not_built(self, route: Route, error: Exception) -> str:
        detail = self.redactor.text(str(error))[:200]
        return _("{route}: the request could not be built ({error}: {detail}); nothing was sent").format(
            route=f"{route.method} {route.path}", error=type(error).__name__, detail=detail)

    # ------------------------------------------------------------ families

    @functools.cached_property
    def customers(self) -> CustomerVaults:
        """Customer vaults (list, create, view, update, delete, cards)."""
        return CustomerVaults(self)

    @functools.cached_property
    def links(self) -> PaymentLinks:
        """Payment links on the dated routes (202104): list, create, view, delete, send, attachments."""
        return PaymentLinks(self, "link")

    @functools.cached_property
    def old_links(self) -> PaymentLinks:
        """Payment links on the deprecated routes (whole dollars in, dollars out: converted)."""
        return PaymentLinks(self, "old_link")

    @functools.cached_property
    def subscription_attachments(self) -> SubscriptionAttachments:
        """Files for a subscription's ``attachments`` (checked against the limits first)."""
        return SubscriptionAttachments(self)

    @functools.cached_property
    def subscriptions(self) -> Subscriptions:
        """Subscriptions (list, create, get, update, cancel, pause, resume, retry)."""
        return Subscriptions(self)

    @functools.cached_property
    def cards(self) -> CardPayments:
        """Card payments: charge (a card on file too), capture, void, refund, bulk charge."""
        return CardPayments(self)

    @functools.cached_property
    def ach(self) -> AchPayments:
        """ACH payments: charge, refund, void, list."""
        return AchPayments(self)

    # ------------------------------------------------------------ terminals

    async def list_terminals(
        self, *, page: int | None = None, limit: int | None = None, timezone: str | None = None
    ) -> TerminalList:
        return await self.call(
            "terminal.list", instance(TerminalList), query={"page": page, "limit": limit, "timezone": timezone}
        )

    async def pay(self, request: PayRequest, *, attempt_id: str) -> PayAccepted | TerminalResult:
        """Sale. Type S answers ``PayAccepted`` (poll it); type B answers the result.

        A result with an error flag raises ``GatewayDeclined``; any other result is
        returned as it came: read ``TerminalResult.proves_approval`` before trusting it.
        """
        return await self._terminal("terminal.pay", PAY_ANSWER, request.wire(), attempt_id)

    async def auth(self, request: PayRequest, *, attempt_id: str) -> PayAccepted | TerminalResult:
        """Pre-auth: reserves funds; settle later with ``capture``."""
        return await self._terminal("terminal.auth", PAY_ANSWER, request.wire(), attempt_id)

    async def poll_message(self, message_id: str) -> MessageStatus:
        """One poll of a type S message (not retried: the poll scheduler paces polls)."""
        return await self.call(
            "terminal.poll_message", instance(MessageStatus), path_params={"messageId": message_id}, retry=False
        )

    async def capture(self, request: CaptureRequest, *, attempt_id: str) -> TerminalResult:
        return await self._terminal("terminal.capture", RESULT, request.wire(), attempt_id)

    async def void(self, request: VoidRequest, *, attempt_id: str) -> TerminalResult:
        return await self._terminal("terminal.void", RESULT, request.wire(), attempt_id)

    async def refund(self, request: RefundRequest, *, attempt_id: str) -> TerminalResult:
        return await self._terminal("terminal.refund", RESULT, request.wire(), attempt_id)

    async def close_batch(
        self, request: CloseBatchRequest, *, attempt_id: str, by_serial: bool = False
    ) -> CloseBatchResult:
        """Close the open batch. A 2xx that does not say success raises ``GatewayDeclined``."""
        route = "terminal.close_batch_by_serial" if by_serial else "terminal.close_batch"
        result = await self.call(route, instance(CloseBatchResult), body=request.wire(), attempt_id=attempt_id)
        if not result.success:
            raise GatewayDeclined(200, text=result.message or _("batch not closed"), result=result)
        return result

    async def _terminal[R](self, route_name: str, expect: Expect[R], body: dict[str, Any], attempt_id: str) -> R:
        result = await self.call(route_name, expect, body=body, attempt_id=attempt_id)
        if isinstance(result, TerminalResult) and result.error:
            raise GatewayDeclined(
                200,
                code=result.gw_response.result_code if result.gw_response else None,
                text=result.gateway_text or "declined",
                transaction_id=result.transaction_id,
                result=result,
            )
        return result

    # ------------------------------------------------------------ payments

    async def get_payment(self, payment_id: str) -> Payment:
        return await self.call("payment.get", instance(Payment), path_params={"id": payment_id})

    async def list_transactions(
        self, *, page: int | None = None, limit: int | None = None, retry: bool | None = None, **filters: Any
    ) -> Page[TransactionEntry]:
        """One page of transactions; entries that are not objects are counted in ``skipped``.
        ``retry=False``: one try (a read worth nothing once late, as the poll hints)."""
        return await self.call(
            "transactions.list", page_of(TransactionEntry), query={"page": page, "limit": limit, **filters},
            retry=retry,
        )

    async def receipt_pdf(self, payment_id: str, *, for_merchant: bool = True) -> bytes:
        """The receipt as PDF bytes (checked to start with ``%PDF``)."""
        if not payment_id or not payment_id.strip():
            raise InvalidInput(_("paymentId must be a non-empty id"))
        return await self.call(
            "receipt.pdf", instance(bytes), body={"paymentId": payment_id, "isForMerchant": for_merchant}
        )

    async def surcharge_rate(
        self, amount: int, *, bin_card: str | None = None, token_id: str | None = None
    ) -> SurchargeQuote:
        require_cents(amount, maximum=99_999_999)
        return await self.call(
            "surcharge.rate",
            instance(SurchargeQuote),
            query={"amount": amount, "binCard": bin_card, "tokenId": token_id},
        )

    async def surcharge_acknowledgment(self) -> list[str]:
        """The merchant's surcharge disclosure, one paragraph per entry, rate filled in."""
        return await self.call("surcharge.acknowledgment", list_of(str), query={"type": "json"})

    async def taxes(self) -> list[Tax]:
        return await self.call("tax.list", list_of(Tax))

    # ------------------------------------------------------------ catalog

    async def list_items(self, *, page: int | None = None, limit: int | None = None) -> Page[Item]:
        return await self.call("item.list", page_of(Item), query={"page": page, "limit": limit})

    async def item_ids(self) -> list[str]:
        return await self.call("item.ids", list_of(str))

    async def categories(self) -> list[Category]:
        return await self.call("item.categories", list_of(Category))

    async def get_item(self, item_id: str) -> Item:
        return await self.call("item.get", instance(Item), path_params={"id": item_id})

    async def create_item(self, draft: ItemDraft) -> Item:
        return await self.call("item.create", instance(Item), body=draft.wire())

    async def update_item(self, item_id: str, draft: ItemDraft) -> Item:
        """Update, then read the item back: the service answers with the item BEFORE the update."""
        await self.call("item.update", instance(Item), path_params={"id": item_id}, body=draft.wire())
        return await self.get_item(item_id)

    async def delete_item(self, item_id: str) -> Item:
        return await self.call("item.delete", instance(Item), path_params={"id": item_id})

    async def duplicate_item(self, item_id: str) -> Item:
        return await self.call("item.duplicate", instance(Item), path_params={"id": item_id})

    async def bulk_delete_items(self, item_ids: list[str], *, created_by: str) -> bool:
        return await self.call("item.bulk_delete", instance(bool), body=_bulk(item_ids, created_by))

    async def bulk_duplicate_items(self, item_ids: list[str], *, created_by: str) -> bool:
        return await self.call("item.bulk_duplicate", instance(bool), body=_bulk(item_ids, created_by))


def _bulk(item_ids: list[str], created_by: str) -> dict[str, Any]:
    if not item_ids or not all(isinstance(i, str) and i.strip() for i in item_ids):
        raise InvalidInput(_("itemList needs at least one item id, none empty"))
    if not created_by.strip():
        raise InvalidInput(_("createdBy (the user name) is required"))
    return {"itemList": list(item_ids), "createdBy": created_by}


def _retryable_status(status: int) -> bool:
    return status == 429 or (500 <= status < 600 and status != 501)


NOT_SENT = (httpx.LocalProtocolError, httpx.UnsupportedProtocol)
"""Errors httpx raises before the request's bytes leave: h11 refuses to write an event it
finds invalid (a header value with a line break, a body longer than declared) before
writing it, and an unsupported URL scheme is refused before connecting. So a request
that ends in one of them was certainly not processed."""


def _transport_error(route: Route, error: httpx.HTTPError) -> Exception:
    where = f"{route.method} {route.path}"
    if isinstance(error, (httpx.ConnectTimeout, httpx.PoolTimeout)):
        return TimedOut(_("{route}: could not connect in time").format(route=where), request_sent=False)
    if isinstance(error, httpx.ConnectError):
        return ConnectionFailed(_("{route}: could not connect to the service").format(route=where), request_sent=False)
    if isinstance(error, httpx.TimeoutException):
        return TimedOut(_("{route}: no answer in time (the request may have been processed)").format(route=where),
                        request_sent=True)
    if isinstance(error, (httpx.NetworkError, httpx.RemoteProtocolError)):
        return ConnectionFailed(
            _("{route}: the connection broke before the answer arrived (the request may have been processed)").format(
                route=where),
            request_sent=True,
        )
    return ConnectionFailed(f"{where}: {type(error).__name__}", request_sent=True)
