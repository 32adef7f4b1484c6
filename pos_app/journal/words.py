"""The journal's operations and outcomes as a sentence for people names them, in the
language in force (English: the journal's own values, as the sentences always said)."""

from __future__ import annotations

from pos_app.i18n import N_, _
from pos_app.journal.models import Operation, Outcome

OPERATION_NAMES = {
    Operation.SALE: N_("sale"), Operation.PREAUTH: N_("preauth"), Operation.CAPTURE: N_("capture"),
    Operation.VOID: N_("void"), Operation.REFUND: N_("refund"), Operation.CLOSE_BATCH: N_("close_batch"),
    Operation.CARD_CHARGE: N_("card_charge"), Operation.CARD_CAPTURE: N_("card_capture"),
    Operation.CARD_VOID: N_("card_void"), Operation.CARD_REFUND: N_("card_refund"),
    Operation.ACH_CHARGE: N_("ach_charge"), Operation.ACH_VOID: N_("ach_void"), Operation.ACH_REFUND: N_("ach_refund"),
    Operation.SUBSCRIPTION_RETRY: N_("subscription_retry"),
}
"""An operation as a sentence names it (English: its journal value, as the sentences always said)."""
OUTCOME_NAMES = {
    Outcome.APPROVED: N_("approved"), Outcome.PARTIALLY_APPROVED: N_("partially_approved"),
    Outcome.DECLINED: N_("declined"), Outcome.FAILED: N_("failed"), Outcome.UNKNOWN: N_("unknown"),
}
"""An outcome as a sentence names it (English: its journal value)."""


def operation_name(operation: Operation | str) -> str:
    """``operation`` in the language in force (a value not known: as it is)."""
    name = OPERATION_NAMES.get(operation) if isinstance(operation, Operation) else None
    return _(name) if name else str(operation)


def outcome_name(outcome: Outcome | str | None) -> str:
    """``outcome`` in the language in force (a value not known: as it is)."""
    name = OUTCOME_NAMES.get(outcome) if isinstance(outcome, Outcome) else None
    return _(name) if name else str(outcome)
