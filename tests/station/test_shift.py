"""Shift end, Qt-free, against the sandbox over loopback: the report's numbers (per cashier,
per card brand, approved, declined, voided, refunded, surcharges read from the service),
the close batch on type S and type B judged by their rules (a 2xx that is not success is
a failed close and the shift goes on), a sale the journal does not know shown as a
difference, and no close sent while an attempt on the terminal is unresolved."""

from __future__ import annotations

import pytest

from pos_app.api.client import PaymentsClient
from pos_app.api.identity import Identity
from pos_app.api.requests import PayRequest
from pos_app.config import StoreConfig
from pos_app.journal import Operation, Outcome
from pos_app.money import format_money
from pos_app.station import Station
from pos_app.station.figures import Category
from pos_app.station.shift import CloseState, DifferenceKind
from pos_app.terminal.outcomes import Refusal
from tests.receipts.conftest import pdf_text

TERMINALS = {"S": "ts-1001", "B": "tb-2001"}


def config_for(sandbox, tmp_path, merchant: str) -> StoreConfig:
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", store_name="Harbor Books", station_id="lane-7",
                       terminal_id=TERMINALS[merchant], poll_wait_limit=20.0, data_dir=tmp_path / "data")


def close_requests(sandbox, merchant: str) -> int:
    return sandbox.stats()["requests"].get(merchant, {}).get("terminal.close_batch", 0)


async def test_report_numbers_per_cashier_and_brand_then_close_type_b(sandbox, tmp_path):
    terminal = TERMINALS["B"]
    async with await Station.open(config_for(sandbox, tmp_path, "B"), sandbox.keys["B"]) as station:
        station.sign_in("Dana")
        first = await station.sale(1250, order_key="o1")
        second = await station.sale(2000, order_key="o2")
        declined = await station.sale(99, order_key="o3")
        station.sign_in("Eli")
        third = await station.sale(3000, order_key="o4")
        voided = await station.service.void(terminal, third.transaction_id, payment_id=third.payment_id)
        assert sandbox.settle() >= 2
        refunded = await station.service.refund(terminal, first.transaction_id, 500, payment_id=first.payment_id)
        assert [r.outcome for r in (first, second, declined, third, voided, refunded)] == [
            Outcome.APPROVED, Outcome.APPROVED, Outcome.DECLINED, Outcome.APPROVED, Outcome.APPROVED, Outcome.APPROVED]
        surcharges = {r.attempt_id: (await station.client.get_payment(r.payment_id)).surcharge
                      for r in (first, second, third)}
        assert any(surcharges.values())  # credit cards carry the merchant's surcharge

        check = await station.shift_check(terminal)
        assert check.clean and not check.since_close and len(check.lines) == 6
        end = await station.shift_end(terminal, by="Mia Manager")
        after = await station.shift_check(terminal)

    figures = end.report.figures
    assert end.report.close.state is CloseState.CLOSED and "closed" in end.report.close.sentence
    cells = figures.by_category
    assert (cells[Category.SALE].count, cells[Category.SALE].amount) == (3, 6250)
    assert cells[Category.SALE].surcharge == sum(surcharges.values())
    assert (cells[Category.DECLINED].count, cells[Category.DECLINED].amount) == (1, 99)
    voids = figures.voids
    assert (voids.count, voids.amount, voids.surcharge) == (1, 3000, surcharges[third.attempt_id])
    assert (figures.refunds.count, figures.refunds.amount) == (1, 500)
    assert figures.gross.amount == 6250 and figures.net.amount == 6250 - 3000 - 500
    assert figures.net.surcharge == surcharges[first.attempt_id] + surcharges[second.attempt_id]
    cashiers = dict(figures.by_cashier())
    dana = cashiers["Dana"]
    assert (dana.gross.count, dana.gross.amount, dana.by_category[Category.DECLINED].count) == (2, 3250, 1)
    eli = cashiers["Eli"]
    assert (eli.gross.amount, eli.voids.amount, eli.refunds.amount, eli.net.amount) == (3000, 3000, 500, -500)
    brands = {name: group.gross for name, group in figures.by_brand()}
    assert sum(t.count for t in brands.values()) == 3 and "-" not in brands
    for result in (first, second, third):
        assert result.card_brand in brands

    assert end.path is not None and end.path.parent == tmp_path / "data" / "reports"
    assert end.path.name.startswith(f"shift-{terminal}-") and end.path.read_bytes() == end.pdf
    assert not list(end.path.parent.glob("*.part"))
    text = pdf_text(end.path)
    assert "BATCH CLOSED" in text and "Mia Manager" in text
    assert "$62.50" in text and format_money(figures.gross.charged, "USD", "en_US") in text
    assert format_money(figures.net.amount, "USD", "en_US") in text
    for result in (first, second, third):
        assert result.attempt_id in text
    assert "No differences." in text
    # the close ends the shift: the next one starts at it, empty
    assert after.since_close and after.lines == () and after.start >= check.start


