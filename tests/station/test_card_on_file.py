"""F4 at the station (issue 19), on the sandbox over HTTP with a real journal: the attached
customer's stored cards (read fresh, the default first) and the surcharge quoted by the
card's BIN; an approved charge is a card-on-file payment line that pays the order (its
receipt names the card and the customer); a decline counts nothing; a dropped answer is
unknown and holds the order (cash refused, a second F4 not sent); a part on file and cash
for the rest; no customer, no card: a sentence and nothing sent; a cancel and a return give
the charge back on the service's void and refund routes, never a terminal's (a part of an
unsettled one is refused before anything is sent), as does the back office's void."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from decimal import Decimal

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import Operation, Outcome
from pos_app.receipts import TenderKind
from pos_app.station import Station
from pos_app.station.back_office import BackOffice
from pos_app.station.cancel import cancel_order
from pos_app.station.card_on_file import StoredCard, quote, read_part, stored_cards
from pos_app.station.counter import Counter
from pos_app.station.customers import find_customers
from pos_app.station.events import OrderPaid
from pos_app.station.order import LineState, Tender
from pos_app.station.receipt import receipt_of
from pos_app.station.returns import StepKind, read_order, run_return
from pos_app.terminal.outcomes import Refusal
from tests.counters import cart_over, counter_for, manager_of, two_lines, under_a_dollar


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


@asynccontextmanager
async def at_counter(sandbox, config) -> AsyncIterator[tuple[Station, Counter]]:
    """A station of merchant B and its counter, as the app wires them."""
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        try:
            yield station, counter
        finally:
            await counter.aclose()


def requests(sandbox, route: str, merchant: str = "B") -> int:
    return sandbox.stats()["requests"].get(merchant, {}).get(route, 0)


async def attach(counter, keyword: str) -> list[StoredCard]:
    """The one customer ``keyword`` finds attached to the counter's order: their cards on file."""
    [found] = await find_customers(counter.station.client, keyword)
    await counter.attach_customer(found.customer)
    return await stored_cards(counter.station.client, found.customer)


