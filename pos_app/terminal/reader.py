"""``AttemptReader``: everything the service can say of an attempt, read without resending it.

A type S message is polled through the key's ``PollScheduler``; a payment is read and
judged (a sale on its own, a capture, void or refund against its reading from before it
left); the transaction list is searched for the attempt's own entries, with duplicates
and possible matches noted in the journal for a manager. The terminal service uses it
while a request is out, on ``resume``, before a money-moving command (for the unknowns
that block it) and before a manager's decision. It never writes an outcome: it returns
``Evidence`` and the service decides.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pos_app.api.client import PaymentsClient
from pos_app.api.errors import NotFound, PaymentsError, Unauthorized
from pos_app.api.models import MessageStatus
from pos_app.i18n import _, ngettext
from pos_app.journal import Attempt, JournalError, Operation, Outcome
from pos_app.journal.models import ORDER_OPERATIONS, PAYMENT_BEFORE, REF_OPERATIONS
from pos_app.journal.threaded import AsyncJournal
from pos_app.journal.words import operation_name
from pos_app.terminal.evidence import (
    Change,
    Evidence,
    age,
    entries_evidence,
    follow_up_change,
    payment_details,
    payment_evidence,
    payment_state,
)
from pos_app.terminal.lookup import (
    CLOCK_SLACK,
    ENTRY_TYPES,
    attempt_of,
    entry_time,
    find_attempt,
    read_window,
    service_time,
)
from pos_app.terminal.outcomes import Phase
from pos_app.terminal.poller import PollScheduler
from pos_app.terminal.retries import entry_evidence

log = logging.getLogger(__name__)

Report = Callable[..., None]
"""``report(attempt, phase, started, next_poll_in=None)``: the service's progress events."""


