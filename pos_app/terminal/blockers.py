"""Which unresolved attempts stand in the way of a new operation, and which of them, once
found approved, mean the new one is most likely their retry. They mirror the journal's
guards (``Journal.begin_attempt``), so the terminal service can settle exactly those first."""

from __future__ import annotations

from pos_app.journal import Attempt, Operation
from pos_app.journal.models import ORDER_OPERATIONS, REF_OPERATIONS


def blocks(attempt: Attempt, operation: Operation, terminal_id: str, order_key: str | None, ref: str | None) -> bool:
    """Whether the unresolved ``attempt`` would make the journal refuse this operation."""
    if attempt.terminal_id == terminal_id and (
        attempt.outcome is None or (operation in ORDER_OPERATIONS and attempt.operation in ORDER_OPERATIONS)
    ):
        return True
    if operation in ORDER_OPERATIONS and order_key and attempt.order_key == order_key:
        return attempt.operation in ORDER_OPERATIONS
    return operation in REF_OPERATIONS and ref is not None and attempt.ref == ref


def same_money(earlier: Attempt, operation: Operation, ref: str | None) -> bool:
    """Whether an earlier attempt moved the money this operation is about to move: a
    charge on the same terminal or order, or a follow-up of the same transaction."""
    if operation in ORDER_OPERATIONS:
        return earlier.operation in ORDER_OPERATIONS
    return earlier.operation in REF_OPERATIONS and ref is not None and earlier.ref == ref