async def test_an_approved_charge_pays_the_order_as_a_card_on_file_line(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        paid_events = []
        station.events.subscribe(lambda e: paid_events.append(e.paid) if isinstance(e, OrderPaid) else None)
        total = await cart_over(counter, 1000)
        order_key = counter.cart.order_key
        [visa] = await attach(counter, "roe")
        assert (visa.label, visa.bin, visa.default, visa.said) == (
            "Visa •••• 4242", "424242", True, "Visa credit •••• 4242 · expires 12/30 · default")
        quoted = await quote(station.client, visa, total)
        surcharge = (total * 25 + 500) // 1000  # merchant B: 2.50 %, half up
        assert (quoted.surcharge, quoted.rate) == (surcharge, Decimal("2.50"))
        assert quoted.sentence(counter.money) == (
            f"Visa •••• 4242 (card on file): surcharge (2.50 %) {counter.money(surcharge)}. "
            f"{counter.money(total + surcharge)} is charged in all.")
        assert requests(sandbox, "card.charge") == 0  # nothing sent before the charge itself

        result = await counter.pay_on_file(visa)
        assert result.outcome is Outcome.APPROVED and result.operation is Operation.CARD_CHARGE
        assert result.order_key == order_key and result.amount == total
        [paid] = paid_events
        [line] = paid.payments
        assert (line.tender, line.on_file, line.counted, line.label) == (
            Tender.CARD, True, total, "Visa •••• 4242 (card on file)")
        assert counter.cart.is_empty and counter.cart.order_key != order_key
        [charged] = sandbox.stats()["payments"]
        payment = await station.client.get_payment(charged["id"])
        assert (payment.amount, payment.surcharge, payment.card.last4) == (total, surcharge, "4242")
        assert requests(sandbox, "terminal.pay") == 0

        receipt = await receipt_of(paid, config, station.client, training=True)
        [tender] = receipt.tenders
        assert (tender.kind, tender.label, tender.cents) == (
            TenderKind.CARD, "Visa **** 4242 (card on file)", total + surcharge)
        assert receipt.customer == "Jane Roe" and receipt.surcharge_cents == surcharge


async def test_a_declined_charge_counts_nothing(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        await counter.sync_catalog()
        item, deal = await under_a_dollar(counter)  # the sandbox declines a charge under $1.00
        await counter.add(item)
        await counter.add(deal)
        total = counter.totals().total
        [visa] = await attach(counter, "roe")
        declined = await counter.pay_on_file(visa)
        assert declined.outcome is Outcome.DECLINED and counter.payments.due(total) == total
        [line] = counter.payments.lines
        assert (line.state, line.counted, line.on_file) == (LineState.DECLINED, 0, True)
        assert not counter.payments.holds  # nothing taken: the items may still change


async def test_a_dropped_answer_is_unknown_and_holds_the_order(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        total = await cart_over(counter, 1000)
        order_key = counter.cart.order_key
        [visa] = await attach(counter, "roe")
        sandbox.set_faults(drop_next=1)  # the charge is made, its answer lost
        lost = await counter.pay_on_file(visa)
        assert lost.outcome is Outcome.UNKNOWN and counter.payments.unknown and counter.payments.holds
        assert counter.cart.order_key == order_key and counter.payments.due(total) == total
        with pytest.raises(ValueError, match="no known result"):
            await counter.pay_cash(total)
        with pytest.raises(ValueError, match="no known result"):
            await counter.remove(counter.cart.lines[0].line_id)
        assert await station.journal.order_cash(order_key) == []

        again = await counter.pay_on_file(visa)  # F4 again: the lost charge is looked up first, never resent
        assert again.refusal is Refusal.EARLIER_ATTEMPT_APPROVED and again.blocked_by == lost.attempt_id
        assert len(sandbox.stats()["payments"]) == 1 and requests(sandbox, "card.charge") == 1
        assert counter.last_paid is not None and counter.last_paid.order_key == order_key  # it paid the order
        assert counter.cart.order_key != order_key


async def test_an_unknown_charge_not_found_refuses_a_second_f4(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        total = await cart_over(counter, 1000)
        [visa] = await attach(counter, "roe")
        sandbox.set_faults(error_5xx_after_next=1, list_lag_s=60)  # charged; a 500; the list does not show it
        lost = await counter.pay_on_file(visa)
        assert lost.outcome is Outcome.UNKNOWN and counter.payments.unknown
        again = await counter.pay_on_file(visa)
        assert again.outcome is Outcome.FAILED and again.refusal is not None and again.blocked_by == lost.attempt_id
        assert requests(sandbox, "card.charge") == 1 and counter.payments.due(total) == total


async def test_a_part_on_file_and_cash_for_the_rest(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        total = await cart_over(counter, 1000)
        amex, debit = await attach(counter, "rivera")
        assert (amex.label, amex.default, debit.label, debit.default) == (
            "American Express •••• 0005", True, "Visa •••• 5556", False)
        assert (await quote(station.client, debit, 500)).surcharge == 0  # no surcharge on a debit card
        part = read_part(counter.money, "5.00", counter.payments.due(total))
        charged = await counter.pay_on_file(debit, amount=part)  # the picked card, not the default
        assert charged.outcome is Outcome.APPROVED and counter.payments.due(total) == total - 500
        assert (await station.client.get_payment(charged.payment_id)).card.last4 == "5556"
        taken = await counter.pay_cash(total - 500)
        assert taken.paid is not None
        assert [(line.label, line.counted) for line in taken.paid.payments] == [
            ("Visa •••• 5556 (card on file)", 500), ("Cash", total - 500)]


async def test_no_customer_no_card_or_a_bad_part_is_a_sentence_and_nothing_is_sent(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        total = await cart_over(counter, 1000)
        with pytest.raises(ValueError, match=r"Attach a customer first \(F6\)"):
            await stored_cards(station.client, counter.cart.customer)
        [visa] = await attach(counter, "roe")
        with pytest.raises(ValueError, match=r"Pat Quinn has no card on file. Ctrl\+U sends them a link"):
            await attach(counter, "quinn")
        with pytest.raises(ValueError, match="not Pat Quinn's"):  # a card picked before the customer changed
            await counter.pay_on_file(visa)
        for typed, why in (("abc", "Type the part"), ("0", "between"), (counter.money.field(total + 1), "between")):
            with pytest.raises(ValueError, match=why):
                read_part(counter.money, typed, total)
        assert read_part(counter.money, "  ", total) is None  # nothing typed: the whole balance
        assert requests(sandbox, "card.charge") == 0


async def test_a_merchant_whose_rate_wants_a_token_gets_no_guessed_quote(sandbox, config):
    s_config = config.replace(terminal_id="ts-1001")
    async with await Station.open(s_config, sandbox.keys["S"], training=True) as station:
        [jane] = await find_customers(station.client, "roe")
        [visa] = await stored_cards(station.client, jane.customer)
        quoted = await quote(station.client, visa, 1000)
        assert quoted.surcharge is None and "tokenId" in quoted.why_not
        assert quoted.sentence(station.money).startswith(
            "Visa •••• 4242 (card on file): the surcharge for this card cannot be quoted before the charge.")
        assert "At most the credit card surcharge below (none on a debit card) is added to $10.00." in (
            quoted.sentence(station.money))


async def test_a_cancel_voids_the_charge_on_the_services_route(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        total = await cart_over(counter, 1000)
        order_key = counter.cart.order_key
        [visa] = await attach(counter, "roe")
        charge = await counter.pay_on_file(visa, amount=600)
        cancelled = await cancel_order(counter, await manager_of(counter), "wrong customer")
        assert cancelled.done, cancelled.problem
        [void] = cancelled.given_back
        assert void.operation is Operation.CARD_VOID and void.ref == charge.payment_id
        assert (requests(sandbox, "card.void"), requests(sandbox, "terminal.void")) == (1, 0)
        assert (await station.client.get_payment(charge.payment_id)).status == "voided"
        assert counter.cart.order_key != order_key and counter.payments.due(total) == total


async def test_a_settled_charge_is_refunded_on_the_services_route(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        await cart_over(counter, 1000)
        [visa] = await attach(counter, "roe")
        charge = await counter.pay_on_file(visa, amount=500)
        assert charge.outcome is Outcome.APPROVED and sandbox.settle() >= 1
        cancelled = await cancel_order(counter, await manager_of(counter), "wrong card")
        assert cancelled.done, cancelled.problem
        assert [r.operation for r in cancelled.given_back] == [Operation.CARD_REFUND]
        assert (await station.client.get_payment(charge.payment_id)).refunded_amount == 500
        assert requests(sandbox, "terminal.refund") == 0


async def test_returns_refund_a_settled_charge_on_file_and_refuse_a_part_of_an_unsettled_one(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        settled_key, lines = await two_lines(counter)
        [visa] = await attach(counter, "roe")
        settled = await counter.pay_on_file(visa)
        assert settled.outcome is Outcome.APPROVED and sandbox.settle() >= 1
        unsettled_key, _ = await two_lines(counter)
        await attach(counter, "roe")
        unsettled = await counter.pay_on_file(visa)
        manager = await manager_of(counter)

        plan = (await read_order(station, settled_key)).plan({lines[0].line_id: 1})
        [step] = plan.steps
        assert step.kind is StepKind.REFUND
        done = await run_return(counter, plan, manager=manager, reason="broken")
        assert done.complete, done.problem
        assert (await station.client.get_payment(settled.payment_id)).refunded_amount == step.amount

        part = (await read_order(station, unsettled_key)).plan({lines[0].line_id: 1})
        assert [s.kind for s in part.steps] == [StepKind.VOID_AND_CHARGE]
        stopped = await run_return(counter, part, manager=manager, reason="broken")
        assert "cannot be given back to the card here" in stopped.problem and stopped.given_back == 0
        assert (await station.client.get_payment(unsettled.payment_id)).status == "captured"  # nothing sent
        assert (requests(sandbox, "card.void"), requests(sandbox, "terminal.void"),
                requests(sandbox, "terminal.refund")) == (0, 0, 0)


async def test_the_back_office_voids_a_charge_on_file_on_the_services_route(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        await cart_over(counter, 1000)
        [visa] = await attach(counter, "roe")
        charge = await counter.pay_on_file(visa, amount=700)
        office = BackOffice(counter)
        history = await office.payments(datetime.now().date())
        row = next(row for row in history.rows if row.attempt_id == charge.attempt_id)
        assert row.voidable and row.payment_id == charge.payment_id
        voided = await office.void(row, manager=await manager_of(counter), reason="wrong customer")
        assert voided.outcome is Outcome.APPROVED and voided.operation is Operation.CARD_VOID
        assert (requests(sandbox, "card.void"), requests(sandbox, "terminal.void")) == (1, 0)
        assert counter.payments.paid == 0  # the order's line is given back


async def test_an_unknown_charge_on_file_holds_the_order_across_a_restart(sandbox, config):
    async with at_counter(sandbox, config) as (station, counter):
        total = await cart_over(counter, 1000)
        order_key = counter.cart.order_key
        [visa] = await attach(counter, "roe")
        sandbox.set_faults(drop_next=1)
        lost = await counter.pay_on_file(visa, amount=400)
        assert lost.outcome is Outcome.UNKNOWN
    async with at_counter(sandbox, config) as (again, restored):  # the app starts again
        assert restored.cart.order_key == order_key and restored.cart.customer.name == "Jane Roe"
        [line] = restored.payments.lines
        assert (line.state, line.amount, line.on_file) == (LineState.UNKNOWN, 400, True)
        with pytest.raises(ValueError, match="no known result"):
            await restored.pay_cash(total)
        checked = await again.check_again(lost.attempt_id)  # found by its attempt id: it counts for its part
        assert checked.outcome is Outcome.APPROVED and restored.payments.due(total) == total - 400
        assert requests(sandbox, "card.charge") == 1
