"""``ChargeService``: the money-moving calls of the service's own payment routes (a card on
file, ACH, a queued bulk charge, the follow-ups of such a payment by its id, and the retry
of a subscription's schedule entry), on the one request path of ``TerminalService``.

Each goes exactly as a terminal sale does: the journal records the attempt before the
request leaves (refused while its order is unknown or paid, while the customer's lane
``vault:<id>`` has an unresolved charge, while the payment has an unresolved follow-up),
the attempt id rides in the user-agent and in ``order.externalId``, the request is never
sent twice (the client does not retry it), a lost answer (timeout, dropped connection, a
5xx after the request left) leaves the attempt ``unknown`` until ``resume`` finds it in
the transaction list by that id, and an unknown holds its order.

What an answer proves (``charge_evidence``): approved only for a payment the answer names
as paid (or held, for a charge not captured), for the amount asked (less is a partial
approval); a decline is a 2xx with ``error`` set, a 501, a 901-906, or a gateway code
(200-264 declined, 300 rejected). A follow-up is approved only when its payment, read
again, shows it (compared with the reading from before it left). A bulk charge journals
one attempt per entry, sends them in one request (the first entry's attempt in the
user-agent, each entry's own in its ``externalId``), then reads the transaction list until
every entry's payment shows or the wait ends (the rest stay ``unknown``: ``resume``). A
subscription retry is proven by its answer, else by its schedule entry read again
(``pos_app.terminal.retries``): nothing carries its attempt id.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pos_app.api.charge_models import (
    AchCharge,
    BulkCharge,
    BulkChargeItem,
    CardCapture,
    CardCharge,
    ChargeAnswer,
    ChargeOrder,
    PaymentRefund,
    PaymentVoid,
    void_reason,
)
from pos_app.api.errors import (
    ChargeRequestError,
    GatewayDeclined,
    InvalidInput,
    PaymentsError,
    ServiceError,
    TransportError,
)
from pos_app.api.subscription_models import EntryStatus, RetryResult
from pos_app.i18n import _
from pos_app.journal import Attempt, JournalError, Operation, Outcome
from pos_app.journal.models import ORDER_OPERATIONS, REF_OPERATIONS
from pos_app.terminal.evidence import ERROR_ANSWER, NO_ANSWER, Evidence, entries_evidence, error_details, for_amount
from pos_app.terminal.lookup import CLOCK_SLACK, attempt_of, read_window
from pos_app.terminal.outcomes import OperationResult, Phase, Refusal, blocking_attempt, refusal_for
from pos_app.terminal.retries import (
    SCHEDULE_ORDER,
    SUBSCRIPTION_LANE,
    EntryNotFound,
    answer_evidence,
    entry_evidence,
    read_entry,
)
from pos_app.terminal.service import Send, TerminalService

BULK_POLL_INTERVAL = 0.25
"""Seconds between two reads of the transaction list while a bulk charge's payments are made."""
GATEWAY_DECLINE_CODES = frozenset({str(code) for code in range(200, 265)} | {"300"})
"""Gateway codes (``response.code``) of a decline (200-264) or a rejection (300)."""
CHARGE_LANE = "vault:{}"
"""The journal's "terminal" of a charge from a customer's vault: one charge in flight per customer."""
CARD_LANE = "card"
"""The journal's "terminal" of a charge of a card given in the request."""
PAYMENT_LANE = "payment:{}"
"""The journal's "terminal" of a capture, void or refund of a payment by its id."""


def on_service_routes(terminal_id: str) -> bool:
    """Whether a charge made on the journal's ``terminal_id`` went through the service's card
    charge route (a card on file, a card given): its void and refund go there too, by its
    payment id, never to a terminal."""
    return terminal_id == CARD_LANE or terminal_id.startswith(CHARGE_LANE.format(""))


@dataclass(frozen=True)
class BulkRow:
    """One entry of a bulk charge: ``amount`` cents to ``customer_id``'s default card, for
    ``order_key`` (the order it pays: never charged twice)."""

    customer_id: str
    amount: int
    order_key: str


