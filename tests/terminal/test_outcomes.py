"""Each operation and each outcome, for both gateway types, against the sandbox."""

from __future__ import annotations

import asyncio

import pytest

from pos_app.api.errors import InvalidInput
from pos_app.journal import Operation, Outcome
from pos_app.terminal.outcomes import Refusal
from tests.terminal.conftest import pay_requests

BOTH = ["S", "B"]


@pytest.mark.parametrize("merchant", BOTH)
async def test_sale_approved_with_ids_and_card(lane_factory, sandbox, merchant):
    async with lane_factory(merchant) as lane:
        result = await lane.service.sale(lane.active[0], 1250, order_number="o-1")
        assert result.outcome is Outcome.APPROVED, result
        assert result.payment_id and result.transaction_id and result.card_last4
        assert result.amount == 1250
        if merchant == "S":
            assert result.msg_identifier
        attempt = lane.journal.get(result.attempt_id)
        assert attempt.outcome is Outcome.APPROVED and attempt.sent
        assert pay_requests(sandbox, merchant) == 1


@pytest.mark.parametrize("merchant,amount", [("S", 99), ("B", 99), ("S", 9904), ("B", 9904), ("B", 9905)])
async def test_declines_become_declined(lane_factory, merchant, amount):
    async with lane_factory(merchant) as lane:
        result = await lane.service.sale(lane.active[0], amount)
        assert result.outcome is Outcome.DECLINED, result
        assert lane.journal.get(result.attempt_id).outcome is Outcome.DECLINED


async def test_a_failed_message_is_failed(lane_factory):
    async with lane_factory("S") as lane:
        result = await lane.service.sale(lane.active[0], 9901)
        assert result.outcome is Outcome.FAILED, result


async def test_a_400_gateway_failure_proves_nothing_and_is_unknown(lane_factory):
    async with lane_factory("B") as lane:
        result = await lane.service.sale(lane.active[0], 9901)
        assert result.outcome is Outcome.UNKNOWN, result


@pytest.mark.parametrize("merchant", BOTH)
async def test_inactive_terminal_fails_and_nothing_is_charged(lane_factory, sandbox, merchant):
    async with lane_factory(merchant) as lane:
        assert lane.inactive, "the sandbox has an inactive terminal"
        result = await lane.service.sale(lane.inactive, 1000)
        assert result.outcome is Outcome.FAILED and "inactive" in result.message.lower()
        assert not [p for p in sandbox.stats()["payments"] if p["merchant"] == merchant]


async def test_another_merchants_terminal_is_refused(lane_factory):
    async with lane_factory("B") as b_lane:
        b_terminal = b_lane.active[0]
    async with lane_factory("S") as lane:
        result = await lane.service.sale(b_terminal, 1000)
        assert result.outcome is Outcome.FAILED and "401" in result.message


async def test_invalid_amount_is_refused_before_any_request(lane_factory, sandbox):
    async with lane_factory("B") as lane:
        for bad in (0, -5, 12.5, True):
            with pytest.raises(InvalidInput):
                await lane.service.sale(lane.active[0], bad)
        with pytest.raises(InvalidInput):
            await lane.service.sale(lane.active[0], 100, phone="555-123-4567")
        with pytest.raises(InvalidInput):
            await lane.service.capture(lane.active[0], "ref", 10_000_001)
        assert pay_requests(sandbox, "B") == 0
        assert lane.journal.attempts() == []


@pytest.mark.parametrize("merchant", BOTH)
async def test_preauth_capture_then_close_batch_then_refund(lane_factory, merchant):
    async with lane_factory(merchant) as lane:
        terminal = lane.active[0]
        auth = await lane.service.preauth(terminal, 5000)
        assert auth.outcome is Outcome.APPROVED, auth
        over = await lane.service.capture(terminal, auth.transaction_id, 5001)
        assert over.outcome is Outcome.FAILED, "capture above the pre-auth is refused"
        assert "shows no capture" in over.message  # proven by reading the payment again
        captured = await lane.service.capture(terminal, auth.transaction_id, 4500)
        assert captured.outcome is Outcome.APPROVED, captured
        early = await lane.service.refund(terminal, auth.transaction_id, 1000)
        assert early.outcome is Outcome.FAILED, "an unsettled payment cannot be refunded"
        closed = await lane.service.close_batch(terminal)
        assert closed.outcome is Outcome.APPROVED, closed
        refund = await lane.service.refund(terminal, auth.transaction_id, 1000)
        assert refund.outcome is Outcome.APPROVED, refund
        void = await lane.service.void(terminal, auth.transaction_id)
        assert void.outcome is Outcome.FAILED, "a settled payment cannot be voided"
        ops = [a.operation for a in lane.journal.attempts()]
        assert ops.count(Operation.CAPTURE) == 2 and Operation.CLOSE_BATCH in ops


@pytest.mark.parametrize("merchant", BOTH)
async def test_void_of_an_unsettled_sale(lane_factory, merchant):
    async with lane_factory(merchant) as lane:
        sale = await lane.service.sale(lane.active[0], 2200)
        void = await lane.service.void(lane.active[0], sale.transaction_id)
        assert void.outcome is Outcome.APPROVED, void
        again = await lane.service.void(lane.active[0], sale.transaction_id)
        assert again.outcome is Outcome.FAILED


@pytest.mark.parametrize("merchant", BOTH)
async def test_close_batch_decline_inside_2xx_is_declined(lane_factory, sandbox, merchant):
    async with lane_factory(merchant) as lane:
        sandbox.set_faults(close_batch_decline_next=1)
        result = await lane.service.close_batch(lane.active[0])
        assert result.outcome is Outcome.DECLINED, result


@pytest.mark.parametrize("merchant", BOTH)
async def test_double_press_sends_one_request(lane_factory, sandbox, merchant):
    async with lane_factory(merchant) as lane:
        first, second = await asyncio.gather(
            lane.service.sale(lane.active[0], 1500, order_number="o-dbl"),
            lane.service.sale(lane.active[0], 1500, order_number="o-dbl"),
        )
        outcomes = sorted([first.outcome, second.outcome])
        assert outcomes == sorted([Outcome.APPROVED, Outcome.FAILED])
        refused = first if first.outcome is Outcome.FAILED else second
        assert refused.refusal is Refusal.TERMINAL_BUSY and refused.attempt_id is None
        assert pay_requests(sandbox, merchant) == 1


async def test_type_s_poll_429_is_survived(lane_factory, sandbox):
    async with lane_factory("S") as lane:
        result = await lane.service.sale(lane.active[0], 9907)
        assert result.outcome is Outcome.APPROVED, result
        kinds = [e.kind for e in lane.journal.get(result.attempt_id).events]
        assert kinds.count("poll_error") >= 1


async def test_type_s_timeout_then_complete_is_approved(lane_factory, sandbox):
    sandbox.set_faults(timeout_hold_s=1.0)
    async with lane_factory("S") as lane:
        result = await lane.service.sale(lane.active[0], 9902)
        assert result.outcome is Outcome.APPROVED, result
        statuses = [e.data.get("status") for e in lane.journal.get(result.attempt_id).events if e.kind == "poll_status"]
        assert "timeout" in statuses and statuses[-1] == "complete"


async def test_gateway_type_from_config_does_not_override_the_answer_shape(lane_factory):
    async with lane_factory("B", gateway="s") as lane:
        result = await lane.service.sale(lane.active[0], 1300)
        assert result.outcome is Outcome.APPROVED and result.msg_identifier is None
