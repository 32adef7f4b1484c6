"""Child processes for the owner tests: a holder of attempts, and two racing claimers.

``python -m tests.journal.owner_worker PATH COUNT`` opens the journal, begins COUNT sales
(terminals ``T-held-0``, ``T-held-1``...), prints its owner id and the attempt ids on one
line, then reads stdin: killed meanwhile (SIGKILL: no ``close``, no ``finally``) it leaves
its lock file behind; at the end of its input it closes the journal cleanly and exits.
"""

from __future__ import annotations

import sys

from pos_app.journal import Journal, Operation


def hold(path: str, count: int) -> None:
    journal = Journal.open(path)
    ids = []
    for index in range(count):
        terminal = f"T-held-{index}"
        ids.append(journal.begin_attempt(
            operation=Operation.SALE, terminal_id=terminal, gateway="S", amount=1000 + index,
            order_key=f"o-held-{index}", request={"terminalId": terminal, "amount": 1000 + index},
        ).id)
    print(journal.owner, *ids, flush=True)
    sys.stdin.read()
    journal.close()


def race(path: str, who: str, attempt_ids: list[str], barrier, results) -> None:
    """Claim each attempt at the same moment as the other racer; report which claims won.

    The journal stays open (its owner alive) until both racers tried every claim, so a loser
    is refused because the winner is alive, never because the winner already left.
    """
    try:
        with Journal.open(path, busy_timeout=10.0) as journal:
            won = []
            for attempt_id in attempt_ids:
                barrier.wait(timeout=30)
                won.append(journal.claim(attempt_id) is not None)
            barrier.wait(timeout=30)
        results.put((who, journal.owner, won))
    except Exception as exc:  # reported to the parent, which fails the test with it
        results.put((who, None, repr(exc)))


if __name__ == "__main__":
    hold(sys.argv[1], int(sys.argv[2]))
