"""Phone orders paid by a payment link, at the station (issue 19), against the sandbox: the
order parked on one link for its total (``taxes: []``) sent where the cashier said, the
lane free; the watcher completing it once the link is paid (once, however often it is seen
paid and by however many processes), the link payment its payment line; a cancel deleting
the link before the order comes back; a lost answer adopted, never two live links."""

from __future__ import annotations

import pytest

from pos_app.journal import Journal, ParkStage
from pos_app.sandbox.link_store import Channel, sent_links
from pos_app.station.parked import read_contact
from pos_app.station.receipt import receipt_of
from tests.counters import cart_over
from tests.links import answer_once, link_requests, paid
from tests.parking import PHONE, lane
from tests.waiting import wait_until_async


def live_links(sandbox) -> list:
    with sandbox.sandbox.lock:
        from pos_app.sandbox.link_store import store_of

        return [link for link in store_of(sandbox.sandbox.books["B"]).links.values() if link.active]


def test_a_contact_is_a_phone_number_or_an_email_said_back_plainly():
    assert read_contact(" 555-123-4567 ").address == PHONE and read_contact("1 555 123 4567").channel == "sms"
    assert read_contact("ana@example.com").channel == "email"
    for typed, said in (("", "Type the customer's"), ("ana@", "not a complete email"),
                        ("12345", "neither a US mobile number")):
        with pytest.raises(ValueError, match=said):
            read_contact(typed)


