"""Money safety, round two: one regression test per path to a double charge or a wrong
outcome that an adversarial review found (the row numbers of issue 6), over loopback HTTP."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import date

import httpx
import pytest

from pos_app.api.identity import Identity
from pos_app.journal import Journal, JournalError, Outcome
from pos_app.station.report import day_report
from pos_app.terminal import TerminalService
from pos_app.terminal.outcomes import Phase, Refusal
from tests.terminal.conftest import pay_requests
from tests.waiting import wait_until_async


async def settled_sale(lane, amount: int = 5000, order: str | None = None):
    """An approved sale whose batch is closed, so that it can be refunded."""
    sale = await lane.service.sale(lane.active[0], amount, order_number=order)
    assert sale.outcome is Outcome.APPROVED, sale
    closed = await lane.service.close_batch(lane.active[0])
    assert closed.outcome is Outcome.APPROVED, closed
    return sale


def other_lane_service(lane, tmp_path, name: str = "other") -> tuple[TerminalService, Journal]:
    """A second station's journal on the same key: it knows nothing of the first one's sales."""
    journal = Journal.open(tmp_path / f"journal-{name}.sqlite3")
    return TerminalService(lane.client, journal, wait_limit=lane.service.wait_limit), journal


# row 1 ---------------------------------------------------------------------------------------


async def test_row1_a_refund_whose_answer_was_lost_is_never_sent_twice(lane_factory, sandbox, tmp_path):
    async with lane_factory("B") as lane:
        sale = await settled_sale(lane)
        station, journal = other_lane_service(lane, tmp_path)  # no record of the sale: no reading before
        try:
            sandbox.set_faults(drop_next=1)
            lost = await station.refund(lane.active[0], sale.transaction_id, 2000)
            assert lost.outcome is Outcome.UNKNOWN, lost
            sandbox.inject("transactions.list", 503, count=3)  # the list is down: it stays unknown
            again = await station.refund(lane.active[0], sale.transaction_id, 2000)
            assert again.outcome is Outcome.FAILED and again.refusal is Refusal.REF_PENDING_FOLLOW_UP
            assert again.blocked_by == lost.attempt_id
            assert pay_requests(sandbox, "B", "terminal.refund") == 1
            again = await station.refund(lane.active[0], sale.transaction_id, 2000)  # the list is back
            assert again.refusal is Refusal.EARLIER_ATTEMPT_APPROVED and again.blocked_by == lost.attempt_id
            assert [r.outcome for r in again.recovered] == [Outcome.APPROVED]
            assert pay_requests(sandbox, "B", "terminal.refund") == 1
        finally:
            journal.close()
        payment = await lane.client.get_payment(sale.payment_id)
        assert payment.refunded_amount == 2000  # refunded once


async def test_row1_a_lost_refund_answer_is_settled_at_once_by_reading_the_payment(lane_factory, sandbox):
    async with lane_factory("B") as lane:
        sale = await settled_sale(lane)
        sandbox.set_faults(drop_next=1)
        refund = await lane.service.refund(lane.active[0], sale.transaction_id, 1500)
        assert refund.outcome is Outcome.APPROVED and "payment shows the refund" in refund.message
        before = lane.journal.get(refund.attempt_id).payment_before
        assert before["refunded_amount"] == 0 and before["payment_id"] == sale.payment_id
        assert pay_requests(sandbox, "B", "terminal.refund") == 1


# row 2 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("operation", ["capture", "void", "refund"])
async def test_row2_a_lost_follow_up_is_resolved_by_its_own_list_entry(lane_factory, sandbox, tmp_path, operation):
    async with lane_factory("B") as lane:
        terminal = lane.active[0]
        if operation == "capture":
            first = await lane.service.preauth(terminal, 4000)
        elif operation == "refund":
            first = await settled_sale(lane, 4000)
        else:
            first = await lane.service.sale(terminal, 4000)
        assert first.outcome is Outcome.APPROVED
        station, journal = other_lane_service(lane, tmp_path)
        try:
            sandbox.set_faults(drop_next=1)
            if operation == "void":
                lost = await station.void(terminal, first.transaction_id)
            else:
                lost = await getattr(station, operation)(terminal, first.transaction_id, 3000)
            assert lost.outcome is Outcome.UNKNOWN
            retry = await station.void(terminal, first.transaction_id)  # a careless retry: it finds the first
            assert retry.refusal is Refusal.EARLIER_ATTEMPT_APPROVED and retry.blocked_by == lost.attempt_id
            [resolved] = retry.recovered
            assert resolved.outcome is Outcome.APPROVED and "attempt id" in resolved.message
            assert journal.get(lost.attempt_id).outcome is Outcome.APPROVED and journal.in_flight() == []
        finally:
            journal.close()
        assert pay_requests(sandbox, "B", f"terminal.{operation}") == 1


@pytest.mark.parametrize("operation", ["capture", "void"])
async def test_row2_a_lost_follow_up_of_a_known_sale_is_verified_by_the_payment(lane_factory, sandbox, operation):
    async with lane_factory("S") as lane:
        terminal = lane.active[0]
        first = await (lane.service.preauth if operation == "capture" else lane.service.sale)(terminal, 2500)
        assert first.outcome is Outcome.APPROVED
        sandbox.set_faults(drop_next=1)
        args = (terminal, first.transaction_id, 2500) if operation == "capture" else (terminal, first.transaction_id)
        result = await getattr(lane.service, operation)(*args)
        assert result.outcome is Outcome.APPROVED and f"payment shows the {operation}" in result.message


# row 3 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("merchant", ["S", "B"])
async def test_row3_an_unknown_sale_without_order_number_holds_its_terminal(lane_factory, sandbox, merchant):
    async with lane_factory(merchant, brief_wait=0.2) as lane:
        terminal = lane.active[0]
        lost = await lane.service.sale(terminal, 9908)  # 503: nobody knows what happened
        assert lost.outcome is Outcome.UNKNOWN
        again = await lane.service.sale(terminal, 9908)
        assert again.outcome is Outcome.FAILED and again.refusal is Refusal.TERMINAL_HAS_UNKNOWN
        assert again.blocked_by == lost.attempt_id and lost.attempt_id in again.message
        assert [r.attempt_id for r in again.recovered] == [lost.attempt_id]  # it was tried first
        preauth = await lane.service.preauth(terminal, 1000)
        assert preauth.refusal is Refusal.TERMINAL_HAS_UNKNOWN
        assert pay_requests(sandbox, merchant) == 1 and pay_requests(sandbox, merchant, "terminal.auth") == 0
        other = await lane.service.sale(lane.active[1], 1200)  # another lane is not held
        assert other.outcome is Outcome.APPROVED


# row 4 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("merchant", ["S", "B"])
async def test_row4_not_paid_is_refused_when_the_service_shows_the_charge(lane_factory, sandbox, merchant):
    async with lane_factory(merchant) as lane:
        lost = await lane.service.sale(lane.active[0], 9906, order_number="o-4")  # charged, answer dropped
        assert lost.outcome is Outcome.UNKNOWN
        await wait_until_async(lambda: any(p["paid"] for p in sandbox.stats()["payments"]), what="the charge")
        decided = await lane.service.resolve(lost.attempt_id, paid=False, reason="nothing on screen", by="mgr")
        assert decided.refusal is Refusal.SERVICE_SHOWS_OTHERWISE and decided.outcome is Outcome.APPROVED
        attempt = lane.journal.get(lost.attempt_id)
        assert attempt.outcome is Outcome.APPROVED and attempt.resolved_by is None
        assert any(e.kind == "decision_refused" for e in attempt.events)
        again = await lane.service.sale(lane.active[1], 9906, order_number="o-4")
        assert again.refusal is Refusal.ORDER_PAID
        assert pay_requests(sandbox, merchant) == 1


async def test_row4_a_decision_the_service_cannot_check_needs_force(lane_factory, sandbox):
    async with lane_factory("B") as lane:
        lost = await lane.service.sale(lane.active[0], 9908, order_number="o-4f")
        sandbox.inject("transactions.list", 503, count=50)
        refused = await lane.service.resolve(lost.attempt_id, paid=False, reason="no charge", by="mgr")
        assert refused.refusal is Refusal.SERVICE_UNREACHABLE and refused.outcome is Outcome.UNKNOWN
        assert lane.journal.get(lost.attempt_id).outcome is Outcome.UNKNOWN
        forced = await lane.service.resolve(lost.attempt_id, paid=False, reason="terminal printout: no charge",
                                            by="mgr", force=True)
        assert forced.refusal is None and forced.outcome is Outcome.FAILED
        attempt = lane.journal.get(lost.attempt_id)
        assert attempt.attention and "without the service's answer" in attempt.attention[0]


async def test_row4_a_checked_not_paid_frees_the_order(lane_factory, sandbox):
    async with lane_factory("B") as lane:
        lost = await lane.service.sale(lane.active[0], 9908, order_number="o-4c")  # 503 before any charge
        decided = await lane.service.resolve(lost.attempt_id, paid=False, reason="no charge", by="mgr")
        assert decided.refusal is None and decided.outcome is Outcome.FAILED
        checked = [e for e in lane.journal.get(lost.attempt_id).events if e.kind == "outcome"][-1].data["checked"]
        assert checked["asked"] is True and checked["found"] is False
        again = await lane.service.sale(lane.active[0], 1000, order_number="o-4c")
        assert again.outcome is Outcome.APPROVED


# row 5 ---------------------------------------------------------------------------------------


async def test_row5_a_late_approval_after_not_paid_makes_the_order_paid(lane_factory, sandbox):
    sandbox.set_faults(s_delay_min=1.5, s_delay_max=1.5)
    async with lane_factory("S") as lane:
        sale = asyncio.ensure_future(lane.service.sale(lane.active[0], 3300, order_number="o-5"))
        await wait_until_async(lambda: any(a.msg_identifier for a in lane.journal.in_flight()), what="message id")
        [attempt] = lane.journal.in_flight()
        early = await lane.service.resolve(attempt.id, paid=False, reason="customer walked away", by="mgr-bo")
        assert early.refusal is Refusal.TOO_EARLY and early.outcome is not Outcome.FAILED  # it may still complete
        decided = await lane.service.resolve(attempt.id, paid=False, reason="customer walked away", by="mgr-bo",
                                             force=True)
        assert decided.outcome is Outcome.FAILED  # the manager insisted: recorded as forced
        result = await sale
        assert result.outcome is Outcome.FAILED and "later answer was approved" in result.message
        assert lane.journal.get(attempt.id).conflict["outcome"] == "approved"
        again = await lane.service.sale(lane.active[1], 3300, order_number="o-5")
        assert again.refusal is Refusal.ORDER_PAID
        assert pay_requests(sandbox, "S") == 1
        report = await day_report(lane.client, lane.service.journal, date.today(), Identity(station="lane-1"))
        [conflict] = [row for row in report["needs_action"] if row["problem"] == "conflict"]
        assert conflict["attempt_id"] == attempt.id and conflict["service_said"] == "approved"
        assert "refund" in conflict["action"]
        assert any(row["problem"] == "attention" and "without the service's answer" in row["action"]
                   for row in report["needs_action"])


# row 6 ---------------------------------------------------------------------------------------


async def test_row6_a_locked_journal_after_the_send_is_unknown_then_resumed(lane_factory, sandbox, tmp_path):
    async with lane_factory("B") as lane:
        path = lane.journal.path
        journal = Journal.open(path, busy_timeout=0.05)
        service = TerminalService(lane.client, journal)
        sandbox.set_faults(latency_ms=300)
        locker = sqlite3.connect(path, isolation_level=None)
        sent = asyncio.Event()
        service.on_progress = lambda p: sent.set() if p.phase is Phase.SENDING else None
        try:
            sale = asyncio.ensure_future(service.sale(lane.active[0], 1800, order_number="o-6"))
            await asyncio.wait_for(sent.wait(), 5)
            await asyncio.sleep(0.05)  # mark_sent is written right after the SENDING progress
            locker.execute("BEGIN IMMEDIATE")
            result = await sale
            locker.execute("ROLLBACK")
            assert result.outcome is Outcome.UNKNOWN and "could not be recorded" in result.message
            assert result.refusal is None and "already resolved" not in result.message
            [pending] = journal.in_flight()
            assert pending.id == result.attempt_id and pending.sent
            sandbox.set_faults(latency_ms=0)
            [resumed] = await service.resume(wait_limit=0)
            assert resumed.outcome is Outcome.APPROVED
        finally:
            locker.close()
            journal.close()
        assert pay_requests(sandbox, "B") == 1


async def test_row6_a_full_disk_after_the_send_is_unknown_not_invalid(lane_factory, sandbox, monkeypatch):
    async with lane_factory("B") as lane:
        def disk_full(*args, **kwargs):  # a fault the real disk of a test machine cannot produce on demand
            raise JournalError("database or disk is full")

        monkeypatch.setattr(lane.journal, "finish", disk_full)
        result = await lane.service.sale(lane.active[0], 1900)
        assert result.outcome is Outcome.UNKNOWN and "disk is full" in result.message
        monkeypatch.undo()
        [resumed] = await lane.service.resume(wait_limit=0)
        assert resumed.outcome is Outcome.APPROVED and pay_requests(sandbox, "B") == 1


# row 7 ---------------------------------------------------------------------------------------


async def test_row7_a_message_still_in_timeout_holds_the_terminal(lane_factory, sandbox):
    sandbox.set_faults(list_lag_s=600)  # the charge is not in the list yet either
    async with lane_factory("S", wait_limit=1.0, brief_wait=0.3) as lane:
        stuck = await lane.service.sale(lane.active[0], 9903)
        assert stuck.outcome is Outcome.UNKNOWN and stuck.msg_identifier
        nxt = await lane.service.sale(lane.active[0], 1500)
        assert nxt.refusal is Refusal.TERMINAL_HAS_UNKNOWN and nxt.blocked_by == stuck.attempt_id
        assert pay_requests(sandbox, "S") == 1
        sandbox.set_faults(list_lag_s=0)
        nxt = await lane.service.sale(lane.active[0], 1500)  # now the lookup finds the first one...
        assert [r.outcome for r in nxt.recovered] == [Outcome.APPROVED]
        assert nxt.refusal is Refusal.EARLIER_ATTEMPT_APPROVED  # ...and a retry is not sent on its own
        assert pay_requests(sandbox, "S") == 1
        nxt = await lane.service.sale(lane.active[0], 1500)  # the cashier confirms: another customer
        assert nxt.outcome is Outcome.APPROVED and pay_requests(sandbox, "S") == 2


# row 8 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("knobs", [
    {"list_oldest_first": 1},
    {"clock_offset_s": -40 * 60},
    {"clock_offset_s": 35 * 60},
    {"list_bool_fields": 1},
])
async def test_row8_lookup_finds_the_attempt_whatever_the_list_looks_like(lane_factory, sandbox, monkeypatch, knobs):
    from pos_app.terminal import lookup

    monkeypatch.setattr(lookup, "PAGE_SIZE", 4)  # several pages without hundreds of sales
    sandbox.set_faults(**knobs)
    async with lane_factory("B") as lane:
        lost = await lane.service.sale(lane.active[0], 9906)
        for amount in range(1001, 1011):  # newer traffic on the other lane
            assert (await lane.service.sale(lane.active[1], amount)).outcome is Outcome.APPROVED
        [resolved] = await lane.service.resume(wait_limit=0)
        assert resolved.outcome is Outcome.APPROVED and resolved.attempt_id == lost.attempt_id
        assert pay_requests(sandbox, "B") == 11


async def test_row8_two_entries_for_one_attempt_mean_charged_and_flag_a_manager(lane_factory, sandbox):
    async with lane_factory("B") as lane:
        lost = await lane.service.sale(lane.active[0], 9906)
        # a proxy that retried our request on its own: the same attempt id twice at the service
        user_agent = Identity("s1", "lane-1", "c7").user_agent(lost.attempt_id)
        async with httpx.AsyncClient(base_url=sandbox.base_url) as raw:
            answer = await raw.post("/public/terminal/pay", headers={"key-hash": sandbox.keys["B"],
                                    "user-agent": user_agent}, json={"terminalId": lane.active[0], "amount": 99,
                                                                     "receipt": False})
            assert answer.status_code < 300
        [resolved] = await lane.service.resume(wait_limit=0)
        assert resolved.outcome is Outcome.APPROVED
        attempt = lane.journal.get(lost.attempt_id)
        assert any("possible double charge" in note for note in attempt.attention)


async def test_row8_a_foreign_user_agent_is_a_possible_match_never_a_resolution(lane_factory, sandbox):
    sandbox.set_faults(foreign_user_agent=1)
    async with lane_factory("B") as lane:
        lost = await lane.service.sale(lane.active[0], 9906)
        [still] = await lane.service.resume(wait_limit=0)
        assert still.outcome is Outcome.UNKNOWN and "without our attempt id" in still.message
        attempt = lane.journal.get(lost.attempt_id)
        assert attempt.attention and "9906 cents" in attempt.attention[0]
        refused = await lane.service.resolve(lost.attempt_id, paid=False, reason="no", by="mgr")
        assert refused.refusal is Refusal.POSSIBLE_MATCH
        unproven = await lane.service.resolve(lost.attempt_id, paid=True, reason="matched the printout", by="mgr")
        assert unproven.refusal is Refusal.NO_CHARGE_FOUND  # "paid" needs the charge named
        [entry] = next(e.data["entries"] for e in attempt.events if e.kind == "possible_match")
        paid = await lane.service.resolve(lost.attempt_id, paid=True, reason="matched the printout", by="mgr",
                                          reference=entry)
        assert paid.outcome is Outcome.APPROVED and paid.refusal is None and paid.payment_id


# rows 9 and 10 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("body,expected", [
    ({"transactionId": "t-1", "paymentId": None, "gwResponse": {"resultCode": "200", "resultTxt": "DECLINED"}},
     Outcome.UNKNOWN),  # no error field, but the gateway text declines: nothing proven
    ({"error": True, "data": {"error": False, "transactionId": "t-2", "gwResponse": {"resultCode": "0",
                                                                                  "resultTxt": "APPROVED"}}},
     Outcome.DECLINED),  # a decline flag outside the data wrapper
    ({"transactionId": "t-3"}, Outcome.UNKNOWN),  # no gateway result at all
    ({"error": False, "transactionId": "t-4", "amount": 1234, "gwResponse": {"resultCode": "0",
                                                                             "resultTxt": "APPROVED"}},
     Outcome.APPROVED),
    ({"error": False, "transactionId": "t-5", "gwResponse": {"resultCode": "0", "resultTxt": "APPROVED"}},
     Outcome.UNKNOWN),  # approved, but for how much? not proven for the amount asked
])
async def test_row9_a_2xx_pay_answer_is_approved_only_on_evidence(lane_factory, sandbox, body, expected):
    async with lane_factory("B") as lane:
        sandbox.inject("terminal.pay", 201, body=body)
        result = await lane.service.sale(lane.active[0], 1234)
        assert result.outcome is expected, result


async def test_row9_a_payment_neither_paid_nor_declined_is_unknown(lane_factory, sandbox):
    async with lane_factory("S") as lane:
        sandbox.inject("payment.get", 200, body={"data": {"id": "p-odd", "paid": False, "status": "captured"}})
        result = await lane.service.sale(lane.active[0], 1234)
        assert result.outcome is Outcome.UNKNOWN and "neither paid nor declined" in result.message


@pytest.mark.parametrize("status", [302, 409, 600, 750, 899])
async def test_row9_an_unexpected_status_is_unknown_not_failed(lane_factory, sandbox, status):
    async with lane_factory("B") as lane:
        sandbox.inject("terminal.pay", status)
        result = await lane.service.sale(lane.active[0], 1234)
        assert result.outcome is Outcome.UNKNOWN, result


@pytest.mark.parametrize("merchant,body", [
    ("B", {"error": True, "data": {"success": True}}),
    ("S", {"error": True, "data": {"success": True}}),
    ("S", {"status": "received", "data": {"success": False, "message": "host down"}}),
])
async def test_row10_close_batch_succeeds_only_on_a_positive_success(lane_factory, sandbox, merchant, body):
    async with lane_factory(merchant) as lane:
        sandbox.inject("terminal.close_batch", 201, body=body)
        result = await lane.service.close_batch(lane.active[0])
        assert result.outcome is Outcome.DECLINED, result


# service refusals stay "failed": they prove nothing moved ------------------------------------------


@pytest.mark.parametrize("status,code", [(400, 900), (400, 101), (400, 110), (429, None), (404, None)])
async def test_a_refused_request_is_failed_with_a_typed_reason(lane_factory, sandbox, status, code):
    async with lane_factory("B") as lane:
        sandbox.inject("terminal.pay", status, code=code)
        result = await lane.service.sale(lane.active[0], 1234)
        assert result.outcome is Outcome.FAILED and result.refusal is Refusal.SERVICE_REFUSED, result
        again = await lane.service.sale(lane.active[0], 1234)  # nothing holds the terminal
        assert again.outcome is Outcome.APPROVED


async def test_a_gateway_failure_is_unknown_and_holds_the_terminal(lane_factory, sandbox):
    async with lane_factory("B", brief_wait=0.2) as lane:
        result = await lane.service.sale(lane.active[0], 9901)  # 400 "gateway failure"
        assert result.outcome is Outcome.UNKNOWN
        assert (await lane.service.sale(lane.active[0], 1000)).refusal is Refusal.TERMINAL_HAS_UNKNOWN


async def test_a_wrong_key_is_bad_credentials(sandbox, tmp_path):
    from pos_app.api.client import PaymentsClient

    async with PaymentsClient(sandbox.base_url, "not-a-key") as client:
        with Journal.open(tmp_path / "j.sqlite3") as journal:
            result = await TerminalService(client, journal).sale("tb-2001", 1000)
    assert result.outcome is Outcome.FAILED and result.refusal is Refusal.BAD_CREDENTIALS


# a cancelled wait ------------------------------------------------------------------------------------


async def test_cancel_mid_poll_journals_unknown_and_stays_resumable(lane_factory, sandbox):
    sandbox.set_faults(s_delay_min=1.5, s_delay_max=1.5)
    async with lane_factory("S") as lane:
        task = asyncio.ensure_future(lane.service.sale(lane.active[0], 2200, order_number="o-cancel"))
        await wait_until_async(lambda: any(a.msg_identifier for a in lane.journal.in_flight()), what="message id")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        [pending] = lane.journal.in_flight()
        assert pending.outcome is Outcome.UNKNOWN and "stopped waiting" in pending.result["message"]
        [resumed] = await lane.service.resume(wait_limit=5)
        assert resumed.outcome is Outcome.APPROVED and pay_requests(sandbox, "S") == 1


async def test_a_service_that_cannot_be_reached_is_a_typed_refusal_and_nothing_is_held(tmp_path):
    from pos_app.api.client import PaymentsClient
    from tests.ports import refused_port

    with refused_port() as port:
        async with PaymentsClient(f"http://127.0.0.1:{port}", "k") as client:
            with Journal.open(tmp_path / "j.sqlite3") as journal:
                service = TerminalService(client, journal)
                result = await service.sale("tb-2001", 1000)
                assert result.outcome is Outcome.FAILED and result.refusal is Refusal.SERVICE_UNREACHABLE
                assert journal.in_flight() == []  # nothing left: the terminal is free
