"""Returns of an order's lines (issue 17), on the sandbox over HTTP with a real journal: the
plan gives each line's money back to the tender it came from (card first, newest charge
first, then cash), a settled card by a refund of the part, an unsettled one by a void (the
whole charge) or a void and a new charge of the kept part; cash from the drawer; a refund
to cash of a card sale is a manager's option, audited; a step not approved stops the plan
and nothing more is sent."""

from __future__ import annotations

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import CashKind, Operation, Outcome, ReturnStage
from pos_app.staff import DEMO_CASHIER_PIN, AuditAction, NotAManager
from pos_app.station import Station
from pos_app.station.returns import StepKind, read_order, run_return
from tests.counters import counter_for, manager_of, two_lines


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


def amount_of(line, quantity, totals):
    """A line's price and tax share for ``quantity`` of it (the first return of it)."""
    tax = totals.per_line.get(line.line_id, 0)
    return line.unit_cents * quantity + (2 * tax * quantity + line.quantity) // (2 * line.quantity)


async def test_a_settled_card_gives_back_a_part_by_refund_and_the_lines_count_as_returned(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            totals = counter.totals()
            card = await counter.pay()
            assert card.outcome is Outcome.APPROVED and sandbox.settle() >= 1
            order = await read_order(station, order_key)
            assert [(e.line.line_id, e.line.quantity, e.returned) for e in order.lines] == [
                (lines[0].line_id, 2, 0), (lines[1].line_id, 1, 0)]
            assert sum(e.line.tax_cents for e in order.lines) == totals.tax
            [charge] = order.charges
            assert charge.settled is True and charge.counted == totals.total
            plan = order.plan({lines[0].line_id: 1})
            amount = amount_of(lines[0], 1, totals)
            assert plan.amount == amount
            [step] = plan.steps
            assert step.kind is StepKind.REFUND and step.amount == amount
            assert plan.sentences(counter.money)[0].startswith(f"Refund {counter.money(amount)} to ")
            done = await run_return(counter, plan, manager=await manager_of(counter), reason="broken")
            assert done.complete and done.given_back == amount, done.problem
            refunded = await station.client.get_payment(card.payment_id)
            assert refunded.refunded_amount == amount
            again = await read_order(station, order_key)
            assert [e.returned for e in again.lines] == [1, 0]
            with pytest.raises(ValueError, match="between 1 and 1"):
                again.plan({lines[0].line_id: 2})
            assert [r.stage for r in await station.journal.order_returns(order_key)] == [ReturnStage.BEGUN,
                                                                                        ReturnStage.DONE]
            [audit] = await counter.disk(counter.staff.audit, 1)
            assert (audit.action, audit.reason) == (AuditAction.RETURN, "broken")
        finally:
            await counter.aclose()


async def test_an_unsettled_card_returned_in_part_is_voided_and_the_kept_part_charged_again(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            totals = counter.totals()
            card = await counter.pay()
            order = await read_order(station, order_key)
            assert order.charges[0].settled is False
            plan = order.plan({lines[1].line_id: 1})
            amount = amount_of(lines[1], 1, totals)
            [step] = plan.steps
            assert (step.kind, step.amount, step.kept) == (StepKind.VOID_AND_CHARGE, amount, totals.total - amount)
            assert plan.customer_presents_card
            assert "the customer presents the card" in plan.sentences(counter.money)[0]
            done = await run_return(counter, plan, manager=await manager_of(counter), reason="did not fit")
            assert done.complete, done.problem
            assert [(r.operation, r.outcome) for r in done.results] == [(Operation.VOID, Outcome.APPROVED),
                                                                          (Operation.SALE, Outcome.APPROVED)]
            assert done.given_back == amount
            payments = sandbox.stats()["payments"]
            assert [(p["amount"], p["status"]) for p in payments] == [(totals.total, "voided"),
                                                                       (totals.total - amount, "captured")]
            charges = await station.journal.order_charges(order_key)
            assert sum(charges.values()) == totals.total - amount  # the order's net: the kept part
            assert card.attempt_id not in charges
            after = await read_order(station, order_key)
            assert [c.counted for c in after.charges] == [totals.total - amount]
            assert [e.returned for e in after.lines] == [0, 1]
            assert counter.cart.order_key != order_key  # the screen's sale is not touched
        finally:
            await counter.aclose()


async def test_an_unsettled_card_returned_whole_is_a_plain_void(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            total = counter.totals().total
            card = await counter.pay()
            plan = (await read_order(station, order_key)).plan({lines[0].line_id: 2, lines[1].line_id: 1})
            assert plan.amount == total and [s.kind for s in plan.steps] == [StepKind.VOID]
            done = await run_return(counter, plan, manager=await manager_of(counter), reason="changed mind")
            assert done.complete and done.given_back == total
            surcharge = (await station.client.get_payment(card.payment_id)).surcharge
            money = counter.money
            said = (f"voided the {money(total + surcharge)} ({money(total)} + {money(surcharge)} surcharge) card"
                    if surcharge else f"voided the {money(total)} card")
            assert surcharge > 0 and said in done.sentence(money)  # what the card gets back: the surcharge too
            assert [p["status"] for p in sandbox.stats()["payments"]] == ["voided"]
            assert await station.journal.order_charges(order_key) == {}
        finally:
            await counter.aclose()


async def test_a_split_order_gives_back_the_card_first_then_cash_from_the_drawer(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            total = counter.totals().total
            await counter.pay(amount=600)
            taken = await counter.pay_cash(total - 600)
            assert taken.paid is not None
            order = await read_order(station, order_key)
            assert order.cash_kept == total - 600
            plan = order.plan({lines[0].line_id: 2, lines[1].line_id: 1})
            assert [(s.kind, s.amount) for s in plan.steps] == [(StepKind.VOID, 600), (StepKind.CASH, total - 600)]
            assert plan.sentences(counter.money)[1] == f"Give back {counter.money(total - 600)} cash from the drawer"
            manager = await manager_of(counter)
            done = await run_return(counter, plan, manager=manager, reason="faulty")
            assert done.complete and done.given_back == total and done.drawer
            back = [e for e in await station.journal.order_cash(order_key) if e.kind is CashKind.RETURN]
            assert [(e.amount, e.cashier, e.reason) for e in back] == [(total - 600, manager.name, "faulty")]
        finally:
            await counter.aclose()


async def test_a_refund_to_cash_of_a_card_sale_is_a_managers_and_audited(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            totals = counter.totals()
            card = await counter.pay()
            sandbox.settle()
            with pytest.raises(NotAManager):
                await counter.disk(counter.staff.check_manager, DEMO_CASHIER_PIN)
            order = await read_order(station, order_key)
            plan = order.plan({lines[1].line_id: 1}, to_cash=True)
            amount = amount_of(lines[1], 1, totals)
            [step] = plan.steps
            assert (step.kind, step.amount, step.for_card) == (StepKind.CASH, amount, True)
            with pytest.raises(ValueError, match="reason"):
                await run_return(counter, plan, manager=await manager_of(counter), reason=" ")
            done = await run_return(counter, plan, manager=await manager_of(counter), reason="card expired")
            assert done.complete and done.given_back == amount
            assert (await station.client.get_payment(card.payment_id)).refunded_amount in (0, None)
            [back] = await station.journal.order_cash(order_key)
            assert (back.kind, back.amount) == (CashKind.RETURN, amount)
            [audit] = await counter.disk(counter.staff.audit, 1)
            assert (audit.action, audit.reason) == (AuditAction.RETURN_TO_CASH, "card expired")
        finally:
            await counter.aclose()


async def test_a_step_not_approved_stops_the_plan_and_nothing_more_is_sent(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            total = counter.totals().total
            await counter.pay(amount=600)
            await counter.pay_cash(total - 600)
            plan = (await read_order(station, order_key)).plan({lines[0].line_id: 2, lines[1].line_id: 1})
            sandbox.inject("terminal.void", 500)  # the service fails the void
            done = await run_return(counter, plan, manager=await manager_of(counter), reason="faulty")
            assert not done.complete and done.given_back == 0 and "void" in done.problem
            assert [(r.operation, r.outcome) for r in done.results] == [(Operation.VOID, Outcome.FAILED)]
            assert [p["status"] for p in sandbox.stats()["payments"]] == ["captured"]
            assert [e.kind for e in await station.journal.order_cash(order_key)] == [CashKind.SALE]  # no cash back
            records = await station.journal.order_returns(order_key)
            assert [r.stage for r in records] == [ReturnStage.BEGUN, ReturnStage.STOPPED]
            assert "The return stopped" in done.sentence(counter.money)
        finally:
            await counter.aclose()


async def test_a_declined_charge_again_stops_and_says_the_customer_has_everything_back(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            total = counter.totals().total
            await counter.pay()
            plan = (await read_order(station, order_key)).plan({lines[1].line_id: 1})
            sandbox.inject("terminal.pay", 501)  # the card is declined when presented again
            done = await run_return(counter, plan, manager=await manager_of(counter), reason="did not fit")
            assert not done.complete and done.given_back == total
            assert "declined" in done.problem and "the customer has the whole" in done.problem
            assert [(r.operation, r.outcome) for r in done.results] == [(Operation.VOID, Outcome.APPROVED),
                                                                          (Operation.SALE, Outcome.DECLINED)]
            assert [p["status"] for p in sandbox.stats()["payments"]][0] == "voided"
        finally:
            await counter.aclose()
