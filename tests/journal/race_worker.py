"""Child process for the cross-process race: both children start each round at a barrier.

Each round every child calls ``begin_attempt`` at the same moment; the results go back
through a queue as ``(round, "won" | exception class name, attempt id or blocking id)``.
"""

from __future__ import annotations

from pos_app.journal import Journal, JournalError, Operation


def race(path: str, who: str, barrier, results, rounds: int, order_rounds: int) -> None:
    outcomes = []
    with Journal.open(path, busy_timeout=10.0) as journal:
        for index in range(rounds + order_rounds):
            if index < rounds:  # same terminal, different orders: the terminal guard decides
                terminal, order = f"T-race-{index}", f"o-{who}-{index}"
            else:  # different terminals, same order: the order guard decides
                terminal, order = f"T-{who}-{index}", f"o-race-{index}"
            barrier.wait(timeout=30)
            try:
                attempt = journal.begin_attempt(
                    operation=Operation.SALE, terminal_id=terminal, gateway="B", amount=500,
                    order_key=order, request={"terminalId": terminal, "amount": 500},
                )
                outcomes.append((index, "won", attempt.id))
            except JournalError as exc:
                outcomes.append((index, type(exc).__name__, getattr(exc, "attempt_id", "")))
    results.put((who, outcomes))


def open_fresh(path: str, who: str, barrier, results) -> None:
    """Open a journal file that does not exist yet at the same moment as the others."""
    barrier.wait(timeout=30)
    try:
        with Journal.open(path, busy_timeout=10.0) as journal:
            attempt = journal.begin_attempt(
                operation=Operation.CLOSE_BATCH, terminal_id=f"T-{who}", gateway="B", request={}
            )
        results.put((who, attempt.id))
    except Exception as exc:  # reported to the parent, which fails the test with it
        results.put((who, repr(exc)))
