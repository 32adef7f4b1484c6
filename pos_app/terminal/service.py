"""``TerminalService``: sale, pre-auth, capture, void, refund and close batch, crash-safe.

Every money-moving request goes through ``_run``: the journal records the attempt
durably before the request leaves, the answer (or its absence) is classified into
exactly one outcome, and the outcome is journaled. Nothing here ever resends a request:

- type S (asynchronous): pay/auth answer a ``msgIdentifier``; the message is polled
  through the shared ``PollScheduler`` until complete/failed or the wait limit, then the
  payment is read to tell approved from declined. A message still in ``timeout`` or
  ``processing`` at the limit is ``unknown`` and keeps its msgIdentifier for ``resume``;
- type B (synchronous): the answer is the outcome; a decline may be a 2xx with
  ``error: true`` or status 501;
- a request that left but got no usable answer is ``unknown``; ``resume`` polls its
  message again or finds it in the transaction list by the attempt id its user-agent
  carried; a manager can settle it with ``resolve``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Awaitable, Callable

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import (
    GatewayDeclined,
    PaymentsError,
    ProtocolError,
    ServerError,
    TransportError,
)
from pos_app.api.models import (
    CaptureRequest,
    CloseBatchRequest,
    CloseBatchResult,
    PayAccepted,
    Payment,
    PayRequest,
    RefundRequest,
    TerminalResult,
    TransactionEntry,
    VoidRequest,
)
from pos_app.journal import Attempt, Journal, JournalError, Operation, Outcome
from pos_app.terminal.lookup import find_attempt
from pos_app.terminal.outcomes import OperationResult, Progress
from pos_app.terminal.poller import PollScheduler

log = logging.getLogger(__name__)

FINAL_MESSAGE_STATES = {"complete", "failed"}
DEFAULT_WAIT_LIMIT = 180.0

ProgressListener = Callable[[Progress], None]


class TerminalService:
    """Runs terminal operations for one merchant key, journaling every attempt."""

    def __init__(
        self,
        client: PaymentsClient,
        journal: Journal,
        *,
        gateway: str = "auto",
        wait_limit: float = DEFAULT_WAIT_LIMIT,
        on_progress: ProgressListener | None = None,
        scheduler: PollScheduler | None = None,
    ) -> None:
        self.client = client
        self.journal = journal
        self.gateway = {"s": "S", "b": "B"}.get(gateway.lower(), "auto")
        self.wait_limit = wait_limit
        self.on_progress = on_progress
        self.scheduler = scheduler or PollScheduler(client.poll_message)
        self._active: set[str] = set()  # attempts this service is working on right now

    # ------------------------------------------------------------ operations

    async def sale(
        self, terminal_id: str, amount: int, *, order_number: str | None = None, email: str | None = None,
        phone: str | None = None, receipt: bool = False, order_key: str | None = None,
    ) -> OperationResult:
        """Charge ``amount`` cents. ``order_key`` (default: the order number) guards the order
        against a second charge while an earlier attempt is unknown or approved."""
        request = PayRequest(terminalId=terminal_id, amount=amount, receipt=receipt,
                             orderNumber=order_number, email=email, phone=phone)
        return await self._run(Operation.SALE, terminal_id, request.wire(), amount=amount,
                               order_key=order_key or order_number,
                               send=lambda attempt_id: self.client.pay(request, attempt_id=attempt_id))

    async def preauth(
        self, terminal_id: str, amount: int, *, order_number: str | None = None, email: str | None = None,
        phone: str | None = None, receipt: bool = False, order_key: str | None = None,
    ) -> OperationResult:
        """Reserve ``amount`` cents; settle it later with ``capture``."""
        request = PayRequest(terminalId=terminal_id, amount=amount, receipt=receipt,
                             orderNumber=order_number, email=email, phone=phone)
        return await self._run(Operation.PREAUTH, terminal_id, request.wire(), amount=amount,
                               order_key=order_key or order_number,
                               send=lambda attempt_id: self.client.auth(request, attempt_id=attempt_id))

    async def capture(self, terminal_id: str, ref: str, amount: int) -> OperationResult:
        request = CaptureRequest(terminalId=terminal_id, pnRefNum=ref, amount=amount)
        return await self._run(Operation.CAPTURE, terminal_id, request.wire(), amount=amount, ref=ref,
                               send=lambda attempt_id: self.client.capture(request, attempt_id=attempt_id))

    async def void(self, terminal_id: str, ref: str) -> OperationResult:
        request = VoidRequest(terminalId=terminal_id, pnRefNum=ref)
        return await self._run(Operation.VOID, terminal_id, request.wire(), ref=ref,
                               send=lambda attempt_id: self.client.void(request, attempt_id=attempt_id))

    async def refund(self, terminal_id: str, ref: str, amount: int) -> OperationResult:
        request = RefundRequest(terminalId=terminal_id, pnRefNum=ref, amount=amount)
        return await self._run(Operation.REFUND, terminal_id, request.wire(), amount=amount, ref=ref,
                               send=lambda attempt_id: self.client.refund(request, attempt_id=attempt_id))

    async def close_batch(self, terminal_id: str, *, by_serial: bool = False) -> OperationResult:
        request = CloseBatchRequest(terminalId=terminal_id)
        return await self._run(
            Operation.CLOSE_BATCH, terminal_id, {**request.wire(), "bySerial": by_serial},
            send=lambda attempt_id: self.client.close_batch(request, attempt_id=attempt_id, by_serial=by_serial),
        )

    # ------------------------------------------------------------ the one path of a request

    async def _run(
        self,
        operation: Operation,
        terminal_id: str,
        body: dict[str, Any],
        *,
        send: Callable[[str], Awaitable[Any]],
        amount: int | None = None,
        ref: str | None = None,
        order_key: str | None = None,
    ) -> OperationResult:
        try:
            attempt = self.journal.begin_attempt(
                operation=operation, terminal_id=terminal_id, gateway=self.gateway,
                amount=amount, order_key=order_key, ref=ref, request=body,
            )
        except JournalError as refusal:
            # refused before anything was sent: busy terminal, unresolved order, already paid
            return OperationResult(Outcome.FAILED, operation, terminal_id, amount=amount, message=str(refusal))
        self._active.add(attempt.id)
        try:
            return await self._send_and_settle(attempt, send)
        finally:
            self._active.discard(attempt.id)

    async def _send_and_settle(self, attempt: Attempt, send: Callable[[str], Awaitable[Any]]) -> OperationResult:
        started = time.monotonic()
        self._progress(attempt, "sending", started)
        self.journal.mark_sent(attempt.id)
        try:
            answer = await send(attempt.id)
        except PaymentsError as error:
            return self._finish(attempt, *self._classify_failure(error))
        except Exception as error:  # a bug must not lose the attempt: it stays resumable
            log.exception("unexpected error during %s %s", attempt.operation, attempt.id)
            return self._finish(attempt, Outcome.UNKNOWN, {"message": f"internal error: {type(error).__name__}"})
        if isinstance(answer, PayAccepted):  # type S, whatever the config said
            self.journal.record(attempt.id, "msg_identifier", {"msgIdentifier": answer.msg_identifier, "gateway": "S"})
            result = await self._poll_message(attempt, answer.msg_identifier, started, self.wait_limit)
            return result or self._finish_waiting(attempt, answer.msg_identifier)
        self.journal.record(attempt.id, "answer", _answer_record(answer, attempt.operation))
        return self._finish(attempt, Outcome.APPROVED, await self._details_of(answer, attempt))

    def _classify_failure(self, error: PaymentsError) -> tuple[Outcome, dict[str, Any]]:
        details: dict[str, Any] = {"message": str(error)}
        if isinstance(error, GatewayDeclined):
            details["gateway_text"] = error.text
            if error.transaction_id:
                details["transaction_id"] = error.transaction_id
            return Outcome.DECLINED, details
        if isinstance(error, TransportError):
            return (Outcome.UNKNOWN if error.request_sent else Outcome.FAILED), details
        if isinstance(error, (ServerError, ProtocolError)):
            return Outcome.UNKNOWN, details  # it reached the service; we cannot tell what happened
        # refused: validation, inactive terminal, not owned, rate limited, invalid input
        return Outcome.FAILED, details

    async def _details_of(self, answer: Any, attempt: Attempt) -> dict[str, Any]:
        if isinstance(answer, CloseBatchResult):
            return {"gateway_text": answer.message}
        assert isinstance(answer, TerminalResult)
        details: dict[str, Any] = {
            "transaction_id": answer.transaction_id, "payment_id": answer.payment_id,
            "amount": answer.amount if answer.amount is not None else attempt.amount,
            "gateway_text": answer.gateway_text or None,
        }
        if answer.payment_id and attempt.operation in (Operation.SALE, Operation.PREAUTH):
            try:  # card details for the receipt; the outcome does not depend on it
                details.update(_payment_details(await self.client.get_payment(answer.payment_id)))
            except PaymentsError as error:
                log.info("card details of %s not read: %s", answer.payment_id, error)
        return {k: v for k, v in details.items() if v is not None}

    # ------------------------------------------------------------ type S messages

    async def _poll_message(
        self, attempt: Attempt, message_id: str, started: float, limit: float
    ) -> OperationResult | None:
        """Poll until the message is final (its outcome), or None when ``limit`` runs out."""
        last_status = attempt.last_status
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            self._progress(attempt, last_status or "waiting", started, self.scheduler.next_poll_in())
            try:
                message = await asyncio.wait_for(
                    self.scheduler.poll(message_id), timeout=max(0.01, deadline - time.monotonic())
                )
            except asyncio.TimeoutError:
                break
            except PaymentsError as error:  # 429, connection trouble, odd answer: keep polling
                self.journal.record(attempt.id, "poll_error", {"error": type(error).__name__, "text": str(error)[:200]})
                continue
            if message.status != last_status:
                last_status = message.status
                self.journal.record(attempt.id, "poll_status", {
                    "status": message.status, "elapsed": round(time.monotonic() - started, 3),
                    **({"paymentId": message.payment_id} if message.payment_id else {}),
                })
                self._progress(attempt, message.status, started)
            if message.status == "failed":
                return self._finish(attempt, Outcome.FAILED, {
                    "msg_identifier": message_id, "message": message.error or "the terminal reported failure",
                })
            if message.status == "complete":
                return await self._settle_payment(attempt, message_id, message.payment_id)
        return None

    def _finish_waiting(self, attempt: Attempt, message_id: str) -> OperationResult:
        status = self.journal.get(attempt.id).last_status or "none"
        return self._finish(attempt, Outcome.UNKNOWN, {
            "msg_identifier": message_id,
            "message": f"no final answer in {self.wait_limit:.0f} s (last status {status}); the payment "
                       "may still complete: resume it or ask a manager, never charge again",
        })

    async def _settle_payment(self, attempt: Attempt, message_id: str, payment_id: str | None) -> OperationResult:
        assert payment_id
        try:
            payment = await self.client.get_payment(payment_id)
        except PaymentsError as error:
            return self._finish(attempt, Outcome.UNKNOWN, {
                "msg_identifier": message_id, "payment_id": payment_id,
                "message": f"message complete but the payment could not be read: {error}",
            })
        details = {"msg_identifier": message_id, **_payment_details(payment)}
        approved = payment.paid or (attempt.operation is Operation.PREAUTH and payment.status == "auth")
        if approved:
            return self._finish(attempt, Outcome.APPROVED, details)
        details["gateway_text"] = payment.error or payment.status or "declined"
        return self._finish(attempt, Outcome.DECLINED, details)

    # ------------------------------------------------------------ recovery

    async def resume(self, *, wait_limit: float | None = None) -> list[OperationResult]:
        """Resolve every attempt without a final outcome, without resending anything.

        An attempt another live process (or this service, right now) is working on is
        left to it and reported ``unknown`` with a message saying so.
        """
        resumable = {a.id for a in self.journal.resumable()}

        async def resume_one(attempt: Attempt) -> OperationResult:
            if attempt.id in self._active or attempt.id not in resumable:
                return OperationResult.from_attempt(attempt, "in progress in another process: left to it")
            return await self._resume_one(attempt, wait_limit)

        return list(await asyncio.gather(*(resume_one(a) for a in self.journal.in_flight())))

    async def recover_interrupted(self) -> list[OperationResult]:
        """On start: settle, without waiting, the attempts a dead process left with no
        outcome at all (they still hold their terminals). Known-unknown attempts are left
        to ``resume``; nothing is resent."""
        orphans = [a for a in self.journal.resumable() if a.outcome is None and a.id not in self._active]
        return list(await asyncio.gather(*(self._resume_one(a, 0.0) for a in orphans)))

    async def _resume_one(self, attempt: Attempt, wait_limit: float | None) -> OperationResult:
        claimed = self.journal.claim(attempt.id)  # atomic: no other process resumes it too
        if claimed is None:
            return OperationResult.from_attempt(self.journal.get(attempt.id), "taken over by another process")
        self._active.add(attempt.id)
        try:
            return await self._resume_claimed(claimed, wait_limit)
        finally:
            self._active.discard(attempt.id)

    async def _resume_claimed(self, attempt: Attempt, wait_limit: float | None) -> OperationResult:
        limit = self.wait_limit if wait_limit is None else wait_limit
        started = time.monotonic()
        if not attempt.sent:
            return self._finish(attempt, Outcome.FAILED, {"message": "the request never left: nothing was charged"})
        payment_id = (attempt.result or {}).get("payment_id")
        if attempt.msg_identifier and not payment_id:
            result = await self._poll_message(attempt, attempt.msg_identifier, started, limit)
            if result is not None:
                return result
        if payment_id:
            return await self._settle_payment(attempt, attempt.msg_identifier or "", payment_id)
        return await self._look_up(attempt)

    async def _look_up(self, attempt: Attempt) -> OperationResult:
        try:
            entry = await find_attempt(self.client, attempt.id, attempt.created_at)
        except PaymentsError as error:
            return self._finish(attempt, Outcome.UNKNOWN, {"message": f"transaction list unavailable: {error}"})
        self.journal.record(attempt.id, "lookup", {"found": entry is not None})
        if entry is None:
            return self._finish(attempt, Outcome.UNKNOWN, {
                "message": "not found in the service's transactions yet; resume later or ask a manager",
            })
        return self._finish(attempt, *_entry_outcome(entry, attempt))

    def resolve(self, attempt_id: str, *, paid: bool, reason: str, by: str) -> OperationResult:
        """A manager's decision on an unknown attempt, journaled with who, when and why."""
        attempt = self.journal.resolve_by_manager(attempt_id, paid=paid, reason=reason, by=by)
        return OperationResult.from_attempt(attempt)

    # ------------------------------------------------------------ helpers

    def _finish(self, attempt: Attempt, outcome: Outcome, details: dict[str, Any]) -> OperationResult:
        message = details.pop("message", "")
        result = OperationResult(
            outcome=outcome, operation=attempt.operation, terminal_id=attempt.terminal_id,
            attempt_id=attempt.id, amount=details.pop("amount", attempt.amount), message=message, **details,
        )
        journaled = {**result.details(), **({"message": message} if message else {})}
        try:
            self.journal.finish(attempt.id, outcome, journaled)
        except JournalError as conflict:  # a manager decided first: keep the late answer beside it
            self.journal.record(attempt.id, "late_answer", {"outcome": str(outcome), **journaled})
            log.warning("attempt %s: late %s after it was resolved: %s", attempt.id, outcome, conflict)
            return OperationResult.from_attempt(
                self.journal.get(attempt.id), f"already resolved; the service's later answer was {outcome}")
        self._progress(attempt, str(outcome), None)
        return result

    def _progress(self, attempt: Attempt, state: str, started: float | None, next_poll_in: float | None = None) -> None:
        if self.on_progress is None:
            return
        elapsed = 0.0 if started is None else time.monotonic() - started
        try:
            self.on_progress(Progress(attempt.id, attempt.terminal_id, state, round(elapsed, 3), next_poll_in))
        except Exception:  # a listener's bug must never break a payment
            log.exception("progress listener failed")