class AttemptReader:
    """Reads the service for attempts of one key; notes what it found in the journal."""

    def __init__(
        self, client: PaymentsClient, journal: AsyncJournal, scheduler: PollScheduler, *, wait_limit: float,
        follow_up_settle: float, report: Report,
    ) -> None:
        self.client = client
        self.journal = journal
        self.scheduler = scheduler
        self.wait_limit = wait_limit
        self.follow_up_settle = follow_up_settle
        self._progress = report

    async def note(self, attempt_id: str, kind: str, data: dict[str, Any]) -> None:
        """An event that helps later (a poll status, a lookup): never worth failing a payment."""
        try:
            await self.journal.record(attempt_id, kind, data)
        except JournalError as error:
            log.warning("attempt %s: %s event not journaled: %s", attempt_id, kind, error)

    async def key_refused(self) -> bool:
        """After a 401 on a terminal request: does the service refuse the key itself?"""
        try:
            await self.client.list_terminals()
        except Unauthorized:
            return True
        except PaymentsError:
            return False
        return False

    async def wait_for_message(
        self, attempt: Attempt, message_id: str, started: float, limit: float
    ) -> MessageStatus | None:
        """Poll until the message is complete or failed (returned), None when ``limit`` runs out."""
        last_status = attempt.last_status
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            self._progress(attempt, _phase(last_status), started, self.scheduler.next_poll_in())
            try:
                message = await asyncio.wait_for(self.scheduler.poll(message_id, attempt_id=attempt.id),
                                                 timeout=max(0.01, deadline - time.monotonic()))
            except TimeoutError:
                break
            except PaymentsError as error:  # 429, connection trouble, odd answer: keep polling
                await self.note(attempt.id, "poll_error", {"error": type(error).__name__, "text": str(error)[:200]})
                continue
            if message.status != last_status:
                last_status = message.status
                await self.note(attempt.id, "poll_status", {
                    "status": message.status, "elapsed": round(time.monotonic() - started, 3),
                    **({"paymentId": message.payment_id} if message.payment_id else {}),
                })
                self._progress(attempt, _phase(message.status), started)
            if message.status in ("complete", "failed"):
                return message
        return None

    async def message_evidence(self, attempt: Attempt, message_id: str, message: MessageStatus) -> Evidence:
        if message.payment_id:
            evidence = await self.payment_evidence(attempt, message.payment_id, None, answered=True)
            evidence = await self.with_card(attempt, evidence)
        else:  # failed without a payment: the terminal reported failure, nothing was charged
            evidence = Evidence(Outcome.FAILED, {}, message.error or _("the terminal reported failure"))
        return replace(evidence, details={**evidence.details, "msg_identifier": message_id})

    async def with_card(self, attempt: Attempt, evidence: Evidence) -> Evidence:
        """Card details for the receipt of an approved sale; the outcome does not depend on it."""
        payment_id = evidence.details.get("payment_id")
        moved = evidence.outcome is not None and evidence.outcome.moved_money
        if not moved or attempt.operation not in ORDER_OPERATIONS or not payment_id:
            return evidence
        if "card_last4" in evidence.details:
            return evidence
        try:
            card = payment_details(await self.client.get_payment(payment_id))
        except PaymentsError as error:
            log.info("card details of %s not read: %s", payment_id, error)
            return evidence
        card_only = {key: value for key, value in card.items() if key.startswith("card_")}
        return replace(evidence, details={**evidence.details, **card_only})

    async def payment_evidence(
        self, attempt: Attempt, payment_id: str, before: dict[str, Any] | None, *, answered: bool
    ) -> Evidence:
        """A sale's payment judged on its own; a follow-up's compared with ``before``.

        ``answered``: the service answered this request (an unchanged payment then proves
        that nothing moved); otherwise only after ``follow_up_settle`` seconds."""
        try:
            payment = await self.client.get_payment(payment_id)
        except PaymentsError as error:
            return Evidence(None, {"payment_id": payment_id}, _("the payment could not be read: {error}").format(
                error=error))
        if attempt.operation not in REF_OPERATIONS:
            return payment_evidence(payment, attempt.operation, attempt.amount)
        if before is None:
            return Evidence(None, {"payment_id": payment_id}, _("the payment was not read before the request left"))
        change = follow_up_change(attempt.operation, attempt.amount, before, payment)
        details = {"payment_id": payment.id, "amount": attempt.amount}
        if change is Change.MOVED:
            return Evidence(Outcome.APPROVED, details, _("the payment shows the {operation}").format(
                operation=operation_name(attempt.operation)))
        settled = answered or age(attempt) >= self.follow_up_settle
        if change is Change.NONE and settled:
            return Evidence(Outcome.FAILED, details, _("the payment shows no {operation}: nothing moved").format(
                operation=operation_name(attempt.operation)))
        return Evidence(None, details, _("the payment does not show whether the {operation} happened "
                                         "(status {before!r} → {after!r})").format(
            operation=operation_name(attempt.operation), before=before.get("status"), after=payment.status))

    async def read_payment_before(self, attempt: Attempt, payment_id: str | None) -> dict[str, Any] | None:
        """Journal the payment's state before a capture, void or refund leaves, when it can be read."""
        assert attempt.ref is not None
        payment_id = payment_id or await self.journal.payment_for_ref(attempt.ref)
        if not payment_id:
            return None
        try:
            payment = await self.client.get_payment(payment_id)
        except PaymentsError as error:
            log.info("attempt %s: payment %s not read before sending: %s", attempt.id, payment_id, error)
            return None
        state = payment_state(payment)
        await self.note(attempt.id, PAYMENT_BEFORE, state)
        return state

    async def list_evidence(self, attempt: Attempt) -> Evidence:
        """The attempt's own entries in the transaction list; raises ``PaymentsError`` when
        the list cannot be read."""
        found = await find_attempt(self.client, attempt, waited=self.wait_limit)
        await self.note(attempt.id, "lookup", {"found": len(found.matches), "possible": len(found.possible),
                                          "complete": found.complete})
        if len(found.matches) > 1:
            await self.note(attempt.id, "duplicate_entries", {
                "note": _("{count} service transactions name attempt {attempt}: a possible double charge; check "
                          "them and refund the extra one").format(count=len(found.matches), attempt=attempt.id),
                "entries": [e.id or e.transaction_id for e in found.matches],
            })
        evidence = entries_evidence(list(found.matches), attempt.operation, attempt.amount)
        if evidence.outcome is not None:
            return evidence
        if found.possible:
            ids = sorted(str(e.id or e.transaction_id) for e in found.possible)
            events = (await self.journal.get(attempt.id)).events
            if not any(e.kind == "possible_match" and e.data.get("entries") == ids for e in events):
                await self.note(attempt.id, "possible_match", {
                    "note": ngettext(
                        "the service recorded {count} transaction of {amount} cents on terminal {terminal} without "
                        "our attempt id ({ids}): check whether it is this attempt before deciding",
                        "the service recorded {count} transactions of {amount} cents on terminal {terminal} without "
                        "our attempt id ({ids}): check whether one is this attempt before deciding", len(ids)).format(
                        count=len(ids), amount=attempt.amount, terminal=attempt.terminal_id, ids=", ".join(ids)),
                    "entries": ids,
                })
            return Evidence(None, {}, _("a transaction of the same amount on this terminal was recorded without "
                                        "our attempt id: a manager must check it"), possible_match=True)
        return Evidence(None, {}, _("not found in the service's transactions yet; resume later or ask a manager"))

    async def reference_evidence(self, attempt: Attempt, reference: str) -> Evidence:
        """The charge a manager names as this attempt's (its payment id, or the gateway
        reference printed on the terminal's slip), judged as the attempt's own payment would
        be (paid, for the amount asked). It proves nothing (``outcome`` None, ``note`` says
        why) when the service knows no such payment, when the journal already accounts it to
        another attempt, when the service's list does not show it (yet), shows it made by
        another attempt or on another terminal, when it was made before the attempt began,
        or when it does not stand as the attempt's charge (``STANDING_CHARGE``: a voided,
        refunded or merely held payment for a sale). Raises ``PaymentsError`` when the
        service cannot be asked."""
        reference = reference.strip()
        if not reference:
            return Evidence(None, {}, _("no reference was given"))
        window = await read_window(self.client, attempt.created_at - CLOCK_SLACK)
        entry = next((e for e in window.entries if reference in (e.payment_id, e.id, e.transaction_id)
                      and (e.type or "").casefold() in PAYMENT_ENTRY_TYPES), None)
        try:
            payment = await self.client.get_payment(entry.payment_id or entry.id or reference if entry else reference)
        except NotFound:
            return Evidence(None, {}, _("the service knows no payment {reference!r}: check the reference on the "
                                        "terminal's slip").format(reference=reference))
        for named in {reference, payment.id, payment.transaction_id} - {None}:
            owner = await self.journal.charge_owner(str(named))
            if owner is not None and owner != attempt.id:
                return Evidence(None, {}, _("payment {payment} is already the charge of attempt {owner}: it "
                                            "cannot also pay this one").format(payment=payment.id, owner=owner))
        if entry is None:  # its terminal and its maker are not known yet: never proof
            return Evidence(None, {}, _("the service's transaction list does not show payment {payment} yet (or "
                                        "not since this attempt began): try again in a few minutes").format(
                payment=payment.id))
        made_by = attempt_of(entry)
        if made_by is not None and made_by != attempt.id:
            return Evidence(None, {}, _("payment {payment} was made by attempt {attempt}, not this one").format(
                payment=payment.id, attempt=made_by))
        on_terminal = attempt.operation.acts_as is attempt.operation  # not a charge of the service's own routes
        if on_terminal and entry.terminal_id != attempt.terminal_id:
            return Evidence(None, {}, _("payment {payment} was made on terminal {terminal}, not {ours}").format(
                payment=payment.id, terminal=entry.terminal_id or _("unknown"), ours=attempt.terminal_id))
        made = entry_time(entry) or service_time(payment.created_at)
        if made is not None and made < attempt.created_at - CLOCK_SLACK:
            return Evidence(None, {}, _("payment {payment} was made at {made} UTC, before this attempt began").format(
                payment=payment.id, made=f"{made:%Y-%m-%d %H:%M}"))
        standing = STANDING_CHARGE[attempt.operation.acts_as]
        if payment.status not in standing:
            if payment.status:
                return Evidence(None, {}, _("payment {payment} is {status}, not {standing}: it does not stand as this "
                                            "{operation}").format(payment=payment.id, status=payment.status,
                                                                  standing=_(" or ").join(sorted(standing)),
                                                                  operation=operation_name(attempt.operation)))
            return Evidence(None, {}, _("payment {payment} is of no stated status, not {standing}: it does not stand "
                                        "as this {operation}").format(payment=payment.id,
                                                                      standing=_(" or ").join(sorted(standing)),
                                                                      operation=operation_name(attempt.operation)))
        evidence = payment_evidence(payment, attempt.operation, attempt.amount)
        if evidence.outcome is None or not evidence.outcome.moved_money:
            return Evidence(None, evidence.details, _("payment {payment} is not a charge of this attempt: "
                                                      "{reason}").format(payment=payment.id,
                                                                         reason=evidence.note or evidence.outcome))
        return replace(evidence, details={**evidence.details, "reference": reference},
                       note=_("the manager named payment {payment}; the service shows it charged").format(
                           payment=payment.id))

    async def evidence(self, attempt: Attempt, limit: float) -> Evidence:
        """Everything the service can say of an attempt, without resending it: its message,
        its payment (compared with the reading before, for a follow-up), its list entries.
        Raises ``PaymentsError`` when the transaction list cannot be read."""
        if not attempt.sent:
            return Evidence(Outcome.FAILED, {}, _("the request never left: nothing was charged"))
        if attempt.operation is Operation.CLOSE_BATCH:
            return Evidence(None, {}, _("a close batch cannot be looked up: check the terminal's batch "
                                        "report, then a manager resolves it"))
        self._progress(attempt, Phase.CHECKING, time.monotonic())
        if attempt.operation is Operation.SUBSCRIPTION_RETRY:  # nothing carries its attempt id: its entry tells
            return await entry_evidence(self.client, attempt, answered=False, settle=self.follow_up_settle)
        payment_id = attempt.result.get("payment_id")
        if attempt.operation in REF_OPERATIONS:
            before = attempt.payment_before
            if before is not None:
                evidence = await self.payment_evidence(attempt, before["payment_id"], before, answered=False)
                if evidence.outcome is not None:
                    return evidence
        else:
            if attempt.msg_identifier and not payment_id:
                message = await self.wait_for_message(attempt, attempt.msg_identifier, time.monotonic(), limit)
                if message is not None:
                    evidence = await self.message_evidence(attempt, attempt.msg_identifier, message)
                    if evidence.outcome is not None:
                        return evidence
                    payment_id = message.payment_id
            if payment_id:
                evidence = await self.payment_evidence(attempt, payment_id, None, answered=False)
                if evidence.outcome is not None:
                    return await self.with_card(attempt, evidence)
        return await self.list_evidence(attempt)

PAYMENT_ENTRY_TYPES = ENTRY_TYPES[Operation.SALE] | ENTRY_TYPES[Operation.PREAUTH]
STANDING_CHARGE = {Operation.SALE: frozenset({"captured"}), Operation.PREAUTH: frozenset({"auth", "captured"})}
"""The payment statuses a charge a manager names must have to stand as the attempt's: a sale's
captured (not voided, refunded or only held), a pre-auth's held or captured since."""


def _phase(status: str | None) -> Phase:
    try:
        return Phase(status) if status is not None else Phase.WAITING
    except ValueError:
        return Phase.WAITING

