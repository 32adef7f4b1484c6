"""Money given back is never given twice (issue 17's second review): a refund or void with
no answer yet counts as given back when cash would go out for the card; a return to cash
waits for an unknown refund of the card; a card refunded to cash is not refunded again from
the back office; a second return after a refund is covered by what the card still keeps; a
refund result published again counts once, so a cancel gives back the rest. On the sandbox
over HTTP with a real journal, or on the journal alone."""

from __future__ import annotations

from datetime import date

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import CashKind, Journal, Operation, Outcome
from pos_app.sandbox.faults import Injections
from pos_app.station import Station
from pos_app.station.back_office import BackOffice
from pos_app.station.cancel import cancel_order
from pos_app.station.returns import StepKind, read_order, run_return
from tests.counters import cart_over, counter_for, manager_of, two_lines


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


def cash_back(entries) -> int:
    return sum(e.amount for e in entries if e.kind is CashKind.RETURN)


# -- an unknown refund is money that may have gone back -----------------------------------------


def test_cash_for_a_card_is_refused_while_a_refund_of_that_card_is_unknown(tmp_path):
    """Journal alone: an order of $100.00 paid by a card; a refund of the whole charge is sent
    and its answer is lost (unknown). A manager's refund in cash of what the card paid
    (``record_cash(RETURN, for_card=True)``) must not be allowed for that money while the
    refund may have gone through: were it approved, the customer has it twice."""
    with Journal.open(tmp_path / "j.sqlite3") as journal:
        journal.record_order("o-1", subtotal=10000, tax=0, taxes={})
        sale = journal.begin_attempt(operation=Operation.SALE, terminal_id="t1", gateway="B", amount=10000,
                                     order_key="o-1", request={})
        journal.mark_sent(sale.id)
        journal.finish(sale.id, Outcome.APPROVED, {"transaction_id": "900000000001", "payment_id": "p1",
                                                   "amount": 10000})
        refund = journal.begin_attempt(operation=Operation.REFUND, terminal_id="t1", gateway="B", amount=10000,
                                       ref="900000000001", request={})
        journal.mark_sent(refund.id)
        journal.finish(refund.id, Outcome.UNKNOWN)
        with pytest.raises(ValueError):
            journal.record_cash(CashKind.RETURN, 10000, reason="refund to cash", order_key="o-1",
                                station_id="lane-9", cashier="Mo", for_card=True)


def test_cash_for_a_card_is_refused_while_a_void_of_that_card_is_unknown(tmp_path):
    """Journal alone: as above with a void whose answer is lost: a void approved later gives
    the whole charge back, so cash for it must not go out meanwhile."""
    with Journal.open(tmp_path / "j.sqlite3") as journal:
        journal.record_order("o-1", subtotal=10000, tax=0, taxes={})
        sale = journal.begin_attempt(operation=Operation.SALE, terminal_id="t1", gateway="B", amount=10000,
                                     order_key="o-1", request={})
        journal.mark_sent(sale.id)
        journal.finish(sale.id, Outcome.APPROVED, {"transaction_id": "900000000001", "payment_id": "p1",
                                                   "amount": 10000})
        void = journal.begin_attempt(operation=Operation.VOID, terminal_id="t1", gateway="B",
                                     ref="900000000001", request={})
        journal.mark_sent(void.id)
        journal.finish(void.id, Outcome.UNKNOWN)
        with pytest.raises(ValueError):
            journal.record_cash(CashKind.RETURN, 10000, reason="refund to cash", order_key="o-1",
                                station_id="lane-9", cashier="Mo", for_card=True)


async def test_a_return_to_cash_while_a_refund_of_the_card_is_unknown_gives_back_once(sandbox, config):
    """A card sale, settled. A manager refunds the whole charge from the back office (F9); the
    answer is lost and the service cannot be read (the refund stays unknown). The customer
    comes back: the manager returns every item to cash. Were the drawer to pay the total and
    the refund be found approved later, the customer would have the money twice: no cash goes
    out for that card while its refund is unknown (the customer gets the total back once)."""
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            total = counter.totals().total
            card = await counter.pay()
            assert card.outcome is Outcome.APPROVED and sandbox.settle() >= 1
            sandbox.set_faults(drop_next=1)
            sandbox.inject("payment.get", 503, count=50)
            sandbox.inject("transactions.list", 503, count=50)
            lost = await station.refund(card.terminal_id, card.transaction_id, total, payment_id=card.payment_id)
            assert lost.outcome is Outcome.UNKNOWN, lost
            try:
                order = await read_order(station, order_key)
                plan = order.plan({lines[0].line_id: 2, lines[1].line_id: 1}, to_cash=True)
                await run_return(counter, plan, manager=await manager_of(counter), reason="changed mind")
            except ValueError:
                pass  # refused: the safe way
            sandbox.sandbox.injections = Injections()  # the service is back
            checked = await station.check_again(lost.attempt_id)
            refunded = (await station.client.get_payment(card.payment_id)).refunded_amount or 0
            given_cash = cash_back(await station.journal.order_cash(order_key))
            assert checked.outcome is Outcome.APPROVED and refunded == total
            assert refunded + given_cash <= total, f"card refunded {refunded} and cash {given_cash} of {total}"
        finally:
            await counter.aclose()


