"""Property: after any sequence of journal calls and restarts, the journal agrees with a model.

The model is a dict of attempts with their terminal, order, sent flag, outcome and holder.
Every call's acceptance or refusal is predicted from it, and after every step ``in_flight()``
must be exactly the attempts without a final outcome; since every earlier owner is a
closed (dead) journal, all of them are ``resumable()`` and each shows its model holder.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, multiple, rule

from pos_app.journal import Journal, JournalError, Operation, Outcome

TERMINALS = ("T1", "T2", "T3")
ORDERS = ("o-1", "o-2", "o-3", None)
OPERATIONS = (Operation.SALE, Operation.PREAUTH, Operation.REFUND)


@dataclass
class Model:
    terminal: str
    order: str | None
    operation: Operation
    owner: str
    sent: bool = False
    outcome: Outcome | None = None


class JournalMachine(RuleBasedStateMachine):
    attempts = Bundle("attempts")

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.mkdtemp(prefix="journal-prop-")
        self.path = Path(self.folder) / "journal.db"
        self.journal = Journal.open(self.path)
        self.model: dict[str, Model] = {}

    def teardown(self) -> None:
        self.journal.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def expect(self, expected: str, call):
        try:
            value = call()
        except JournalError as exc:
            assert type(exc).__name__ == expected, f"expected {expected}, got {exc!r}"
            return None
        assert expected == "ok", f"expected {expected}, the call succeeded"
        return value

    def predict_begin(self, terminal: str, order: str | None, operation: Operation) -> str:
        if any(m.terminal == terminal and m.outcome is None for m in self.model.values()):
            return "TerminalBusy"
        unresolved = [m for m in self.model.values() if m.outcome in (None, Outcome.UNKNOWN)]
        charges = (Operation.SALE, Operation.PREAUTH)
        if operation in charges and any(m.terminal == terminal and m.operation in charges for m in unresolved):
            return "TerminalBusy"  # an unknown sale or pre-auth holds its terminal for the next one
        if operation is Operation.REFUND and any(m.operation is Operation.REFUND for m in unresolved):
            return "RefHasPendingFollowUp"  # every refund here names the same reference
        if operation in (Operation.SALE, Operation.PREAUTH) and order is not None:
            same = [m for m in self.model.values() if m.order == order]
            if any(m.outcome in (None, Outcome.UNKNOWN) for m in same):
                return "OrderHasUnknownAttempt"
            if any(m.outcome is not None and m.outcome.moved_money
                   and m.operation in (Operation.SALE, Operation.PREAUTH) for m in same):
                return "OrderAlreadyPaid"
        return "ok"

    @rule(target=attempts, terminal=st.sampled_from(TERMINALS), order=st.sampled_from(ORDERS),
          operation=st.sampled_from(OPERATIONS))
    def begin(self, terminal, order, operation):
        attempt = self.expect(
            self.predict_begin(terminal, order, operation),
            lambda: self.journal.begin_attempt(
                operation=operation, terminal_id=terminal, gateway="S", amount=700, order_key=order,
                ref="t-0" if operation is Operation.REFUND else None, request={"amount": 700},
            ),
        )
        if attempt is None:
            return multiple()
        self.model[attempt.id] = Model(terminal, order, operation, self.journal.owner)
        return attempt.id

    @rule(attempt_id=attempts)
    def mark_sent(self, attempt_id):
        model = self.model[attempt_id]
        taken = model.outcome is not None or model.sent or model.owner != self.journal.owner
        expected = "InvalidTransition" if taken else "ok"
        self.expect(expected, lambda: self.journal.mark_sent(attempt_id))
        if expected == "ok":
            model.sent = True

    @rule(attempt_id=attempts, kind=st.sampled_from(["msg_identifier", "poll_status", "answer", "lookup"]))
    def record(self, attempt_id, kind):
        self.journal.record(attempt_id, kind, {"status": "processing", "msgIdentifier": "m-1"})

    @rule(attempt_id=attempts, outcome=st.sampled_from(list(Outcome)))
    def finish(self, attempt_id, outcome):
        model = self.model[attempt_id]
        final = model.outcome is not None and model.outcome.is_final
        expected = "InvalidResolution" if final and outcome is not model.outcome else "ok"
        self.expect(expected, lambda: self.journal.finish(attempt_id, outcome))
        if expected == "ok":
            model.outcome = outcome

    @rule(attempt_id=attempts, paid=st.booleans())
    def resolve(self, attempt_id, paid):
        model = self.model[attempt_id]
        final = model.outcome is not None and model.outcome.is_final
        expected = "InvalidResolution" if final else "ok"
        self.expect(expected, lambda: self.journal.resolve_by_manager(attempt_id, paid=paid, reason="r", by="m"))
        if expected == "ok":
            model.outcome = Outcome.APPROVED if paid else Outcome.FAILED

    @rule(attempt_id=attempts)
    def claim(self, attempt_id):
        model = self.model[attempt_id]
        claimed = self.journal.claim(attempt_id)
        if model.outcome is not None and model.outcome.is_final:
            assert claimed is None
            return
        assert claimed is not None and claimed.owner == self.journal.owner
        model.owner = self.journal.owner

    @rule()
    def restart(self):
        self.journal.close()
        self.journal = Journal.open(self.path)

    @invariant()
    def in_flight_is_every_attempt_without_final_outcome(self):
        found = {a.id: a for a in self.journal.in_flight()}
        expected = {i for i, m in self.model.items() if m.outcome is None or m.outcome is Outcome.UNKNOWN}
        assert set(found) == expected
        assert [a.id for a in self.journal.resumable()] == list(found)
        for attempt_id, attempt in found.items():
            model = self.model[attempt_id]
            assert (attempt.sent, attempt.outcome, attempt.terminal_id, attempt.owner) == (
                model.sent, model.outcome, model.terminal, model.owner
            )


TestJournalModel = JournalMachine.TestCase
TestJournalModel.settings = settings(
    max_examples=60, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
