"""A result settles only its own order (issue 16, rows 1 to 3 and 12): the cart is paid only
by an approval of an attempt made for its own order key, for its amount; a partial
approval leaves the rest due; a manager's "paid" needs the service's evidence; a close by
serial ends the terminal's shift. Real sandbox, real journal, the station's counter."""

from __future__ import annotations

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.journal.models import AMOUNT_MISMATCH
from pos_app.sandbox.faults import DROP_ANSWER
from pos_app.station import Station
from pos_app.station.events import OperationEnded, OrderPaid
from pos_app.station.order import Tender
from pos_app.terminal.outcomes import Refusal
from tests.counters import counter_for


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


async def cart_of(counter, minimum: int = 1000):
    """The counter's cart with one synced catalog item of at least ``minimum`` cents."""
    await counter.sync_catalog()
    item = next(i for i in await counter.search("a", 60) if i.price_cents >= minimum)
    await counter.add(item)
    return counter.cart


async def test_row1_only_this_orders_approval_pays_the_cart(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        paid_events = []
        station.events.subscribe(lambda e: paid_events.append(e) if isinstance(e, OrderPaid) else None)
        try:
            cart = await cart_of(counter)
            order_key, lines = cart.order_key, cart.lines
            sandbox.inject("terminal.pay", 501)  # this cart: declined before a transaction id
            declined = await counter.pay()
            assert declined.outcome is Outcome.DECLINED and declined.order_key == order_key

            # another order on another terminal: its answer lost, then found by "check again"
            other = await station.sale(DROP_ANSWER, order_key="cart-other-lane", terminal_id="tb-2002")
            assert other.outcome is Outcome.UNKNOWN
            found = await station.check_again(other.attempt_id)
            assert found.outcome is Outcome.APPROVED and found.order_key == "cart-other-lane"
            # a pre-auth of another order, captured; a sale of another order, voided: approvals too
            held = await station.sale(2000, order_key="cart-tab", terminal_id="tb-2002", preauth=True)
            captured = await station.capture("tb-2002", held.transaction_id, 1500, payment_id=held.payment_id)
            voided = await station.void("tb-2002", found.transaction_id, payment_id=found.payment_id)
            assert {captured.outcome, voided.outcome} == {Outcome.APPROVED}

            assert counter.cart.order_key == order_key and counter.cart.lines == lines  # still this sale
            assert counter.last_paid is None and paid_events == [] and counter.payments.paid == 0

            own = await counter.pay()  # and this cart's own approval pays it
            assert own.outcome is Outcome.APPROVED and own.amount == counter.last_paid.totals.total
            assert counter.last_paid.result is own and counter.last_paid.lines == lines
            assert counter.cart.is_empty and counter.cart.order_key != order_key
            assert [e.paid for e in paid_events] == [counter.last_paid]
        finally:
            await counter.aclose()


async def test_row1_a_check_again_of_its_own_lost_payment_pays_the_cart(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            cart = await cart_of(counter)
            sandbox.set_faults(drop_next=1)
            lost = await counter.pay()
            assert lost.outcome is Outcome.UNKNOWN and counter.cart is cart
            found = await station.check_again(lost.attempt_id)  # as the back office does
            assert found.outcome is Outcome.APPROVED
            assert counter.last_paid is not None and counter.last_paid.result is found and counter.cart.is_empty
        finally:
            await counter.aclose()


@pytest.mark.parametrize("merchant,terminal", [("B", "tb-2001"), ("S", "ts-1001")])
async def test_row2_an_approval_for_less_is_partial_and_leaves_the_rest_due(sandbox, config, merchant, terminal):
    sandbox.set_faults(s_delay_min=0.2, s_delay_max=0.3, approve_at_most=500)
    async with await Station.open(config.replace(terminal_id=terminal), sandbox.keys[merchant],
                                  training=True) as station:
        counter = await counter_for(station)
        try:
            cart = await cart_of(counter, minimum=600)
            total = counter.totals().total
            result = await counter.pay()
            assert result.outcome is Outcome.PARTIALLY_APPROVED, result
            assert (result.amount, result.approved_amount, result.charged) == (total, 500, 500)
            assert result.to_json()["outcome"] == "partially_approved" and result.to_json()["approved_amount"] == 500
            attempt = await station.journal.get(result.attempt_id)
            assert attempt.outcome is Outcome.PARTIALLY_APPROVED and attempt.result["approved_amount"] == 500
            assert attempt.charged == 500 and attempt.is_final

            assert counter.cart is cart and counter.last_paid is None  # the order stays open
            assert counter.payments.paid == 500 and counter.payments.due(total) == total - 500
            with pytest.raises(ValueError, match="at most what is due"):
                await counter.pay(amount=total)  # never a charge above the balance
            entry = await counter.pay_cash(total - 500 + 100)  # the rest in cash, with change
            assert (entry.amount, entry.change) == (total - 500, 100)
            paid = counter.last_paid
            assert paid is not None and paid.paid == total and paid.change == 100
            assert [line.tender for line in paid.payments] == [Tender.CARD, Tender.CASH]
            [payment] = sandbox.stats()["payments"]  # the card was charged once
            assert payment["amount"] == 500
        finally:
            await counter.aclose()


async def test_row2_an_approval_for_more_pays_the_order_and_asks_a_manager_to_give_it_back(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            await cart_of(counter)
            total = counter.totals().total
            sandbox.inject("terminal.pay", 201, body={
                "error": False, "transactionId": "t-over", "amount": total + 700,
                "gwResponse": {"resultCode": "0", "resultTxt": "APPROVED"}})
            result = await counter.pay()
            assert result.outcome is Outcome.APPROVED and result.approved_amount == total + 700
            assert counter.last_paid is not None and counter.last_paid.overcharged == 700
            attempt = await station.journal.get(result.attempt_id)
            assert any(e.kind == AMOUNT_MISMATCH for e in attempt.events)
            assert any("7 cents back" in note or "700 cents back" in note for note in attempt.attention)
        finally:
            await counter.aclose()


async def test_row2_an_approval_that_does_not_say_how_much_is_not_proven(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            cart = await cart_of(counter)
            sandbox.inject("terminal.pay", 201, body={
                "error": False, "transactionId": "t-silent", "gwResponse": {"resultCode": "0", "resultTxt": "OK"}})
            result = await counter.pay()
            assert result.outcome is Outcome.UNKNOWN and counter.cart is cart and counter.last_paid is None
        finally:
            await counter.aclose()


async def test_row3_paid_needs_the_services_evidence(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        other = await station.sale(1800, order_key="cart-another", terminal_id="tb-2002")  # someone else's charge
        sandbox.inject("terminal.pay", 503)  # the request reached the service, which charged nothing
        lost = await station.sale(2500, order_key="cart-unknown")
        assert lost.outcome is Outcome.UNKNOWN
        for force in (False, True):
            refused = await station.resolve(lost.attempt_id, paid=True, reason="terminal said ok", by="mgr",
                                            force=force)
            assert refused.refusal is Refusal.NO_CHARGE_FOUND and "--reference" in refused.message
        taken = await station.resolve(lost.attempt_id, paid=True, reason="terminal said ok", by="mgr",
                                      reference=other.payment_id)
        assert taken.refusal is Refusal.NO_CHARGE_FOUND and other.attempt_id in taken.message
        unknown_ref = await station.resolve(lost.attempt_id, paid=True, reason="terminal said ok", by="mgr",
                                            reference="p-no-such-payment")
        assert unknown_ref.refusal is Refusal.NO_CHARGE_FOUND and "knows no payment" in unknown_ref.message
        attempt = await station.journal.get(lost.attempt_id)
        assert attempt.needs_resolution and attempt.resolved_by is None  # nothing was decided
        not_paid = await station.resolve(lost.attempt_id, paid=False, reason="nothing on the slip", by="mgr",
                                         force=True)
        assert not_paid.outcome is Outcome.FAILED and not_paid.refusal is None


async def test_row3_paid_with_the_slips_reference_of_a_charge_the_list_does_not_name(sandbox, config):
    sandbox.set_faults(foreign_user_agent=1)  # the service records its own user-agent: no attempt id
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        sandbox.set_faults(drop_next=1)
        lost = await station.sale(2700, order_key="cart-slip")
        assert lost.outcome is Outcome.UNKNOWN
        [payment] = sandbox.stats()["payments"]
        slip = (await station.client.get_payment(payment["id"])).transaction_id  # what the terminal printed
        elsewhere = await station.sale(2700, order_key="cart-elsewhere", terminal_id="tb-2002")
        refused = await station.resolve(lost.attempt_id, paid=True, reason="slip", by="mgr",
                                        reference=elsewhere.transaction_id)
        assert refused.refusal is Refusal.NO_CHARGE_FOUND and "already the charge" in refused.message
        paid = await station.resolve(lost.attempt_id, paid=True, reason="slip shows approved", by="mgr",
                                     reference=slip)
        assert paid.outcome is Outcome.APPROVED and paid.refusal is None and paid.resolved_by == "mgr"
        assert paid.payment_id == payment["id"] and paid.transaction_id == slip
        again = await station.sale(2700, order_key="cart-slip")
        assert again.refusal is Refusal.ORDER_PAID  # the order is charged: never again


async def test_row12_a_close_by_serial_ends_the_terminals_shift(sandbox, config):
    s_config = config.replace(terminal_id="ts-1001")
    sandbox.set_faults(s_delay_min=0.2, s_delay_max=0.3)
    async with await Station.open(s_config, sandbox.keys["S"], training=True) as station:
        ended = []
        station.events.subscribe(lambda e: ended.append(e.result) if isinstance(e, OperationEnded) else None)
        sale = await station.sale(1537, order_key="cart-before-close")
        assert sale.outcome is Outcome.APPROVED
        end = await station.shift_end("P3A-2310-0101", by="mgr", by_serial=True)
        close = end.report.close.result
        assert close.outcome is Outcome.APPROVED and close.terminal_id == "ts-1001"
        assert ended[-1] is close
        [journaled] = [a for a in await station.journal.attempts(terminal_id="ts-1001")
                       if a.id == close.attempt_id]
        assert journaled.request["serial"] == "P3A-2310-0101" and journaled.request["bySerial"] is True
        after = await station.shift_check("ts-1001")  # the next shift starts at this close
        assert sale.attempt_id not in {line.attempt_id for line in after.lines}
        unknown = await station.shift_end("P3A-0000-9999", by="mgr", by_serial=True)
        assert unknown.report.close.result.refusal is Refusal.INVALID_INPUT
        assert not any(a.request.get("serial") == "P3A-0000-9999" for a in await station.journal.attempts())


async def test_a_cart_restored_after_its_order_was_paid_becomes_a_new_sale(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            cart = await cart_of(counter)
            total = counter.totals().total
        finally:
            await counter.aclose()  # the cart is on disk; the app stops here...
        paid = await station.sale(total, order_key=cart.order_key)  # ...after its payment went through
        assert paid.outcome is Outcome.APPROVED

        restored = await counter_for(station, read_order=False)  # the next start: the same cart comes back
        announced = []
        station.events.subscribe(lambda e: announced.append(e.paid) if isinstance(e, OrderPaid) else None)
        try:
            assert restored.cart.order_key == cart.order_key
            await restored.restore_order()
            assert restored.cart.is_empty and restored.cart.order_key != cart.order_key
            assert restored.last_paid is not None and restored.last_paid.restored
            assert restored.last_paid.result.attempt_id == paid.attempt_id and announced == [restored.last_paid]
        finally:
            await restored.aclose()
