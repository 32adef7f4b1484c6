"""Settlement: captured, unsettled payments become settled (then they can be refunded,
no longer voided).

Three things settle: closing a terminal's batch (that terminal's payments), the admin
route ``POST /_sandbox/settle`` (every payment of both merchants) and, when the
``settle_hour`` knob is set, the service's daily run at that local hour.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from pos_app.sandbox.records import Payment


def settle(payments: Iterable[Payment], *, at: float) -> int:
    """Settle those of ``payments`` that are captured and unsettled; how many that was."""
    settled = 0
    for payment in payments:
        if payment.status == "captured" and not payment.settled:
            payment.settled = True
            payment.touch(at)
            settled += 1
    return settled


def latest_run(hour: int, now: float) -> float:
    """Epoch seconds of the latest ``hour``:00 local time at or before ``now``."""
    moment = datetime.fromtimestamp(now)
    run = moment.replace(hour=hour, minute=0, second=0, microsecond=0)
    if run > moment:
        run -= timedelta(days=1)
    return run.timestamp()
