"""Money given back never counts twice, and never goes back on a guess (issue 17's review):
a refund takes its part off the order (in memory, in the journal, after a restart), a cancel
tried again after a stop refunds nothing twice, a void not done refunds only a payment the
service shows settled, cash refused because another process paid the order moves the
counter on, cash given back prints no negative tender, and the cart found at start cannot
change until it is read against the journal. On the sandbox over HTTP with a real journal."""

from __future__ import annotations

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import CashKind, JournalError, Operation, OrderAlreadyPaid, Outcome
from pos_app.staff import DEMO_MANAGER_PIN
from pos_app.station import Station
from pos_app.station.cancel import cancel_order
from pos_app.station.events import OperationEnded
from pos_app.station.order import LineState
from pos_app.station.receipt import receipt_of
from tests.counters import cart_over, counter_for


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


def refunds_of(attempts, transaction_id: str) -> list[int]:
    return [a.amount for a in attempts if a.operation is Operation.REFUND and a.ref == transaction_id]


async def test_a_cancel_tried_again_after_a_stop_never_refunds_twice(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await cart_over(counter, 1000)
            order_key = counter.cart.order_key
            settled = await counter.pay(amount=400)
            assert settled.outcome is Outcome.APPROVED and sandbox.settle() >= 1
            open_card = await counter.pay(amount=300)
            assert open_card.outcome is Outcome.APPROVED

            def void_fails_after_the_refund(event) -> None:
                if isinstance(event, OperationEnded) and event.result.operation is Operation.REFUND:
                    sandbox.inject("terminal.void", 500, count=1)

            unsubscribe = station.events.subscribe(void_fails_after_the_refund)
            manager = await counter.disk(counter.staff.check_manager, DEMO_MANAGER_PIN)
            first = await cancel_order(counter, manager, "customer changed their mind")
            unsubscribe()
            assert not first.done and [r.operation for r in first.given_back] == [Operation.REFUND]
            assert "void" in first.problem
            states = [(line.state, line.counted) for line in counter.payments.lines]
            assert states == [(LineState.REFUNDED, 0), (LineState.APPROVED, 300)]
            assert await station.journal.order_charges(order_key) == {settled.attempt_id: 0,
                                                                     open_card.attempt_id: 300}

            second = await cancel_order(counter, manager, "customer changed their mind")
            assert second.done, second.problem
            assert [r.operation for r in second.given_back] == [Operation.VOID]
            assert refunds_of(await station.journal.attempts(), settled.transaction_id) == [400]
            assert (await station.client.get_payment(settled.payment_id)).refunded_amount == 400
        finally:
            await counter.aclose()


async def test_a_void_not_done_on_an_unsettled_payment_sends_no_refund(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await cart_over(counter, 1000)
            card = await counter.pay(amount=500)
            sandbox.inject("terminal.void", 500, count=1)
            manager = await counter.disk(counter.staff.check_manager, DEMO_MANAGER_PIN)
            cancelled = await cancel_order(counter, manager, "wrong card")
            assert not cancelled.done and cancelled.problem.startswith("the void of the card payment")
            assert refunds_of(await station.journal.attempts(), card.transaction_id) == []
            assert counter.payments.paid == 500  # still charged: the order holds it
        finally:
            await counter.aclose()


async def test_a_refund_from_the_back_office_makes_its_part_due_again(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            order_key = counter.cart.order_key
            card = await counter.pay(amount=400)
            assert card.outcome is Outcome.APPROVED and sandbox.settle() >= 1
            back = await station.refund(card.terminal_id, card.transaction_id, 150, payment_id=card.payment_id)
            assert back.outcome is Outcome.APPROVED
            assert counter.payments.due(total) == total - 250
            taken = await counter.pay_cash(total - 400)  # what was due before the refund
            assert taken.paid is None and counter.payments.due(total) == 150
        finally:
            await counter.aclose()
    async with await Station.open(config, sandbox.keys["B"], training=True) as again:
        counter = await counter_for(again)
        try:
            assert counter.cart.order_key == order_key and counter.payments.due(total) == 150
            paid = (await counter.pay_cash(150)).paid
            assert paid is not None and paid.paid == total
        finally:
            await counter.aclose()


async def test_cash_refused_because_another_process_paid_the_order_moves_the_counter_on(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            order_key = counter.cart.order_key
            await counter.pay(amount=400)
            other = config.replace(station_id="cli", terminal_id="tb-2002")
            async with await Station.open(other, sandbox.keys["B"], training=True) as cli:
                rest = await cli.sale(total - 400, order_key=order_key)  # pos-app terminal sale --order-number
            assert rest.outcome is Outcome.APPROVED, rest.message
            with pytest.raises(OrderAlreadyPaid):
                await counter.pay_cash(total - 400)
            assert counter.cart.order_key != order_key
            assert counter.last_paid is not None and counter.last_paid.paid == total
        finally:
            await counter.aclose()


async def test_cash_given_back_comes_off_the_receipts_cash_never_a_negative_tender(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            await counter.pay_cash(500)
            await counter.pay_cash(200)
            await station.move_cash(CashKind.RETURN, 600, reason="wrong note", by="Mo",
                                    order_key=counter.cart.order_key)
            card = await counter.pay()
            assert card.outcome is Outcome.APPROVED and card.amount == total - 100
            receipt = await receipt_of(counter.last_paid, config, station.client, training=True)
            card_total = total - 100 + receipt.surcharge_cents  # the card's tender is what the card paid
            assert [(t.kind.value, t.cents) for t in receipt.tenders] == [("card", card_total), ("cash", 100)]
        finally:
            await counter.aclose()


async def test_the_cart_found_at_start_cannot_change_until_it_is_read(sandbox, config):
    """The app was killed after an order was paid in full but before the new cart was
    written: at the next start, an item scanned before the journal is read is refused (it
    would join the paid order); the first payment reads the order itself."""
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            old_key = counter.cart.order_key
            saved = config.cart_path.read_bytes()  # the cart file as a kill -9 would leave it
            assert (await counter.pay_cash(total)).paid is not None
        finally:
            await counter.aclose()
    config.cart_path.write_bytes(saved)
    async with await Station.open(config, sandbox.keys["B"], training=True) as again:
        counter = await counter_for(again, read_order=False)  # the start: the journal not read yet
        try:
            assert counter.cart.order_key == old_key
            item = next(i for i in await counter.search("e", 50) if i.price_cents > 300)
            with pytest.raises(ValueError, match="still being checked"):
                await counter.add(item)
            with pytest.raises(ValueError, match="above zero"):  # read first: found paid, a new empty sale
                await counter.pay_cash(100)
            assert counter.cart.order_key != old_key and counter.last_paid.restored
            await counter.add(item)
            assert len(counter.cart.lines) == 1
        finally:
            await counter.aclose()


async def test_a_journal_that_cannot_be_read_at_start_keeps_the_cart_locked(sandbox, config, monkeypatch):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await cart_over(counter, 1000)
        finally:
            await counter.aclose()
    async with await Station.open(config, sandbox.keys["B"], training=True) as again:
        counter = await counter_for(again, read_order=False)
        try:
            async def unreadable(order_key: str):
                raise JournalError("disk I/O error")

            monkeypatch.setattr(again.journal, "order_charges", unreadable)
            with pytest.raises(JournalError):
                await counter.pay()
            item = next(i for i in await counter.search("e", 50) if i.price_cents > 0)
            with pytest.raises(ValueError, match="still being checked"):
                await counter.add(item)
        finally:
            await counter.aclose()