def _answer_record(answer: TerminalResult | CloseBatchResult, operation: Operation) -> dict[str, Any]:
    """The synchronous answer as journaled: its ids and gateway text. A direct answer to
    pay/auth means the type B flow; capture, void and refund answer directly on both."""
    if isinstance(answer, CloseBatchResult):
        return {"success": answer.success, "message": answer.message}
    gateway = "B" if operation in (Operation.SALE, Operation.PREAUTH) else None
    record = {"gateway": gateway, "transactionId": answer.transaction_id, "paymentId": answer.payment_id,
              "amount": answer.amount, "resultTxt": answer.gateway_text or None}
    return {k: v for k, v in record.items() if v is not None}


def _payment_details(payment: Payment) -> dict[str, Any]:
    card = payment.card
    details = {
        "payment_id": payment.id, "transaction_id": payment.transaction_id, "amount": payment.amount,
        "card_last4": card.last4 if card else None, "card_brand": (card.brand or card.network) if card else None,
    }
    return {k: v for k, v in details.items() if v is not None}


def _entry_outcome(entry: TransactionEntry, attempt: Attempt) -> tuple[Outcome, dict[str, Any]]:
    details = {
        "payment_id": entry.payment_id or entry.id, "transaction_id": entry.transaction_id,
        "amount": entry.base_amount if entry.base_amount is not None else attempt.amount,
        "card_last4": entry.card.last4 if entry.card else None,
        "card_brand": (entry.card.brand or entry.card.network) if entry.card else None,
        "message": "found in the service's transactions by its attempt id",
    }
    details = {k: v for k, v in details.items() if v is not None}
    if entry.error:
        details["gateway_text"] = entry.error
        return Outcome.DECLINED, details
    return Outcome.APPROVED, details
