"""``OutcomeRecorder``: how an attempt's outcome is journaled once the service has spoken.

The write is retried briefly while the journal is locked or failing (the request has
left: its outcome must not be lost to a busy disk). If it still fails:

- a one-shot command (``save_later`` off) reports ``unknown``: the attempt stays open and
  resumable (``pos-app terminal resume``);
- the app (``save_later`` on) keeps the outcome in memory and reports it as the service
  said it, with ``saved`` False, and writes it again every ``SAVE_RETRY`` seconds until the
  journal takes it (``on_saved`` is told). Meanwhile the journal still holds the attempt
  open, so its terminal and its order stay guarded; if the app stops first, the next start
  settles it with the service.

An answer that arrives after a manager already decided is kept beside the decision as a
late answer (a conflict when it contradicts it), never over it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from pos_app.api.models import CloseBatchResult, TerminalResult
from pos_app.i18n import _
from pos_app.journal import Attempt, InvalidResolution, InvalidTransition, JournalError, Operation, Outcome
from pos_app.journal.errors import AttemptNotFound
from pos_app.journal.models import AMOUNT_MISMATCH, LATE_ANSWER, ORDER_OPERATIONS
from pos_app.journal.threaded import AsyncJournal
from pos_app.journal.words import outcome_name
from pos_app.terminal.evidence import Evidence
from pos_app.terminal.outcomes import OperationResult, Phase, Refusal
from pos_app.terminal.reader import AttemptReader, Report

log = logging.getLogger(__name__)

JOURNAL_RETRY_DELAYS = (0.05, 0.25, 0.5, 1.0)
"""Pauses between tries of an outcome write after the request left."""
SAVE_RETRY = 5.0
"""Seconds between later tries of an outcome the journal refused (``save_later``)."""
Saved = Callable[[OperationResult], None]
"""``on_saved(result)``: an outcome kept in memory is in the journal now."""


class OutcomeRecorder:
    """Journals outcomes of one service's attempts; see the module docstring."""

    def __init__(self, journal: AsyncJournal, reader: AttemptReader, *, report: Report, save_later: bool = False,
                 on_saved: Saved | None = None) -> None:
        self._journal = journal
        self._reader = reader
        self._report = report
        self.save_later = save_later
        self.save_retry = SAVE_RETRY
        self._on_saved = on_saved
        self._unsaved: dict[str, tuple[OperationResult, asyncio.Task[None]]] = {}

    @property
    def unsaved(self) -> list[str]:
        """Attempts whose outcome is known but not in the journal yet."""
        return [attempt_id for attempt_id, (_, task) in self._unsaved.items() if not task.done()]

    def kept(self, attempt_id: str) -> OperationResult | None:
        """The outcome kept in memory for ``attempt_id`` while the journal cannot take it."""
        entry = self._unsaved.get(attempt_id)
        return entry[0] if entry is not None and not entry[1].done() else None

    async def aclose(self) -> None:
        """Stop writing outcomes again (the journal is closing): each one left unsaved is
        still open in the journal, so the next start settles it with the service."""
        for attempt_id in self.unsaved:
            log.error("attempt %s: its outcome was never saved; the next start checks it with the service",
                      attempt_id)
        tasks = [task for __, task in self._unsaved.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def finish_evidence(self, attempt: Attempt, evidence: Evidence, *, cause: str = "") -> OperationResult:
        note = evidence.note if not cause else f"{evidence.note} (after: {cause})"
        if evidence.over_approved:  # charged more than asked: on the manager's list before the outcome
            await self._reader.note(attempt.id, AMOUNT_MISMATCH, {"note": evidence.note, **evidence.details})
        return await self.finish(attempt, evidence.outcome or Outcome.UNKNOWN, {**evidence.details, "message": note})

    async def finish(
        self, attempt: Attempt, outcome: Outcome, details: dict[str, Any], *, refusal: Refusal | None = None
    ) -> OperationResult:
        details = dict(details)
        message = details.pop("message", "")
        result = OperationResult(
            outcome=outcome, operation=attempt.operation, terminal_id=attempt.terminal_id,
            attempt_id=attempt.id, amount=details.pop("amount", attempt.amount), message=message,
            refusal=refusal, order_key=attempt.order_key, ref=attempt.ref, **details,
        )
        journaled = {**result.details(), **({"message": message} if message else {})}
        try:
            await self._durably(lambda: self._journal.finish(attempt.id, outcome, journaled),
                                f"recording {outcome} for {attempt.id}")  # not for people: logged
        except InvalidResolution:  # a manager decided first: keep the late answer beside it
            await self._reader.note(attempt.id, LATE_ANSWER, {"outcome": str(outcome), **journaled})
            log.warning("attempt %s: late %s after it was resolved", attempt.id, outcome)
            decided = await self._journal.get(attempt.id)
            late = _("already resolved; the service's later answer was {outcome} — a conflict: the order counts as "
                     "paid; see `pos-app terminal report`") if decided.conflict else _(
                "already resolved; the service's later answer was {outcome}")
            return OperationResult.from_attempt(decided, late.format(outcome=outcome_name(outcome)))
        except JournalError as error:
            log.error("attempt %s: the %s outcome could not be journaled: %s", attempt.id, outcome, error)
            if self.save_later and outcome is not Outcome.UNKNOWN:
                kept = self.kept(attempt.id)
                if kept is not None:  # already kept and being written: one writer per attempt
                    return kept
                unsaved = replace(result, saved=False)
                task = asyncio.get_running_loop().create_task(self._write_later(attempt, unsaved, journaled))
                self._unsaved[attempt.id] = (unsaved, task)
                self._report(attempt, Phase.FINISHED, None, outcome=outcome)
                return unsaved
            return replace(result, outcome=Outcome.UNKNOWN, refusal=None, message=_(
                "the service's answer ({outcome}) could not be recorded in the journal ({error}); the attempt stays "
                "open: run `pos-app terminal resume` once the journal is writable").format(outcome=outcome,
                                                                                             error=error))
        log.info("attempt %s: %s%s", attempt.id, outcome, f" ({message})" if message else "")
        self._report(attempt, Phase.FINISHED, None, outcome=outcome)
        return result

    async def _write_later(self, attempt: Attempt, result: OperationResult, journaled: dict[str, Any]) -> None:
        """Write an outcome the journal refused, again and again, until it takes it. If a
        decision was recorded meanwhile (a manager, another process), the outcome is kept
        beside it as a late answer (a conflict when it contradicts it), as ``finish`` does."""
        while True:
            await asyncio.sleep(self.save_retry)
            try:
                await self._journal.finish(attempt.id, result.outcome, journaled)
            except InvalidResolution:
                await self._reader.note(attempt.id, LATE_ANSWER, {"outcome": str(result.outcome), **journaled})
                log.warning("attempt %s: decided while its kept %s waited to be written", attempt.id, result.outcome)
                decided = OperationResult.from_attempt(await self._journal.get(attempt.id), _(
                    "already resolved; the service's answer kept meanwhile was {outcome}").format(
                        outcome=outcome_name(result.outcome)))
                self._saved(decided)
                return
            except (InvalidTransition, AttemptNotFound) as settled:
                log.error("attempt %s: its kept outcome cannot be written: %s", attempt.id, settled)
                return
            except JournalError as error:
                log.info("attempt %s: the %s outcome still cannot be journaled: %s", attempt.id, result.outcome,
                         error)
                continue
            except Exception:  # the journal's thread has gone (closing): the next start settles it
                log.exception("attempt %s: writing its kept outcome failed", attempt.id)
                return
            log.info("attempt %s: %s, journaled late", attempt.id, result.outcome)
            self._saved(replace(result, saved=True))
            return

    def _saved(self, result: OperationResult) -> None:
        if self._on_saved is not None:
            try:
                self._on_saved(result)
            except Exception:  # a listener's bug must not stop the writer
                log.exception("the saved-later listener failed")

    async def _durably(self, write: Callable[[], Awaitable[object]], what: str) -> None:
        """Run a journal write, retrying briefly while the file is locked or failing."""
        for pause in (*JOURNAL_RETRY_DELAYS, None):
            try:
                await write()
                return
            except (InvalidResolution, InvalidTransition, AttemptNotFound):
                raise
            except JournalError as error:
                if pause is None:
                    raise
                log.warning("journal write failed while %s (%s); trying again in %.2f s", what, error, pause)
                await asyncio.sleep(pause)

    async def try_finish(self, attempt: Attempt, outcome: Outcome, details: dict[str, Any]) -> None:
        """One try (also from a cancelled task's handler); on failure the attempt simply
        stays open, and so resumable."""
        try:
            await self._journal.finish(attempt.id, outcome, details)
        except JournalError as error:
            log.warning("attempt %s: %s not journaled: %s", attempt.id, outcome, error)

    async def finish_waiting(self, attempt: Attempt, message_id: str, wait_limit: float) -> OperationResult:
        """A type S message still not final at the wait limit: unknown, and it holds its terminal."""
        status = (await self._journal.get(attempt.id)).last_status or _("none")
        return await self.finish(attempt, Outcome.UNKNOWN, {
            "msg_identifier": message_id,
            "message": _("no final answer in {limit} s (last status {status}); the payment may still complete: the "
                         "terminal stays held until it is resumed or a manager decides; never charge again").format(
                limit=f"{wait_limit:.0f}", status=status),
        })


def answer_record(answer: TerminalResult | CloseBatchResult, operation: Operation) -> dict[str, Any]:
    """The synchronous answer as journaled: its ids and gateway text. A direct answer to
    pay/auth means the type B flow; capture, void and refund answer directly on both."""
    if isinstance(answer, CloseBatchResult):
        return {"success": answer.success, "message": answer.message}
    gateway = "B" if operation in ORDER_OPERATIONS else None
    record = {"gateway": gateway, "transactionId": answer.transaction_id, "paymentId": answer.payment_id,
              "amount": answer.amount, "resultTxt": answer.gateway_text or None}
    return {k: v for k, v in record.items() if v is not None}
