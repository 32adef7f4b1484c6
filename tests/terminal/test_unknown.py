"""Unknown outcomes: never resent, resolved by resuming the poll, by lookup, or by a manager."""

from __future__ import annotations

import pytest

from pos_app.journal import Outcome
from pos_app.terminal.outcomes import Refusal
from tests.terminal.conftest import pay_requests


@pytest.mark.parametrize("merchant", ["S", "B"])
async def test_dropped_answer_is_unknown_then_found_by_attempt_id(lane_factory, sandbox, merchant):
    async with lane_factory(merchant) as lane:
        result = await lane.service.sale(lane.active[0], 9906, order_number="o-lost")
        assert result.outcome is Outcome.UNKNOWN, result
        retry = await lane.service.sale(lane.active[0], 9906, order_number="o-lost")
        # the retry first looks for the lost one: found approved (not sent again), or still unknown
        assert retry.outcome is Outcome.FAILED and retry.blocked_by == result.attempt_id
        assert retry.refusal in (Refusal.EARLIER_ATTEMPT_APPROVED, Refusal.TERMINAL_HAS_UNKNOWN)
        assert pay_requests(sandbox, merchant) == 1
        attempt = lane.journal.get(result.attempt_id)
        for _ in range(100):  # type S: the charge appears once the message completes
            if attempt.outcome is Outcome.APPROVED:
                break
            [resolved] = await lane.service.resume(wait_limit=0)
            attempt = lane.journal.get(result.attempt_id)
            await lane.client.list_terminals()  # a cheap round trip paces the loop
        assert attempt.outcome is Outcome.APPROVED, attempt
        assert attempt.result["payment_id"]
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
        decided = await lane.service.resolve(result.attempt_id, paid=False, reason="terminal showed no charge",
                                             by="mgr-ann")
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