def charge_evidence(answer: ChargeAnswer, operation: Operation, asked: int, *, held: bool) -> Evidence:
    """A charge's 2xx answer: approved when it names a payment that is paid (``held``: a
    charge not captured, also one in status ``auth``), judged for the amount asked; a stated
    decline is declined; anything else proves nothing (the payment is read next)."""
    card = answer.card
    details = {k: v for k, v in {
        "payment_id": answer.id, "transaction_id": answer.transaction_id, "amount": answer.amount,
        "card_last4": card.last4 if card else None, "card_brand": (card.brand or card.network) if card else None,
    }.items() if v is not None}
    if answer.declined:
        return Evidence(Outcome.DECLINED, {**details, "gateway_text": answer.decline_text})
    if not answer.id:
        return Evidence(None, details, _("the answer names no payment"))
    if answer.paid is True or (held and answer.status == "auth"):
        return for_amount(Evidence(Outcome.APPROVED, details), operation, asked)
    return Evidence(None, details, _("payment {payment} is neither paid nor declined (paid {paid!r}, status "
                                     "{status!r})").format(payment=answer.id, paid=answer.paid, status=answer.status))


def charge_decline(error: PaymentsError) -> bool:
    """A refusal of a charge that is a decline: 901-906, or a gateway decline code."""
    if isinstance(error, ChargeRequestError):
        return True
    return isinstance(error, ServiceError) and error.code in GATEWAY_DECLINE_CODES


