"""Split payments at the station (issue 17), on the sandbox over HTTP with a real journal: a
declined card, an approved part and cash pay one order; an unknown card line holds the
order (no cash, no lowering) across a restart; an order's lines come back after a restart
as they were; cash is refused with a sentence when it cannot be taken; the receipt lists
every tender and the change; a manager's cancel gives every line back (void, or refund once
settled; cash from the drawer) and frees the items."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import CashKind, Operation, Outcome
from pos_app.receipts import TenderKind
from pos_app.staff import DEMO_MANAGER_PIN, AuditAction
from pos_app.station import Station
from pos_app.station.cancel import cancel_order
from pos_app.station.events import OrderPaid
from pos_app.station.order import LineState, Tender
from pos_app.station.receipt import receipt_of
from tests.counters import cart_over, counter_for

NO_DRAWER = "No cash drawer is connected to this station"


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


async def test_a_split_three_ways_declined_card_card_part_and_cash(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        paid_events = []
        station.events.subscribe(lambda e: paid_events.append(e.paid) if isinstance(e, OrderPaid) else None)
        try:
            total = await cart_over(counter, 1000)
            order_key = counter.cart.order_key
            sandbox.inject("terminal.pay", 501)
            declined = await counter.pay(amount=600)
            assert declined.outcome is Outcome.DECLINED and counter.payments.due(total) == total  # counts nothing
            card = await counter.pay(amount=600)
            assert card.outcome is Outcome.APPROVED and counter.payments.due(total) == total - 600
            assert counter.cart.order_key == order_key and paid_events == []
            assert [line.state for line in counter.payments.lines] == [LineState.DECLINED, LineState.APPROVED]

            taken = await counter.pay_cash(total - 600 + 253)
            assert (taken.entry.amount, taken.entry.change) == (total - 600, 253)
            assert (await taken.drawer).startswith(NO_DRAWER) and taken.paid is not None and paid_events == [taken.paid]
            paid = taken.paid
            assert paid.order_key == order_key and paid.paid == total and paid.change == 253
            assert [(line.tender, line.counted) for line in paid.payments] == [(Tender.CARD, 600),
                                                                                 (Tender.CASH, total - 600)]
            assert counter.cart.is_empty and counter.cart.order_key != order_key
            [charged] = sandbox.stats()["payments"]
            assert charged["amount"] == 600  # one card charge, for its part

            receipt = await receipt_of(paid, config, station.client, training=True)
            assert [t.kind for t in receipt.tenders] == [TenderKind.CARD, TenderKind.CASH]
            assert receipt.tenders[1].cents == total - 600 + 253 and receipt.change_cents == 253
        finally:
            await counter.aclose()


async def test_cash_alone_pays_and_more_cash_than_due_is_change(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 100)
            part = await counter.pay_cash(100)
            assert part.paid is None and counter.payments.due(total) == total - 100
            with pytest.raises(ValueError, match="items cannot change"):  # cash taken: the items are locked
                await counter.remove(counter.cart.lines[0].line_id)
            rest = await counter.pay_cash(total)
            assert rest.paid is not None and rest.entry.change == 100 and rest.paid.result is None
            with pytest.raises(ValueError, match="above zero"):
                await counter.pay_cash(0)
            assert sandbox.stats()["payments"] == []
        finally:
            await counter.aclose()


async def test_an_unknown_card_line_holds_the_order_across_a_restart(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            order_key = counter.cart.order_key
            sandbox.set_faults(drop_next=1)
            lost = await counter.pay(amount=500)
            assert lost.outcome is Outcome.UNKNOWN and counter.payments.unknown
            with pytest.raises(ValueError, match="no known result"):
                await counter.pay_cash(total)
        finally:
            await counter.aclose()
    async with await Station.open(config, sandbox.keys["B"], training=True) as again:  # the app starts again
        restored = await counter_for(again)
        try:
            assert restored.cart.order_key == order_key and restored.payments.unknown
            [line] = restored.payments.lines
            assert (line.state, line.amount) == (LineState.UNKNOWN, 500)
            with pytest.raises(ValueError, match="no known result"):
                await restored.pay_cash(total)
            assert await again.journal.order_cash(order_key) == []
            checked = await again.check_again(lost.attempt_id)  # the charge went through: it counts for its part
            assert checked.outcome is Outcome.APPROVED and restored.payments.due(total) == total - 500
            taken = await restored.pay_cash(total - 500)
            assert taken.paid is not None and len(sandbox.stats()["payments"]) == 1
        finally:
            await restored.aclose()


async def test_an_orders_lines_come_back_after_a_restart(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            await counter.pay(amount=400)
            await counter.pay_cash(300)
            before = counter.payments.lines
        finally:
            await counter.aclose()
    async with await Station.open(config, sandbox.keys["B"], training=True) as again:
        restored = await counter_for(again)
        try:
            assert [(line.tender, line.state, line.counted) for line in restored.payments.lines] == [
                (line.tender, line.state, line.counted) for line in before]
            assert restored.payments.due(total) == total - 700 and restored.last_paid is None
            card = await restored.pay()  # the balance, by card
            assert card.amount == total - 700 and restored.last_paid is not None
        finally:
            await restored.aclose()


async def test_cash_given_back_is_journaled_and_due_again(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            await counter.pay_cash(500)
            back = await station.move_cash(CashKind.RETURN, 500, reason="customer changed their mind", by="Mo",
                                           order_key=counter.cart.order_key)
            assert back.drawer_change == -500 and counter.payments.due(total) == total
            assert [line.state for line in counter.payments.lines] == [LineState.RECEIVED, LineState.GIVEN_BACK]
            assert not counter.payments.holds  # all given back: the items may change again
        finally:
            await counter.aclose()


async def test_cancelling_an_order_voids_its_card_gives_its_cash_back_and_frees_its_items(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            total = await cart_over(counter, 1000)
            order_key, lines = counter.cart.order_key, counter.cart.lines
            card = await counter.pay(amount=600)
            await counter.pay_cash(300)
            manager = await counter.disk(counter.staff.check_manager, DEMO_MANAGER_PIN)
            cancelled = await cancel_order(counter, manager, "customer left the goods")
            assert cancelled.done and cancelled.cash_returned == 300 and cancelled.drawer.startswith(NO_DRAWER)
            [void] = cancelled.given_back
            assert void.operation is Operation.VOID and void.ref == card.transaction_id
            assert counter.cart.order_key != order_key and counter.cart.lines == lines  # a new order, same items
            assert counter.payments.paid == 0 and counter.payments.due(total) == total
            [back] = [e for e in await station.journal.order_cash(order_key) if e.kind is CashKind.RETURN]
            assert (back.amount, back.cashier, back.reason) == (300, manager.name, "customer left the goods")
            audit = await counter.disk(counter.staff.audit)
            assert audit[0].action == AuditAction.ORDER_CANCELLED and audit[0].reason == "customer left the goods"
            await counter.remove(lines[0].line_id)  # the items may change again
            assert counter.cart.is_empty
        finally:
            await counter.aclose()


async def test_a_settled_charge_is_refunded_when_its_void_is_refused(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await cart_over(counter, 1000)
            card = await counter.pay(amount=500)
            assert card.outcome is Outcome.APPROVED and sandbox.settle() >= 1
            manager = await counter.disk(counter.staff.check_manager, DEMO_MANAGER_PIN)
            cancelled = await cancel_order(counter, manager, "wrong card")
            assert cancelled.done, cancelled.problem
            assert [r.operation for r in cancelled.given_back] == [Operation.REFUND]
            refunded = await station.client.get_payment(card.payment_id)
            assert refunded.refunded_amount == 500
        finally:
            await counter.aclose()


async def test_nothing_to_cancel_and_an_unknown_line_are_refused(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await cart_over(counter, 1000)
            manager = await counter.disk(counter.staff.check_manager, DEMO_MANAGER_PIN)
            with pytest.raises(ValueError, match="nothing to give back"):
                await cancel_order(counter, manager, "x")
            sandbox.set_faults(drop_next=1)
            assert (await counter.pay(amount=500)).outcome is Outcome.UNKNOWN
            with pytest.raises(ValueError, match="no known result"):
                await cancel_order(counter, manager, "x")
        finally:
            await counter.aclose()


async def test_cash_in_out_and_no_sale_are_a_managers_journaled_and_audited(sandbox, config, tmp_path):
    device = tmp_path / "drawer"
    device.touch()
    async with await Station.open(config.replace(cash_drawer=str(device)), sandbox.keys["B"],
                                  training=True) as station:
        counter = await counter_for(station)
        try:
            manager = await counter.disk(counter.staff.check_manager, DEMO_MANAGER_PIN)
            into, said = await counter.move_drawer_cash(CashKind.CASH_IN, 5000, manager=manager, reason="float")
            assert into.drawer_change == 5000 and "signalled to open" in said
            out, _ = await counter.move_drawer_cash(CashKind.CASH_OUT, 2000, manager=manager, reason="to the safe")
            nothing, _ = await counter.move_drawer_cash(CashKind.NO_SALE, 0, manager=manager, reason="change a note")
            assert (out.drawer_change, nothing.drawer_change) == (-2000, 0)
            assert device.read_bytes() == bytes.fromhex("1b700019fa") * 3
            with pytest.raises(ValueError, match="reason"):
                await counter.move_drawer_cash(CashKind.CASH_OUT, 100, manager=manager, reason="  ")
            with pytest.raises(ValueError, match="not return"):
                await counter.move_drawer_cash(CashKind.RETURN, 100, manager=manager, reason="x")
            audit = await counter.disk(counter.staff.audit, 3)
            assert [(e.action, e.reason) for e in audit] == [
                (AuditAction.NO_SALE, "change a note"), (AuditAction.CASH_OUT, "to the safe"),
                (AuditAction.CASH_IN, "float")]
            _, moves = await station.journal.shift_cash()
            assert sum(m.drawer_change for m in moves) == 3000
        finally:
            await counter.aclose()


async def test_a_tax_changed_by_a_sync_does_not_move_a_partly_paid_orders_total(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await counter.sync_catalog()
            taxed = next(i for i in await counter.search("a", 60) if i.tax_ids and i.price_cents >= 1000)
            await counter.add(taxed)
            total = counter.totals().total
            await counter.pay_cash(500)
            tax_id = taxed.tax_ids[0]
            sandbox.set_taxes("B", [{"id": tax_id, "name": "Raised", "rate": Decimal("25")}])
            await counter.sync_catalog()
            assert counter.rates[tax_id].rate != counter.cart.known_rates[tax_id].rate  # the merchant's changed
            assert counter.totals().total == total and counter.payments.due(total) == total - 500
            rest = await counter.pay_cash(total - 500)
            assert rest.paid is not None and rest.paid.totals.total == total
        finally:
            await counter.aclose()
