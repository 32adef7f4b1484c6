"""Returns of a phone order paid by payment link, on the sandbox over HTTP with a real
journal: the link's payment covers the return through the service's card routes by its
payment id (journaled follow-ups), a settled one refunded for the part, an unsettled one
voided whole, a part of an unsettled one refused before anything is written (no card to
charge again); never twice; a refund whose result is unknown stops the return and holds the
next one until it is checked. The shift's figures
take the give-back off the link's line, not a card on file's."""

from __future__ import annotations

from datetime import date

import pytest

from pos_app.journal import Operation, Outcome
from pos_app.station.back_office import BackOffice
from pos_app.station.link_returns import PART_OF_UNSETTLED
from pos_app.station.returns import StepKind, read_order, run_return
from tests.counters import manager_of, two_lines
from tests.links import paid
from tests.parking import PHONE, lane


async def paid_by_link(sandbox, it) -> tuple[str, tuple, object]:
    """A two-line order parked on a link its customer paid: its key, its lines, its parking."""
    order_key, lines = await two_lines(it.counter)
    parking = await it.parked.park(PHONE)
    paid(sandbox, parking.link_id)
    done = await it.parked.check(parking)
    assert done.paid
    return order_key, lines, done


async def follow_ups(it, payment_id: str) -> list:
    return [(a.operation, a.outcome, a.amount) for a in await it.station.journal.attempts()
            if a.ref == payment_id]


async def test_a_settled_link_payment_is_refunded_for_the_part_once(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        order_key, lines, parking = await paid_by_link(sandbox, it)
        assert sandbox.settle() >= 1
        order = await read_order(it.station, order_key)
        [charge] = order.charges
        assert (charge.link, charge.counted, charge.settled) == (parking, parking.amount, True)
        assert charge.label.startswith("Payment link ") and " •••• " in charge.label  # the service's card
        plan = order.plan({lines[1].line_id: 1})
        [step] = plan.steps
        assert step.kind is StepKind.REFUND and step.amount == plan.amount
        manager = await manager_of(it.counter)
        done = await run_return(it.counter, plan, manager=manager, reason="arrived broken")
        assert done.complete and done.given_back == plan.amount, done.problem
        assert done.done == [f"refunded {it.counter.money(plan.amount)} to {charge.label}"]
        assert (await it.station.client.get_payment(parking.payment_id)).refunded_amount == plan.amount
        assert await follow_ups(it, parking.payment_id) == [(Operation.CARD_REFUND, Outcome.APPROVED, plan.amount)]

        again = await read_order(it.station, order_key)  # never twice: the line is returned, the refund counted
        assert [e.returned for e in again.lines] == [0, 1] and again.charges[0].refunded == plan.amount
        with pytest.raises(ValueError, match="between 1 and 0|is not a line"):
            again.plan({lines[1].line_id: 1})

        check = await it.station.shift_check("tb-2001")
        assert check.clean, [d.sentence(str) for d in check.differences]
        links = check.figures.link
        assert (links.gross.amount, links.refunds.amount, links.net.amount) == (
            parking.amount, plan.amount, parking.amount - plan.amount)
        assert check.figures.card.refunds.amount == 0  # not a card on file's refund


async def test_an_unsettled_link_payment_is_voided_whole_and_a_part_of_it_refused(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        order_key, lines, parking = await paid_by_link(sandbox, it)
        order = await read_order(it.station, order_key)
        assert order.charges[0].settled is False
        with pytest.raises(ValueError, match="only all of it can be given back now"):
            order.plan({lines[1].line_id: 1})
        assert await it.station.journal.order_returns(order_key) == []  # nothing written

        plan = order.plan({lines[0].line_id: 2, lines[1].line_id: 1})
        [step] = plan.steps
        assert step.kind is StepKind.VOID and plan.amount == parking.amount
        done = await run_return(it.counter, plan, manager=await manager_of(it.counter), reason="order cancelled")
        assert done.complete and done.given_back == parking.amount, done.problem
        assert done.done[0].startswith("voided the ") and "payment (Payment link " in done.done[0]
        assert await follow_ups(it, parking.payment_id) == [(Operation.CARD_VOID, Outcome.APPROVED, None)]
        assert (await read_order(it.station, order_key)).charges == ()  # voided: it covers nothing any more

        check = await it.station.shift_check("tb-2001")
        assert check.clean, [d.sentence(str) for d in check.differences]
        links = check.figures.link
        assert (links.gross.amount, links.voids.amount, links.net.amount, links.tax) == (
            parking.amount, parking.amount, 0, 0)


async def test_a_refund_unknown_stops_the_return_and_holds_the_next_one(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        order_key, lines, parking = await paid_by_link(sandbox, it)
        assert sandbox.settle() >= 1
        plan = (await read_order(it.station, order_key)).plan({lines[1].line_id: 1})
        sandbox.set_faults(reset_next=1)  # the refund's connection aborted before processing: nothing refunded
        done = await run_return(it.counter, plan, manager=await manager_of(it.counter), reason="arrived broken")
        assert not done.complete and done.given_back == 0 and done.done == []
        assert done.problem.startswith(f"the refund of {it.counter.money(plan.amount)} to Payment link ")
        assert "is unknown" in done.problem  # it may have been processed: unknown, never resent
        with pytest.raises(ValueError, match="no known result yet"):  # unknown: no other return meanwhile
            await read_order(it.station, order_key)
        assert (await it.station.client.get_payment(parking.payment_id)).refunded_amount in (0, None)


def test_the_refusal_says_what_to_do():
    assert "return every line left" in PART_OF_UNSETTLED and "once it has settled" in PART_OF_UNSETTLED


async def test_f9s_row_of_a_link_payment_opens_its_order_for_a_return(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        order_key, lines, parking = await paid_by_link(sandbox, it)
        office = BackOffice(it.counter)
        history = await office.payments(date.today())
        [row] = [row for row in history.rows if row.payment_id == parking.payment_id]
        assert row.attempt_id is None  # no attempt of this station made it: the link's customer paid it
        order = await office.order_for_return(row)
        assert order.order_key == order_key and [c.link for c in order.charges] == [parking]


async def test_f9s_void_and_refund_of_a_link_payment_go_by_its_payment_id(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        office = BackOffice(it.counter)
        manager = await manager_of(it.counter)
        _, _, voided = await paid_by_link(sandbox, it)
        [row] = [r for r in (await office.payments(date.today())).rows if r.payment_id == voided.payment_id]
        void = await office.void(row, manager=manager, reason="customer called back")
        assert (void.operation, void.outcome, void.ref) == (Operation.CARD_VOID, Outcome.APPROVED, voided.payment_id)

        _, _, refunded = await paid_by_link(sandbox, it)
        assert sandbox.settle() >= 1
        [row] = [r for r in (await office.payments(date.today())).rows if r.payment_id == refunded.payment_id]
        refund = await office.refund(row, 500, manager=manager, reason="goodwill")
        assert (refund.operation, refund.outcome, refund.ref) == (Operation.CARD_REFUND, Outcome.APPROVED,
                                                                  refunded.payment_id)

        links = (await it.station.shift_check("tb-2001")).figures.link  # taken off the links' line
        assert (links.voids.amount, links.refunds.amount) == (voided.amount, 500)
        assert links.net.amount == refunded.amount - 500