class ChargeService(TerminalService):
    """``TerminalService`` with the service's payment routes; see the module docstring."""

    # ------------------------------------------------------------ card payments

    async def card_charge(self, request: CardCharge, *, order_key: str | None = None) -> OperationResult:
        """Charge a card on file (``request.customer_id``) or a card; ``order_key`` guards the
        order against a second charge while this one is unknown or approved."""
        lane = CHARGE_LANE.format(request.customer_id) if request.customer_id else CARD_LANE
        return await self._charge(Operation.CARD_CHARGE, lane, request.amount, request.wire(), order_key,
                                  lambda attempt_id: self.client.cards.charge(request.with_external_id(attempt_id),
                                                                              attempt_id=attempt_id))

    async def card_capture(self, payment_id: str, amount: int) -> OperationResult:
        request = CardCapture(paymentId=payment_id, amount=amount)
        return await self._follow_up(Operation.CARD_CAPTURE, payment_id, request.wire(), amount,
                                     lambda attempt_id: self.client.cards.capture(request, attempt_id=attempt_id))

    async def card_void(self, payment_id: str, reason: str) -> OperationResult:
        request = PaymentVoid(paymentId=payment_id, reason=void_reason(reason))
        return await self._follow_up(Operation.CARD_VOID, payment_id, request.wire(), None,
                                     lambda attempt_id: self.client.cards.void(request, attempt_id=attempt_id))

    async def card_refund(self, payment_id: str, amount: int, reason: str) -> OperationResult:
        request = PaymentRefund(paymentId=payment_id, amount=amount, reason=reason)
        return await self._follow_up(Operation.CARD_REFUND, payment_id, request.wire(), amount,
                                     lambda attempt_id: self.client.cards.refund(request, attempt_id=attempt_id))

    # ------------------------------------------------------------ ACH

    async def ach_charge(self, request: AchCharge, *, order_key: str | None = None) -> OperationResult:
        last4 = request.ach_data.last4 if request.ach_data else None
        lane = CHARGE_LANE.format(request.customer_id) if request.customer_id else f"ach:{last4 or 'account'}"
        return await self._charge(Operation.ACH_CHARGE, lane, request.amount, request.journaled(), order_key,
                                  lambda attempt_id: self.client.ach.charge(request.with_external_id(attempt_id),
                                                                            attempt_id=attempt_id))

    async def ach_refund(self, payment_id: str, amount: int, reason: str) -> OperationResult:
        request = PaymentRefund(paymentId=payment_id, amount=amount, reason=reason)
        return await self._follow_up(Operation.ACH_REFUND, payment_id, request.wire(), amount,
                                     lambda attempt_id: self.client.ach.refund(request, attempt_id=attempt_id))

    async def ach_void(self, payment_id: str, reason: str) -> OperationResult:
        request = PaymentVoid(paymentId=payment_id, reason=void_reason(reason))
        return await self._follow_up(Operation.ACH_VOID, payment_id, request.wire(), None,
                                     lambda attempt_id: self.client.ach.void(request, attempt_id=attempt_id))

    # ------------------------------------------------------------ subscription retry

    async def subscription_retry(self, schedule_id: str, *, subscription_id: str | None = None) -> OperationResult:
        """Charge a subscription's unpaid schedule entry again, now (``pos_app.terminal.retries``):
        the entry is read first (its amount, its subscription, how it stands); its order
        ``schedule:<id>`` is refused after an approval and while a retry of it is unknown."""
        operation, order_key = Operation.SUBSCRIPTION_RETRY, SCHEDULE_ORDER.format(schedule_id)
        try:
            reading = await read_entry(self.client, schedule_id, subscription_id)
        except (EntryNotFound, InvalidInput) as error:
            return OperationResult(Outcome.FAILED, operation, SUBSCRIPTION_LANE.format(subscription_id or "?"),
                                   order_key=order_key, message=_("nothing was sent: {reason}").format(reason=error),
                                   refusal=Refusal.INVALID_INPUT)
        except PaymentsError as error:
            return OperationResult(Outcome.FAILED, operation, SUBSCRIPTION_LANE.format(subscription_id or "?"),
                                   order_key=order_key, refusal=Refusal.SERVICE_UNREACHABLE,
                                   message=_("nothing was sent: the entry could not be read ({error})").format(
                                       error=error))
        lane, entry = SUBSCRIPTION_LANE.format(reading.subscription_id), reading.entry
        if not entry.amount:
            return OperationResult(Outcome.FAILED, operation, lane, order_key=order_key, refusal=Refusal.INVALID_INPUT,
                                   message=_("not sent: schedule entry {entry} states no amount to charge").format(
                                       entry=schedule_id))
        if entry.status is EntryStatus.PAID:  # its unknown retry, if any, is looked at: most likely what paid it
            settled = await self._settle_blockers(operation, lane, order_key, None)
            return OperationResult(Outcome.FAILED, operation, lane, amount=entry.amount, order_key=order_key,
                                   recovered=tuple(result for __, result in settled), refusal=Refusal.ORDER_PAID,
                                   message=_("not sent: schedule entry {entry} is already paid").format(
                                       entry=schedule_id))
        body = {"scheduleId": schedule_id, "subscriptionId": reading.subscription_id, "amount": entry.amount,
                "entry_before": reading.before()}
        return await self._run(operation, lane, body, amount=entry.amount, order_key=order_key,
                               send=lambda attempt_id: self.client.subscriptions.retry(schedule_id,
                                                                                       attempt_id=attempt_id))

    async def _settle_retry(self, attempt: Attempt, result: RetryResult) -> OperationResult:
        await self.reader.note(attempt.id, "answer" if result.answered else NO_ANSWER, {
            "outcome": result.outcome.value, **({"reason": result.reason} if result.reason else {})})
        evidence = answer_evidence(result, attempt)
        if evidence.outcome is None and result.answered:  # a 5xx: the entry says whether it was charged
            try:
                evidence = await entry_evidence(self.client, attempt, answered=True,
                                                settle=self.reader.follow_up_settle)
            except PaymentsError as error:
                evidence = Evidence(None, evidence.details, _("the entry could not be read again: {error}").format(
                    error=error))
        if evidence.outcome is None:
            return await self.outcomes.finish(attempt, Outcome.UNKNOWN, {**evidence.details, "message": _(
                "{reason}; `pos-app terminal resume` reads the entry again (never retry it again)").format(
                    reason=evidence.note)})
        return await self.outcomes.finish_evidence(attempt, evidence)

    # ------------------------------------------------------------ the request path

    async def _charge(self, operation: Operation, lane: str, amount: int, body: dict[str, Any],
                      order_key: str | None, send: Send) -> OperationResult:
        return await self._run(operation, lane, body, send=send, amount=amount, order_key=order_key)

    async def _follow_up(self, operation: Operation, payment_id: str, body: dict[str, Any], amount: int | None,
                         send: Send) -> OperationResult:
        return await self._run(operation, PAYMENT_LANE.format(payment_id), body, send=send, amount=amount,
                               ref=payment_id, payment_id=payment_id)

    async def _settle_sent(
        self, attempt: Attempt, send: Send, before: dict[str, Any] | None, started: float
    ) -> OperationResult:
        if attempt.operation.acts_as is attempt.operation:  # a terminal operation: as it always was
            return await super()._settle_sent(attempt, send, before, started)
        try:
            answer = await send(attempt.id)
        except PaymentsError as error:
            return await self._settle_error(attempt, error, before)
        except Exception as error:  # a bug must not lose the attempt: it stays resumable
            return await self.outcomes.finish(attempt, Outcome.UNKNOWN,
                                              {"message": _("internal error: {error}").format(
                                                  error=type(error).__name__)})
        if isinstance(answer, RetryResult):
            return await self._settle_retry(attempt, answer)
        assert isinstance(answer, ChargeAnswer)
        await self.reader.note(attempt.id, "answer", {k: v for k, v in {
            "paymentId": answer.of_payment, "transactionId": answer.transaction_id, "amount": answer.amount,
            "status": answer.status}.items() if v is not None})
        if attempt.operation in REF_OPERATIONS:  # proven only by the payment, read again
            evidence = await self.reader.payment_evidence(attempt, answer.of_payment or str(attempt.ref), before,
                                                          answered=True)
            return await self.outcomes.finish_evidence(attempt, evidence)
        assert attempt.amount is not None
        evidence = charge_evidence(answer, attempt.operation, attempt.amount,
                                   held=attempt.request.get("capture") is False)
        if evidence.outcome is None and answer.id:
            evidence = await self.reader.payment_evidence(attempt, answer.id, None, answered=True)
        return await self.outcomes.finish_evidence(attempt, await self.reader.with_card(attempt, evidence))

    async def _settle_error(
        self, attempt: Attempt, error: PaymentsError, before: dict[str, Any] | None
    ) -> OperationResult:
        operation = attempt.operation
        if operation.acts_as is not operation and not isinstance(error, (TransportError, InvalidInput)):
            answered = {"error": type(error).__name__, "status": getattr(error, "status_code", None)}
            if operation in ORDER_OPERATIONS and charge_decline(error):
                await self.reader.note(attempt.id, ERROR_ANSWER, answered)
                details = error_details(error)
                if isinstance(error, ChargeRequestError):
                    details["gateway_text"] = error.meaning
                return await self.outcomes.finish(attempt, Outcome.DECLINED, details)
            refused_here = operation in REF_OPERATIONS or operation is Operation.SUBSCRIPTION_RETRY
            if refused_here and isinstance(error, ServiceError) and error.status_code == 400:
                await self.reader.note(attempt.id, ERROR_ANSWER, answered)  # the payment's state refused it
                return await self.outcomes.finish(attempt, Outcome.FAILED, {"message": error.text or str(error)},
                                                  refusal=Refusal.SERVICE_REFUSED)
            if isinstance(error, GatewayDeclined) and isinstance(error.result, ChargeAnswer):
                await self.reader.note(attempt.id, ERROR_ANSWER, answered)
                return await self.outcomes.finish(attempt, Outcome.DECLINED, {
                    **error_details(error), **({"payment_id": error.result.id} if error.result.id else {})})
        return await super()._settle_error(attempt, error, before)

    # ------------------------------------------------------------ bulk charge

    async def bulk_charge(self, rows: Sequence[BulkRow], *, wait_limit: float | None = None) -> list[OperationResult]:
        """Charge each row's customer (its default card), journaled row by row, sent as one
        queued bulk charge; then read back until each row's payment shows. A row the journal
        refuses (its order paid or unknown) is not sent; the others are."""
        items = [BulkChargeItem(amount=row.amount, customerVaultId=row.customer_id) for row in rows]
        begun: list[tuple[int, Attempt]] = []
        results: dict[int, OperationResult] = {}
        for index, (row, item) in enumerate(zip(rows, items, strict=True)):
            lane = CHARGE_LANE.format(row.customer_id)
            await self._settle_blockers(Operation.CARD_CHARGE, lane, row.order_key, None)
            try:
                attempt = await self.journal.begin_attempt(
                    operation=Operation.CARD_CHARGE, terminal_id=lane, gateway=self.gateway, amount=row.amount,
                    order_key=row.order_key, request={**item.wire(), "bulk": True}, cashier=self._cashier())
            except JournalError as refusal:
                results[index] = OperationResult(Outcome.FAILED, Operation.CARD_CHARGE, lane, amount=row.amount,
                                                 order_key=row.order_key, message=str(refusal),
                                                 refusal=refusal_for(refusal), blocked_by=blocking_attempt(refusal))
                continue
            begun.append((index, attempt))
        sendable: list[tuple[int, Attempt]] = []
        for index, attempt in begun:
            try:
                await self.journal.mark_sent(attempt.id)
            except JournalError as error:
                await self.outcomes.try_finish(attempt, Outcome.FAILED, {
                    "message": _("not sent: {reason}").format(reason=error)})
                results[index] = OperationResult.from_attempt(await self.journal.get(attempt.id),
                                                              _("nothing was sent: {reason}").format(reason=error),
                                                              refusal=refusal_for(error))
                continue
            sendable.append((index, attempt))
        if sendable:
            results.update(await self._send_bulk(sendable, items, wait_limit))
        return [results[index] for index in range(len(rows))]

    async def _send_bulk(self, sendable: list[tuple[int, Attempt]], items: list[BulkChargeItem],
                         wait_limit: float | None) -> dict[int, OperationResult]:
        request = BulkCharge(payments=[
            items[index].model_copy(update={"order": ChargeOrder(externalId=attempt.id)})
            for index, attempt in sendable])
        self._active.update(attempt.id for __, attempt in sendable)
        try:
            try:
                await self.client.cards.bulk_charge(request, attempt_id=sendable[0][1].id)
            except PaymentsError as error:
                proven = (isinstance(error, TransportError) and not error.request_sent) or isinstance(
                    error, InvalidInput) or (isinstance(error, ServiceError) and error.status_code == 400)
                if proven:  # nothing was queued: every row failed, nothing moved
                    return {index: await self.outcomes.finish(attempt, Outcome.FAILED, {"message": str(error)},
                                                              refusal=Refusal.SERVICE_REFUSED)
                            for index, attempt in sendable}
                for __, attempt in sendable:
                    await self.reader.note(attempt.id, NO_ANSWER, {"error": type(error).__name__})
            return await self._read_back(sendable, self.wait_limit if wait_limit is None else wait_limit)
        finally:
            self._active.difference_update(attempt.id for __, attempt in sendable)

    async def _read_back(self, sendable: list[tuple[int, Attempt]], wait_limit: float) -> dict[int, OperationResult]:
        """Read the transaction list until every row's payment shows, or ``wait_limit`` ends."""
        waiting = dict(sendable)
        results: dict[int, OperationResult] = {}
        since = min(attempt.created_at for attempt in waiting.values()) - CLOCK_SLACK
        deadline = time.monotonic() + wait_limit
        for attempt in waiting.values():
            self._progress(attempt, Phase.CHECKING, None)
        while waiting:
            try:
                window = await read_window(self.client, since)
            except PaymentsError:
                window = None
            for index, attempt in list(waiting.items()):
                found = [] if window is None else [e for e in window.entries if attempt_of(e) == attempt.id]
                evidence = entries_evidence(found, attempt.operation, attempt.amount)
                if evidence.outcome is not None:
                    results[index] = await self.outcomes.finish_evidence(attempt, evidence)
                    del waiting[index]
            if not waiting or time.monotonic() >= deadline:
                break
            await asyncio.sleep(min(BULK_POLL_INTERVAL, max(0.0, deadline - time.monotonic())))
        for index, attempt in waiting.items():
            results[index] = await self.outcomes.finish(attempt, Outcome.UNKNOWN, {
                "message": _("queued, but its payment is not in the service's transactions yet: "
                             "`pos-app terminal resume` finds it (never charge it again)")})
        return results