async def test_parking_sends_one_link_for_the_total_and_frees_the_lane(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        total = await cart_over(it.counter, 1000)
        order_key = it.counter.cart.order_key
        parking = await it.parked.park("555.123.4567")
        assert parking.stage is ParkStage.PARKED and parking.amount == total and parking.contact == PHONE
        [link] = live_links(sandbox)
        assert (link.id, link.amount, link.tax_ids, link.total) == (parking.link_id, total, (), total)
        [sent] = sent_links(sandbox.sandbox, "B")
        assert (sent.link_id, sent.channel, sent.to) == (link.id, Channel.SMS, PHONE)
        assert it.counter.cart.is_empty and it.counter.cart.order_key != order_key
        assert [p.order_key for p in await it.parked.waiting()] == [order_key]
        assert it.changes[-1].parking == parking and it.changes[-1].trouble == ""


async def test_bad_contact_or_an_empty_sale_sends_nothing_and_keeps_the_sale(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        with pytest.raises(ValueError, match="Add items first"):
            await it.parked.park(PHONE)
        await cart_over(it.counter, 500)
        cart = it.counter.cart
        with pytest.raises(ValueError, match="neither a US mobile number"):
            await it.parked.park("call her")
        assert link_requests(sandbox) == 0 and it.counter.cart is cart
        await it.counter.pay(amount=100)
        with pytest.raises(ValueError, match="taken a payment already"):
            await it.parked.park(PHONE)
        assert link_requests(sandbox) == 0


async def test_the_watcher_completes_a_paid_link_once_with_a_link_payment_line(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data") as it:
        total = await cart_over(it.counter, 1000)
        parking = await it.parked.park("ana@example.com")
        payment = paid(sandbox, parking.link_id)["payment"]
        done = await wait_until_async(lambda: it.completed, timeout=10, what="the order completed")
        rounds = it.watcher.rounds
        it.watcher.wake()
        await wait_until_async(lambda: it.watcher.rounds >= rounds + 2, timeout=10, what="two more rounds")
        assert len(it.completed) == 1
        [event] = done
        line = event.paid.payments[0]
        assert (line.tender, line.counted, line.link.payment_id, line.link.surcharge) == (
            "link", total, payment["id"], payment["surcharge"])
        assert event.paid.order_key == parking.order_key and event.paid.totals.total == total
        receipt = await receipt_of(event.paid, it.station.config, it.station.client, training=True)
        assert [t.label for t in receipt.tenders] == ["Payment link"]
        assert receipt.total_cents == total + payment["surcharge"]
        assert (await it.station.journal.parking(parking.parking_id)).stage is ParkStage.PAID
        await it.parked.receipt_given(event.parking)
        assert (await it.station.journal.parking(parking.parking_id)).stage is ParkStage.RECEIPTED


async def test_a_link_seen_paid_twice_and_by_two_processes_completes_the_order_once(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        await cart_over(it.counter, 1000)
        parking = await it.parked.park(PHONE)
        paid(sandbox, parking.link_id)
        other = Journal.open(it.station.journal.path)  # a second process on the same file
        try:
            first = await it.parked.check(parking)
            again = await it.parked.check(parking)
            assert other.record_link_paid(parking, payment_id="x", surcharge=0, detail="other process") is None
        finally:
            other.close()
        assert first.stage is ParkStage.PAID and again.stage is ParkStage.PAID
        assert len(it.completed) == 1


async def test_cancel_deletes_the_link_then_brings_the_order_back(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        total = await cart_over(it.counter, 1000)
        lines = it.counter.cart.lines
        parking = await it.parked.park(PHONE)
        await cart_over(it.counter, 500)  # the next customer's sale is on the lane
        with pytest.raises(ValueError, match="Finish or clear the sale on the screen first"):
            await it.parked.cancel(parking)
        assert len(live_links(sandbox)) == 1
        await it.counter.new_sale()
        back = await it.parked.cancel(parking)
        assert back.stage is ParkStage.RETURNED and live_links(sandbox) == []
        assert it.counter.cart.order_key == parking.order_key and it.counter.cart.lines == lines
        assert it.counter.totals().total == total and not it.counter.payments.holds
        with pytest.raises(ValueError, match="not waiting on its link any more"):
            await it.parked.cancel(back)
        again = await it.parked.park(PHONE)  # the same order may be parked again, on a new link
        assert again.order_key == parking.order_key and again.link_id != parking.link_id


async def test_cancel_of_a_link_paid_meanwhile_completes_the_order_instead(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        await cart_over(it.counter, 1000)
        parking = await it.parked.park(PHONE)
        paid(sandbox, parking.link_id)
        done = await it.parked.cancel(parking)
        assert done.stage is ParkStage.PAID and len(it.completed) == 1 and it.counter.cart.is_empty
        assert live_links(sandbox)[0].id == parking.link_id  # not deleted: it is paid


async def test_a_link_made_though_its_answer_was_lost_is_adopted_never_a_second_one(sandbox, tmp_path):
    from pos_app.api.link_models import LinkDraft

    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        total = await cart_over(it.counter, 1000)
        made = await it.station.client.links.create(LinkDraft(amount=total))  # as the service made it
        answer_once(sandbox, "link.create", {"unreadable": True})
        parking = await it.parked.park(PHONE)
        assert parking.link_id == made.id and [link.id for link in live_links(sandbox)] == [made.id]
        assert [s.link_id for s in sent_links(sandbox.sandbox, "B")] == [made.id]


async def test_no_answer_and_no_link_found_sends_nothing_and_keeps_the_sale(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        await cart_over(it.counter, 1000)
        cart = it.counter.cart
        answer_once(sandbox, "link.create", {"unreadable": True})
        with pytest.raises(ValueError, match="nothing was sent. The sale is still here"):
            await it.parked.park(PHONE)
        assert it.counter.cart is cart and sent_links(sandbox.sandbox, "B") == []
        assert await it.parked.waiting() == [] or (await it.parked.waiting())[0].stage is ParkStage.FAILED
        assert (await it.parked.park(PHONE)).stage is ParkStage.PARKED  # tried again: parked


async def test_a_link_deleted_elsewhere_can_still_be_cancelled_and_its_order_comes_back(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        await cart_over(it.counter, 1000)
        parking = await it.parked.park(PHONE)
        await it.station.client.links.delete(parking.link_id)  # e.g. pos-app link delete
        back = await it.parked.cancel(parking)
        assert back.stage is ParkStage.RETURNED and it.counter.cart.order_key == parking.order_key


async def test_a_link_the_service_did_not_send_stays_parked_and_says_so(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        await cart_over(it.counter, 1000)
        answer_once(sandbox, "link.send_sms", {"success": False, "message": "carrier unreachable"}, status=201)
        parking = await it.parked.park(PHONE)
        assert parking.stage is ParkStage.PARKED and it.counter.cart.is_empty
        assert "did not send the link to (555) 123-4567 (carrier unreachable)" in it.changes[-1].trouble
        assert "cancel it in Ctrl+W" in it.changes[-1].trouble
