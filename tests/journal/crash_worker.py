"""Child process for the crash tests: journal a sale up to a stage, say its id, wait to be killed.

``python -m tests.journal.crash_worker PATH STAGE`` with STAGE ``begun`` (crash before the
request left), ``sent`` or ``msg`` (crash after the msgIdentifier came back). The parent
kills it with SIGKILL: no ``close``, no ``finally``, no Python shutdown.
"""

from __future__ import annotations

import sys

from pos_app.journal import Journal, Operation


def main(path: str, stage: str) -> None:
    journal = Journal.open(path)
    attempt = journal.begin_attempt(
        operation=Operation.SALE, terminal_id="T-crash", gateway="S", amount=4321,
        order_key="o-crash", request={"terminalId": "T-crash", "amount": 4321, "receipt": False},
    )
    if stage in ("sent", "msg"):
        journal.mark_sent(attempt.id)
    if stage == "msg":
        journal.record(attempt.id, "msg_identifier", {"msgIdentifier": "m-crash"})
    print(attempt.id, flush=True)
    sys.stdin.read()  # blocks until the parent kills this process


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