# -- a refund to cash, then the card refunded from the back office -------------------------------


async def test_a_card_refunded_to_cash_is_not_refunded_again_from_the_back_office(sandbox, config):
    """A card sale, settled; every item is returned *to cash* (the manager's option: the card
    is not refunded, the drawer pays the total). Later a manager opens the payments list (F9):
    the row still shows the whole payment refundable (the service knows nothing of the cash)
    and the back office refunds it to the card too. Safe: the back office refuses (or caps at
    what the order still keeps, here nothing): the customer had the money back in cash."""
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            total = counter.totals().total
            card = await counter.pay()
            assert card.outcome is Outcome.APPROVED and sandbox.settle() >= 1
            plan = (await read_order(station, order_key)).plan({lines[0].line_id: 2, lines[1].line_id: 1},
                                                              to_cash=True)
            done = await run_return(counter, plan, manager=await manager_of(counter), reason="card expired")
            assert done.complete and done.given_back == total
            office = BackOffice(counter)
            history = await office.payments(date.today())
            [row] = [r for r in history.rows if r.transaction_id == card.transaction_id and r.attempt_id]
            try:
                await office.refund(row, min(row.refundable, total) or total, manager=await manager_of(counter),
                                    reason="customer asked again")
            except ValueError:
                pass  # refused: the safe way
            refunded = (await station.client.get_payment(card.payment_id)).refunded_amount or 0
            assert refunded + cash_back(await station.journal.order_cash(order_key)) <= total
        finally:
            await counter.aclose()


# -- a second return after a refund ---------------------------------------------------------------


async def test_a_second_return_after_a_card_refund_is_covered_by_what_the_card_keeps(sandbox, config):
    """A card sale of 2 × A + B, settled. A first return of one A refunds its part to the card.
    A second return of the rest (A and B) should refund the rest to the same card (the card
    keeps exactly that). ``read_order`` takes the refund off twice: ``Charge.counted`` is
    already net of the journal's approved refunds and ``Charge.left`` takes the service's
    ``refunded_amount`` off again, so the plan says the order's payments do not cover the
    return (or, with cash in the order, would give cash from the drawer for a card's money)."""
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            order_key, lines = await two_lines(counter)
            total = counter.totals().total
            card = await counter.pay()
            assert card.outcome is Outcome.APPROVED and sandbox.settle() >= 1
            first = (await read_order(station, order_key)).plan({lines[0].line_id: 1})
            done = await run_return(counter, first, manager=await manager_of(counter), reason="broken")
            assert done.complete, done.problem
            order = await read_order(station, order_key)
            [charge] = order.charges
            assert charge.left == total - first.amount, (charge.counted, charge.refunded)
            second = order.plan({lines[0].line_id: 1, lines[1].line_id: 1})
            assert [(s.kind, s.amount) for s in second.steps] == [(StepKind.REFUND, total - first.amount)]
        finally:
            await counter.aclose()


# -- a refund result seen twice --------------------------------------------------------------------


async def test_a_refund_result_published_again_counts_once_and_a_cancel_gives_back_the_rest(sandbox, config):
    """The sale on the screen took $4.00 by card (settled). A manager refunds $1.50 of it from the
    back office; then the refund is checked again (``Station.check_again`` on the final attempt:
    the attention list, a second window): the same approved refund is published a second time
    and ``OrderPayments.take`` adds it again (refunds are summed with no attempt id, unlike
    voids). The counter then says the card keeps $1.00, and a cancel refunds only $1.00 and
    reports everything given back: the customer is short $1.50. Safe: the refund counts once
    and the cancel refunds the $2.50 the card still keeps."""
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            card = await counter.pay(amount=400)
            assert card.outcome is Outcome.APPROVED and sandbox.settle() >= 1
            back = await station.refund(card.terminal_id, card.transaction_id, 150, payment_id=card.payment_id)
            assert back.outcome is Outcome.APPROVED
            assert counter.payments.due(total) == total - 250
            again = await station.check_again(back.attempt_id)
            assert again.outcome is Outcome.APPROVED
            cancelled = await cancel_order(counter, await manager_of(counter), "customer changed their mind")
            refunded = (await station.client.get_payment(card.payment_id)).refunded_amount
            assert refunded == 400, f"the customer got {refunded} of the 400 charged back (cancel: {cancelled})"
        finally:
            await counter.aclose()
