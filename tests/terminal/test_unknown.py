"""Unknown outcomes: never resent, resolved by resuming the poll, by lookup, or by a manager."""

from __future__ import annotations

import pytest

from pos_app.journal import Outcome
from tests.terminal.conftest import pay_requests



@pytest.mark.parametrize("merchant", ["S", "B"])
async def test_dropped_answer_is_unknown_then_found_by_attempt_id(lane_factory, sandbox, merchant):
    async with lane_factory(merchant) as lane:
        result = await lane.service.sale(lane.active[0], 9906, order_number="o-lost")
        assert result.outcome is Outcome.UNKNOWN, result
        retry = await lane.service.sale(lane.active[0], 9906, order_number="o-lost")
        assert retry.outcome is Outcome.FAILED and "unknown" in retry.message.lower()
        assert pay_requests(sandbox, merchant) == 1
        resolved = None
        for _ in range(100):  # type S: the charge appears once the message completes
            [resolved] = await lane.service.resume(wait_limit=0)
            if resolved.outcome is not Outcome.UNKNOWN:
                break
            await lane.client.list_terminals()  # a cheap round trip paces the loop
        assert resolved.outcome is Outcome.APPROVED, resolved
        assert resolved.payment_id and resolved.attempt_id == result.attempt_id
        assert pay_requests(sandbox, merchant) == 1
        assert lane.journal.in_flight() == []


async def test_timeout_forever_is_unknown_then_resolved_by_lookup(lane_factory, sandbox):
    async with lane_factory("S", wait_limit=1.5) as lane:
        result = await lane.service.sale(lane.active[0], 9903)
        assert result.outcome is Outcome.UNKNOWN and result.msg_identifier
        [resolved] = await lane.service.resume(wait_limit=0.6)
        assert resolved.outcome is Outcome.APPROVED, resolved
        assert pay_requests(sandbox, "S") == 1


@pytest.mark.parametrize("merchant", ["S", "B"])
async def test_5xx_on_pay_is_unknown_and_a_manager_settles_it(lane_factory, sandbox, merchant):
    async with lane_factory(merchant) as lane:
        result = await lane.service.sale(lane.active[0], 9908, order_number="o-5xx")
        assert result.outcome is Outcome.UNKNOWN
        [still] = await lane.service.resume(wait_limit=0)
        assert still.outcome is Outcome.UNKNOWN
        decided = lane.service.resolve(result.attempt_id, paid=False, reason="terminal showed no charge", by="mgr-ann")
        assert decided.outcome is Outcome.FAILED and decided.resolved_by == "mgr-ann"
        assert lane.journal.in_flight() == []
        again = await lane.service.sale(lane.active[0], 1000, order_number="o-5xx")
        assert again.outcome is Outcome.APPROVED
        assert pay_requests(sandbox, merchant) == 2


async def test_connection_reset_before_processing_is_never_resent(lane_factory, sandbox):
    async with lane_factory("B") as lane:
        sandbox.set_faults(reset_next=1)
        result = await lane.service.sale(lane.active[0], 1000)
        assert result.outcome is Outcome.UNKNOWN
        assert pay_requests(sandbox, "B") == 1
        assert not [p for p in sandbox.stats()["payments"] if p["merchant"] == "B"]


async def test_a_late_answer_after_a_manager_decision_is_kept_not_lost(lane_factory, sandbox):
    import asyncio

    sandbox.set_faults(s_delay_min=1.5, s_delay_max=1.5)
    async with lane_factory("S") as lane:
        sale = asyncio.ensure_future(lane.service.sale(lane.active[0], 3300))
        while not any(a.msg_identifier for a in lane.journal.in_flight()):
            await asyncio.sleep(0.05)
        [attempt] = lane.journal.in_flight()
        lane.service.resolve(attempt.id, paid=False, reason="customer walked away", by="mgr-bo")
        result = await sale
        late = [e for e in lane.journal.get(attempt.id).events if e.kind == "late_answer"]
    assert result.outcome is Outcome.FAILED and "later answer was approved" in result.message
    assert late and late[0].data["outcome"] == "approved" and late[0].data["payment_id"]
