"""``TerminalService``: sale, pre-auth, capture, void, refund and close batch, crash-safe.

Every money-moving request goes through ``_run``: the unknowns that would block it are
first settled briefly (never resent), the journal records the attempt durably before the
request leaves, the answer (or its absence) is judged by ``evidence`` into exactly one
outcome, and the outcome is journaled. Nothing here ever resends a request:

- type S (asynchronous): pay/auth answer a ``msgIdentifier``; the message is polled
  through the shared ``PollScheduler`` until complete/failed or the wait limit, then the
  payment is read to tell approved from declined. A message still in ``timeout`` or
  ``processing`` at the limit is ``unknown`` and keeps its terminal and its order;
- type B (synchronous): the answer is the outcome only when it proves it; otherwise the
  payment it names is read, and without one the outcome is ``unknown``;
- capture, void and refund read their payment before they leave, so an unknown one is
  settled by reading it again and comparing, or by its own entry in the transaction list;
- a request that left but got no usable answer is ``unknown``; ``resume`` polls its
  message again, reads its payment, or finds it in the transaction list by the attempt id
  its user-agent carried; a manager's ``resolve`` is first checked against the service.

Journal writes after a request left are retried briefly; if the outcome still cannot be
recorded the operation reports ``unknown`` (the attempt stays open and resumable). A
cancelled operation (Ctrl-C, "stop waiting") is journaled ``unknown`` before it ends.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import InvalidInput, PaymentsError, TransportError, Unauthorized
from pos_app.api.models import CloseBatchResult, PayAccepted, TerminalResult
from pos_app.api.requests import CaptureRequest, CloseBatchRequest, PayRequest, RefundRequest, VoidRequest
from pos_app.i18n import _
from pos_app.journal import (
    Attempt,
    ChargeTaken,
    InvalidResolution,
    Journal,
    JournalError,
    Operation,
    Outcome,
)
from pos_app.journal.errors import AttemptNotFound
from pos_app.journal.models import AMOUNT_MISMATCH, REF_OPERATIONS
from pos_app.journal.threaded import AsyncJournal
from pos_app.journal.words import operation_name, outcome_name
from pos_app.terminal.blockers import blocks, same_money
from pos_app.terminal.evidence import (
    ERROR_ANSWER,
    NO_ANSWER,
    Evidence,
    answer_evidence,
    error_details,
    error_outcome,
    too_early_to_decide,
)
from pos_app.terminal.hints import ListedAttempts
from pos_app.terminal.outcomes import OperationResult, Phase, Progress, Refusal, blocking_attempt, refusal_for
from pos_app.terminal.poller import PollScheduler
from pos_app.terminal.reader import AttemptReader
from pos_app.terminal.recorder import OutcomeRecorder, Saved, answer_record

log = logging.getLogger(__name__)

DEFAULT_WAIT_LIMIT = 180.0
BRIEF_WAIT = 2.0
"""Seconds a money-moving command spends polling the unknowns that block it."""
FOLLOW_UP_SETTLE = 60.0
"""How long after it was sent a follow-up whose answer was lost may still be processed:
until then an unchanged payment does not prove it failed."""

ProgressListener = Callable[[Progress], None]
Send = Callable[[str], Awaitable[Any]]


class TerminalService:
    """Runs terminal operations for one merchant key, journaling every attempt."""

    def __init__(
        self,
        client: PaymentsClient,
        journal: Journal | AsyncJournal,
        *,
        gateway: str = "auto",
        wait_limit: float = DEFAULT_WAIT_LIMIT,
        on_progress: ProgressListener | None = None,
        scheduler: PollScheduler | None = None,
        brief_wait: float = BRIEF_WAIT,
        follow_up_settle: float = FOLLOW_UP_SETTLE,
        save_later: bool = False,
        on_saved: Saved | None = None,
    ) -> None:
        self.client = client
        self.journal = journal if isinstance(journal, AsyncJournal) else AsyncJournal(journal)
        self.gateway = {"s": "S", "b": "B"}.get(gateway.lower(), "auto")
        self.wait_limit = wait_limit
        self.on_progress = on_progress
        self.scheduler = scheduler or PollScheduler(client.poll_message, hints=ListedAttempts(client))
        self.brief_wait = brief_wait
        self.reader = AttemptReader(client, self.journal, self.scheduler, wait_limit=wait_limit,
                                    follow_up_settle=follow_up_settle, report=self._progress)
        self.outcomes = OutcomeRecorder(self.journal, self.reader, report=self._progress, save_later=save_later,
                                        on_saved=on_saved)
        self._active: set[str] = set()  # attempts this service is working on right now

    async def aclose(self) -> None:
        """Before the journal closes: stop writing kept outcomes again (see ``OutcomeRecorder``)."""
        await self.outcomes.aclose()

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

    async def capture(
        self, terminal_id: str, ref: str, amount: int, *, payment_id: str | None = None
    ) -> OperationResult:
        """Capture a pre-auth (pnRefNum ``ref``); ``payment_id``, when known, lets the
        service verify an unknown capture by reading the payment before and after."""
        request = CaptureRequest(terminalId=terminal_id, pnRefNum=ref, amount=amount)
        return await self._run(Operation.CAPTURE, terminal_id, request.wire(), amount=amount, ref=ref,
                               payment_id=payment_id,
                               send=lambda attempt_id: self.client.capture(request, attempt_id=attempt_id))

    async def void(self, terminal_id: str, ref: str, *, payment_id: str | None = None) -> OperationResult:
        request = VoidRequest(terminalId=terminal_id, pnRefNum=ref)
        return await self._run(Operation.VOID, terminal_id, request.wire(), ref=ref, payment_id=payment_id,
                               send=lambda attempt_id: self.client.void(request, attempt_id=attempt_id))

    async def refund(
        self, terminal_id: str, ref: str, amount: int, *, payment_id: str | None = None
    ) -> OperationResult:
        request = RefundRequest(terminalId=terminal_id, pnRefNum=ref, amount=amount)
        return await self._run(Operation.REFUND, terminal_id, request.wire(), amount=amount, ref=ref,
                               payment_id=payment_id,
                               send=lambda attempt_id: self.client.refund(request, attempt_id=attempt_id))

    async def close_batch(self, terminal_id: str, *, serial: str | None = None) -> OperationResult:
        """Close the terminal's open batch; with ``serial`` the request names the terminal by
        its serial number (close batch by serial, type S). Either way the attempt is the
        terminal's (journaled under ``terminal_id``), so the close ends that terminal's shift."""
        request = CloseBatchRequest(terminalId=serial or terminal_id)
        body = {**request.wire(), "bySerial": serial is not None, **({"serial": serial} if serial else {})}
        return await self._run(
            Operation.CLOSE_BATCH, terminal_id, body,
            send=lambda attempt_id: self.client.close_batch(request, attempt_id=attempt_id,
                                                            by_serial=serial is not None),
        )

    # ------------------------------------------------------------ the one path of a request

    async def _run(
        self,
        operation: Operation,
        terminal_id: str,
        body: dict[str, Any],
        *,
        send: Send,
        amount: int | None = None,
        ref: str | None = None,
        order_key: str | None = None,
        payment_id: str | None = None,
    ) -> OperationResult:
        settled = await self._settle_blockers(operation, terminal_id, order_key, ref)
        recovered = tuple(result for __, result in settled)
        moved = [r for a, r in settled if r.outcome.moved_money and same_money(a, operation, ref)]
        if moved:  # the "unknown" went through after all: this is most likely its retry
            earlier = moved[0]
            return OperationResult(
                Outcome.FAILED, operation, terminal_id, amount=amount, refusal=Refusal.EARLIER_ATTEMPT_APPROVED,
                blocked_by=earlier.attempt_id, recovered=recovered, order_key=order_key, ref=ref, message=_(
                    "not sent: the earlier {operation} {attempt} of {amount} cents turned out approved just now, so "
                    "the money already moved; run it again only if this is another charge").format(
                        operation=operation_name(earlier.operation), attempt=earlier.attempt_id, amount=earlier.amount))
        try:
            attempt = await self.journal.begin_attempt(
                operation=operation, terminal_id=terminal_id, gateway=self.gateway,
                amount=amount, order_key=order_key, ref=ref, request=body, cashier=self._cashier(),
            )
        except JournalError as refusal:  # refused before anything was sent
            return OperationResult(Outcome.FAILED, operation, terminal_id, amount=amount, message=str(refusal),
                                   refusal=refusal_for(refusal), blocked_by=blocking_attempt(refusal),
                                   recovered=recovered, order_key=order_key, ref=ref)
        except ValueError as invalid:
            return OperationResult(Outcome.FAILED, operation, terminal_id, amount=amount, message=str(invalid),
                                   refusal=Refusal.INVALID_INPUT, recovered=recovered, order_key=order_key,
                                   ref=ref)
        log.info("attempt %s: %s of %s on %s begun", attempt.id, operation, amount, terminal_id)
        self._active.add(attempt.id)
        try:
            before = None
            if operation in REF_OPERATIONS:
                before = await self._unsent(attempt, self.reader.read_payment_before(attempt, payment_id))
            result = await self._send_and_settle(attempt, send, before)
        finally:
            self._active.discard(attempt.id)
        return replace(result, recovered=recovered) if recovered else result

    def _cashier(self) -> str | None:
        """The staff member the client's identity names (``None`` when nobody is signed in)."""
        cashier = self.client.identity.cashier
        return None if cashier in ("", "-") else cashier

    async def _unsent(self, attempt: Attempt, step: Awaitable[dict[str, Any] | None]) -> dict[str, Any] | None:
        """A step before the request leaves: if it is cancelled, the attempt ends ``failed``
        (nothing was sent) so that it does not hold its terminal."""
        try:
            return await step
        except asyncio.CancelledError:
            await self.outcomes.try_finish(attempt, Outcome.FAILED,
                                           {"message": _("cancelled before the request was sent")})
            raise

    async def _send_and_settle(self, attempt: Attempt, send: Send, before: dict[str, Any] | None) -> OperationResult:
        started = time.monotonic()
        self._progress(attempt, Phase.SENDING, started)
        try:
            await self.journal.mark_sent(attempt.id)
        except JournalError as error:  # nothing left: end the attempt so it frees its terminal
            await self.outcomes.try_finish(attempt, Outcome.FAILED, {
                "message": _("not sent: {reason}").format(reason=error)})
            return OperationResult(Outcome.FAILED, attempt.operation, attempt.terminal_id, attempt.id,
                                   amount=attempt.amount, message=_("nothing was sent: {reason}").format(reason=error),
                                   refusal=refusal_for(error), order_key=attempt.order_key, ref=attempt.ref)
        try:
            return await self._settle_sent(attempt, send, before, started)
        except asyncio.CancelledError:
            await self.outcomes.try_finish(attempt, Outcome.UNKNOWN, {
                "message": _("stopped waiting: the request had left, so the customer may be charged; "
                             "resume it (`pos-app terminal resume`) before charging again"),
            })
            self._progress(attempt, Phase.FINISHED, started, outcome=Outcome.UNKNOWN)
            raise

    async def _settle_sent(
        self, attempt: Attempt, send: Send, before: dict[str, Any] | None, started: float
    ) -> OperationResult:
        try:
            answer = await send(attempt.id)
        except PaymentsError as error:
            return await self._settle_error(attempt, error, before)
        except Exception as error:  # a bug must not lose the attempt: it stays resumable
            log.exception("unexpected error during %s %s", attempt.operation, attempt.id)
            return await self.outcomes.finish(attempt, Outcome.UNKNOWN,
                                              {"message": _("internal error: {error}").format(
                                                  error=type(error).__name__)})
        if isinstance(answer, PayAccepted):  # type S, whatever the config said
            message_id = answer.msg_identifier
            await self.reader.note(attempt.id, "msg_identifier", {"msgIdentifier": message_id, "gateway": "S"})
            message = await self.reader.wait_for_message(attempt, message_id, started, self.wait_limit)
            if message is None:
                return await self.outcomes.finish_waiting(attempt, message_id, self.wait_limit)
            evidence = await self.reader.message_evidence(attempt, message_id, message)
            return await self.outcomes.finish_evidence(attempt, evidence)
        await self.reader.note(attempt.id, "answer", answer_record(answer, attempt.operation))
        if isinstance(answer, CloseBatchResult):
            return await self.outcomes.finish(attempt, Outcome.APPROVED, {"gateway_text": answer.message})
        assert isinstance(answer, TerminalResult)
        evidence = answer_evidence(answer, attempt.operation, attempt.amount)
        if evidence.outcome is None and answer.payment_id:  # settle it by reading the payment
            evidence = await self.reader.payment_evidence(attempt, answer.payment_id, before, answered=True)
        return await self.outcomes.finish_evidence(attempt, await self.reader.with_card(attempt, evidence))

    async def _settle_error(
        self, attempt: Attempt, error: PaymentsError, before: dict[str, Any] | None
    ) -> OperationResult:
        outcome, refusal = error_outcome(error)
        details = error_details(error)
        answered = not isinstance(error, TransportError)
        if isinstance(error, TransportError):
            if error.request_sent:
                await self.reader.note(attempt.id, NO_ANSWER, {"error": type(error).__name__})
        elif not isinstance(error, InvalidInput):  # refused before it left (RequestNotBuilt): nobody answered
            await self.reader.note(attempt.id, ERROR_ANSWER, {
                "error": type(error).__name__, "status": getattr(error, "status_code", None)})
        log.info("attempt %s: %s answered %s: %s", attempt.id, attempt.operation, type(error).__name__, outcome)
        if refusal is Refusal.SERVICE_REFUSED and isinstance(error, Unauthorized) and await self.reader.key_refused():
            refusal = Refusal.BAD_CREDENTIALS
            details["message"] = _("the service refused the key-hash: check the configured key; nothing was "
                                   "charged")
        if outcome is Outcome.UNKNOWN and before is not None:  # the service answered: compare now
            evidence = await self.reader.payment_evidence(attempt, before["payment_id"], before, answered=answered)
            if evidence.outcome is not None:
                return await self.outcomes.finish_evidence(attempt, evidence, cause=str(error))
        return await self.outcomes.finish(attempt, outcome, details, refusal=refusal)


    # ------------------------------------------------------------ recovery

    async def resume(self, *, wait_limit: float | None = None) -> list[OperationResult]:
        """Resolve every attempt without a final outcome, without resending anything.

        An attempt another live process (or this service, right now) is working on is
        left to it and reported ``unknown`` with a message saying so.
        """
        resumable = {a.id for a in await self.journal.resumable()}
        limit = self.wait_limit if wait_limit is None else wait_limit

        async def resume_one(attempt: Attempt) -> OperationResult:
            if attempt.id in self.outcomes.unsaved:
                return OperationResult.from_attempt(attempt, _("its outcome is known and being saved"))
            if attempt.id in self._active or attempt.id not in resumable:
                return OperationResult.from_attempt(attempt, _("in progress in another process: left to it"))
            return await self._resume_one(attempt, limit)

        return list(await asyncio.gather(*(resume_one(a) for a in await self.journal.in_flight())))

    async def recover(self) -> list[OperationResult]:
        """On start: settle, without waiting, the attempts a dead process left with no
        outcome at all (they hold their terminals); known unknowns are left to ``resume``."""
        busy = self._active | set(self.outcomes.unsaved)
        orphans = [a for a in await self.journal.resumable() if a.outcome is None and a.id not in busy]
        return list(await asyncio.gather(*(self._resume_one(a, 0.0) for a in orphans)))

    async def check(self, attempt_id: str, *, wait_limit: float = 0.0) -> OperationResult:
        """"Check again" on one attempt: poll, read or look it up (never resend)."""
        attempt = await self.journal.get(attempt_id)
        if not attempt.needs_resolution:
            return OperationResult.from_attempt(attempt)
        kept = self.outcomes.kept(attempt.id)
        if kept is not None:  # known, and being written
            return kept
        if attempt.id in self._active:
            return OperationResult.from_attempt(attempt, _("still being worked on"))
        return await self._resume_one(attempt, wait_limit)

    async def _settle_blockers(
        self, operation: Operation, terminal_id: str, order_key: str | None, ref: str | None
    ) -> list[tuple[Attempt, OperationResult]]:
        """Briefly try to resolve (never resend) the unresolved attempts that would refuse
        this operation: on its terminal, its order key or its reference."""
        try:
            candidates = await self.journal.resumable()
        except JournalError:
            return []  # begin_attempt reports the journal's trouble
        known = self._active | set(self.outcomes.unsaved)  # worked on now, or known and being written
        blocking = [a for a in candidates if a.id not in known and blocks(a, operation, terminal_id, order_key, ref)]
        results = await asyncio.gather(*(self._resume_one(a, self.brief_wait) for a in blocking))
        return list(zip(blocking, results, strict=True))

    async def _resume_one(self, attempt: Attempt, limit: float) -> OperationResult:
        claimed = await self.journal.claim(attempt.id)  # atomic: no other process resumes it too
        if claimed is None:
            return OperationResult.from_attempt(await self.journal.get(attempt.id),
                                                _("taken over by another process"))
        self._active.add(attempt.id)
        try:
            if not claimed.sent:  # its process stopped before the request left
                return await self.outcomes.finish(claimed, Outcome.FAILED, {
                    "message": _("the app stopped before the request left: nothing was sent")},
                    refusal=Refusal.INTERRUPTED)
            try:
                evidence = await self.reader.evidence(claimed, limit)
            except PaymentsError as error:
                evidence = Evidence(None, {}, _("the service could not be asked: {error}").format(error=error))
            if evidence.outcome is not None or claimed.outcome is None:
                return await self.outcomes.finish_evidence(claimed, evidence)
            await self.reader.note(claimed.id, "check", {"message": evidence.note})
            return OperationResult.from_attempt(claimed, evidence.note)
        finally:
            self._active.discard(attempt.id)

    async def resolve(
        self, attempt_id: str, *, paid: bool, reason: str, by: str, force: bool = False,
        reference: str | None = None,
    ) -> OperationResult:
        """A manager's decision on an unknown attempt, checked against the service first.

        The service shows an outcome → it is recorded and a contradicting decision is
        refused (``SERVICE_SHOWS_OTHERWISE``). "Paid" needs the service's evidence of the
        charge: the attempt's own (its message, payment or list entry), or the payment the
        manager names by ``reference`` (its id, or the reference on the terminal's slip;
        see ``AttemptReader.reference_evidence``); without it "paid" is refused
        (``NO_CHARGE_FOUND``, or ``SERVICE_UNREACHABLE``), ``force`` or not. "Not paid": the
        service cannot be asked → refused (``SERVICE_UNREACHABLE``) unless ``force``; a
        same-terminal, same-amount transaction exists → refused (``POSSIBLE_MATCH``) unless
        ``force``; the request may still be processed → refused (``TOO_EARLY``) unless
        ``force``. A decision taken is journaled with who, why and what the service said.
        """
        try:
            attempt = await self.journal.get(attempt_id)
        except AttemptNotFound as error:
            raise ValueError(str(error)) from None
        if attempt.is_final:
            return OperationResult.from_attempt(
                attempt, _("attempt {attempt} already has the final outcome {outcome}; nothing to decide").format(
                    attempt=attempt_id, outcome=outcome_name(attempt.outcome)),
                refusal=Refusal.ALREADY_FINAL)
        checked: dict[str, Any]
        try:
            evidence = await self.reader.evidence(attempt, 0.0)
        except PaymentsError as error:
            if paid or not force:
                unreachable = _("the service could not be asked ({error}); check the terminal and try again") if paid \
                    else _("the service could not be asked ({error}); check the terminal and try again, or decide "
                           "\"not paid\" without it (--force, recorded as such)")
                return OperationResult.from_attempt(attempt, unreachable.format(error=error),
                                                    refusal=Refusal.SERVICE_UNREACHABLE)
            checked = {"asked": False, "error": str(error)[:200]}
        else:
            if evidence.outcome is not None:
                result = await self.outcomes.finish_evidence(attempt, evidence)
                agrees = evidence.outcome.moved_money == paid
                if agrees:
                    return replace(result, message=_("the service already shows it: {reason}").format(
                        reason=evidence.note or result.outcome))
                await self.reader.note(attempt_id, "decision_refused", {
                    "decision": "paid" if paid else "not_paid", "by": by, "reason": reason,
                    "service": str(evidence.outcome)})
                return replace(result, refusal=Refusal.SERVICE_SHOWS_OTHERWISE, message=_(
                    "refused: the service shows this attempt {outcome} ({reason}); that is now its outcome").format(
                        outcome=outcome_name(evidence.outcome), reason=evidence.note or _("by its own record")))
            if paid:
                return await self._paid_by_reference(attempt, reference, reason=reason, by=by, seen=evidence)
            if evidence.possible_match and not force:
                return OperationResult.from_attempt(attempt, _("{reason} (or --force)").format(reason=evidence.note),
                                                    refusal=Refusal.POSSIBLE_MATCH)
            pending = too_early_to_decide(attempt, self.wait_limit)
            if pending and not force:
                return OperationResult.from_attempt(attempt, pending, refusal=Refusal.TOO_EARLY)
            checked = {"asked": True, "found": False, "possible_match": evidence.possible_match,
                       "pending": bool(pending), "note": evidence.note}
        forced = force and (not checked["asked"] or bool(checked.get("possible_match") or checked.get("pending")))
        return await self._decided(attempt_id, paid=False, reason=reason, by=by, forced=forced, checked=checked)

    async def _paid_by_reference(
        self, attempt: Attempt, reference: str | None, *, reason: str, by: str, seen: Evidence
    ) -> OperationResult:
        """"Paid" when the service shows nothing under the attempt's own name: only with a
        reference whose payment the service shows charged for this attempt."""
        if not reference:
            no_charge = _("refused: the service shows no charge for this attempt, so it cannot be marked paid; if the "
                          "terminal printed an approval, type the reference on its slip (--reference)")
            if seen.note:
                no_charge = _("refused: the service shows no charge for this attempt, so it cannot be marked paid; if "
                              "the terminal printed an approval, type the reference on its slip (--reference) "
                              "({reason})").format(reason=seen.note)
            return OperationResult.from_attempt(attempt, no_charge, refusal=Refusal.NO_CHARGE_FOUND)
        try:
            proof = await self.reader.reference_evidence(attempt, reference)
        except PaymentsError as error:
            return OperationResult.from_attempt(
                attempt, _("the service could not be asked about {reference!r} ({error}); try again").format(
                    reference=reference, error=error),
                refusal=Refusal.SERVICE_UNREACHABLE)
        if proof.outcome is None:
            return OperationResult.from_attempt(attempt, _("refused: {reason}").format(reason=proof.note),
                                                refusal=Refusal.NO_CHARGE_FOUND)
        if proof.over_approved:
            await self.reader.note(attempt.id, AMOUNT_MISMATCH, {"note": proof.note, **proof.details})
        checked = {"asked": True, "found": True, "reference": reference, "note": proof.note}
        return await self._decided(attempt.id, paid=True, reason=reason, by=by, forced=False, checked=checked,
                                   evidence=proof.details,
                                   partially=proof.outcome is Outcome.PARTIALLY_APPROVED)

    async def _decided(
        self, attempt_id: str, *, paid: bool, reason: str, by: str, forced: bool, checked: dict[str, Any],
        evidence: dict[str, Any] | None = None, partially: bool = False,
    ) -> OperationResult:
        try:
            decided = await self.journal.resolve_by_manager(attempt_id, paid=paid, reason=reason, by=by,
                                                            forced=forced, checked=checked, evidence=evidence,
                                                            partially=partially)
        except ChargeTaken as taken:  # another attempt took this charge while the decision was checked
            return OperationResult.from_attempt(await self.journal.get(attempt_id),
                                                _("refused: {reason}").format(reason=taken),
                                                refusal=Refusal.NO_CHARGE_FOUND)
        except InvalidResolution:  # the service's answer arrived while the decision was checked
            final = await self.journal.get(attempt_id)
            return OperationResult.from_attempt(
                final, _("the service's answer arrived meanwhile: the attempt is {outcome}; nothing to "
                         "decide").format(outcome=outcome_name(final.outcome)),
                refusal=Refusal.ALREADY_FINAL)
        log.info("attempt %s resolved by %s as %s (%s)", attempt_id, by, decided.outcome, checked)
        return OperationResult.from_attempt(decided)

    def _progress(
        self, attempt: Attempt, phase: Phase, started: float | None, next_poll_in: float | None = None,
        *, outcome: Outcome | None = None,
    ) -> None:
        if self.on_progress is None:
            return
        elapsed = 0.0 if started is None else time.monotonic() - started
        try:
            self.on_progress(Progress(attempt.id, attempt.terminal_id, phase, round(elapsed, 3), next_poll_in, outcome))
        except Exception:  # a listener's bug must never break a payment
            log.exception("progress listener failed")