@pytest.mark.parametrize("merchant", ["S", "B"])
async def test_a_close_answered_2xx_without_success_is_failed_and_the_shift_goes_on(sandbox, tmp_path, merchant):
    terminal = TERMINALS[merchant]
    async with await Station.open(config_for(sandbox, tmp_path, merchant), sandbox.keys[merchant]) as station:
        station.sign_in("Dana")
        sale = await station.sale(1500, order_key="o1")
        assert sale.outcome is Outcome.APPROVED
        sandbox.set_faults(close_batch_decline_next=1)
        failed = await station.shift_end(terminal, by="Mia")
        closed = await station.shift_end(terminal, by="Mia")
        closes = [a for a in await station.journal.attempts(terminal_id=terminal)
                  if a.operation is Operation.CLOSE_BATCH]

    assert failed.report.close.state is CloseState.FAILED and "NOT closed" in failed.report.close.sentence
    assert "FAILED" in failed.report.close.sentence.upper()  # the gateway's words are kept
    assert [a.outcome for a in closes] == [Outcome.DECLINED, Outcome.APPROVED]
    assert closed.report.close.state is CloseState.CLOSED
    # the failed close did not end the shift: the sale is in both reports
    for end in (closed, failed):
        assert [line.attempt_id for line in end.report.figures.lines if line.category is Category.SALE] == [
            sale.attempt_id]
    assert close_requests(sandbox, merchant) == 2
    assert "BATCH NOT CLOSED (the close failed)" in pdf_text(failed.pdf)


async def test_a_sale_the_journal_does_not_know_is_a_difference(sandbox, tmp_path):
    terminal = TERMINALS["B"]
    config = config_for(sandbox, tmp_path, "B")
    async with await Station.open(config, sandbox.keys["B"]) as station:
        ours = await station.sale(1200, order_key="o1")
        # the same lane's key used by something that does not write this journal
        stranger = PaymentsClient(sandbox.base_url, sandbox.keys["B"], identity=Identity("s1", "lane-7", "x"))
        try:
            await stranger.pay(PayRequest(terminalId=terminal, amount=4321), attempt_id="a-not-in-this-journal")
        finally:
            await stranger.aclose()
        check = await station.shift_check(terminal)

    assert not check.clean and [line.attempt_id for line in check.lines] == [ours.attempt_id]
    [difference] = check.differences
    assert difference.kind is DifferenceKind.SERVICE_ONLY and difference.amount == 4321
    sentence = difference.sentence(station.money)
    assert "$43.21" in sentence and "does not have" in sentence


async def test_no_close_is_sent_while_an_attempt_on_the_terminal_is_unknown(sandbox, tmp_path):
    terminal = TERMINALS["B"]
    async with await Station.open(config_for(sandbox, tmp_path, "B"), sandbox.keys["B"]) as station:
        unknown = await station.sale(9908, order_key="o1")  # 503: nobody can say what it did
        assert unknown.outcome is Outcome.UNKNOWN
        end = await station.shift_end(terminal, by="Mia")

    close = end.report.close
    assert close.state is CloseState.NOT_SENT and close.result.refusal is Refusal.TERMINAL_HAS_UNKNOWN
    assert close.result.blocked_by == unknown.attempt_id and unknown.attempt_id in close.sentence
    assert close_requests(sandbox, "B") == 0
    assert [a.id for a in end.report.check.open_attempts] == [unknown.attempt_id]
    text = pdf_text(end.path)
    assert "close was not sent" in text and unknown.attempt_id in text
