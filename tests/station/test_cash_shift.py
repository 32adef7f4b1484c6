"""The drawer's shift, X and Z, on a real station (the sandbox over loopback, a real journal
file): the expected cash adds up every movement of the shift; the X report closes nothing;
a Z closes the card batch, is numbered Z-0001, Z-0002, and the next shift starts from what
it left in the drawer; a count too far off without a reason, or a batch that cannot close,
writes no Z; the Z's PDF shows the count and is made again from its row alone."""

from __future__ import annotations

import pytest

from pos_app.journal import CashKind, Outcome
from pos_app.station import Station
from pos_app.station.cash_shift import CashFigures, CountState, DifferenceNeedsReason, FloatSource
from pos_app.station.shift import CloseState
from pos_app.station.z_report import ZState, close_shift, reprint_z, x_report
from pos_app.terminal.outcomes import Refusal
from tests.receipts.conftest import pdf_text
from tests.station.cash_shifts import TERMINAL, close_requests, config_for, every_movement


async def test_the_x_report_adds_up_every_movement_and_closes_nothing(sandbox, tmp_path):
    async with await Station.open(config_for(sandbox, tmp_path, opening_float=10000), sandbox.keys["B"]) as station:
        await every_movement(station)
        card = await station.sale(1250, order_key="o-card")
        assert card.outcome is Outcome.APPROVED
        x = await x_report(station, TERMINAL)
        again = await station.cash_shift()
        zs = await station.journal.z_reports()

    figures = x.cash.figures
    assert (figures.opening_float, figures.cash_taken, figures.change_given, figures.cash_in, figures.cash_out,
            figures.cash_refunds, figures.cash_sales, figures.no_sales) == (10000, 2000, 447, 500, 300, 553, 1, 1)
    assert figures.expected_cash == 10000 + 2000 - 447 + 500 - 300 - 553 == 11200
    assert figures.expected_cash == 10000 + sum(m.drawer_change for m in x.cash.movements)  # the ledger agrees
    assert x.cash.float_source is FloatSource.SETTING
    shown = x.to_json()
    assert (shown["expected_cash"], shown["card_taken"], shown["z_next"], shown["float_from"]) == (
        11200, 1250, 1, "setting")
    assert shown["card"]["by_brand"] == {card.card_brand: 1250}
    # nothing was closed or written
    assert zs == [] and close_requests(sandbox) == 0 and again == x.cash
    assert not (tmp_path / "data" / "reports").exists()


async def test_z_reports_are_numbered_and_the_next_shift_starts_from_what_was_left(sandbox, tmp_path):
    config = config_for(sandbox, tmp_path, opening_float=10000)
    async with await Station.open(config, sandbox.keys["B"]) as station:
        await every_movement(station)
        first = await close_shift(station, counted=11150, by="Mo", terminal_id=TERMINAL, left_in_drawer=8000)
        second_shift = await station.cash_shift()
        await station.move_cash(CashKind.CASH_IN, 1000, reason="float top-up", by="Mo")
        second = await close_shift(station, counted=9000, by="Mo", terminal_id=TERMINAL)
        third_shift = await station.cash_shift()
        reprinted = await reprint_z(station, 1)
        rows = await station.journal.z_reports()

    assert first.state is ZState.WRITTEN and first.z is not None and first.z.label == "Z-0001"
    assert first.end.report.close.state is CloseState.CLOSED
    assert (first.count.expected, first.count.over_short, first.count.state) == (11200, -50, CountState.SHORT)
    assert (second_shift.figures.opening_float, second_shift.float_source, second_shift.z_next) == (
        8000, FloatSource.LAST_Z, 2)
    assert second_shift.movements == () and second_shift.figures.expected_cash == 8000
    assert second.z is not None and second.z.label == "Z-0002"
    assert (second.count.expected, second.count.over_short, second.count.left_in_drawer) == (9000, 0, 9000)
    assert third_shift.figures.opening_float == 9000  # the setting (10000) capped at what was counted
    assert [z.label for z in rows] == ["Z-0001", "Z-0002"] and rows[0] == first.z  # a reprint changes no row
    assert dict(rows[0].figures)["cash"] == CashFigures(10000, 2000, 447, 500, 300, 553, 1, 1).to_json()
    assert close_requests(sandbox) == 2

    reports = tmp_path / "data" / "reports"
    assert first.path == reports / "Z-0001.pdf" and second.path == reports / "Z-0002.pdf"
    text = pdf_text(first.path)
    for said in ("Z report Z-0001", "Expected cash: $112.00", "Counted cash: $111.50", "Over/short: -$0.50 (short)",
                 "BATCH CLOSED", "Harbor Books", "by Mo"):
        assert said in text, said
    [change] = [line for line in text.splitlines() if line.startswith("Change given")]
    assert change.split()[-1] == "-$4.47"
    [expected] = [line for line in text.splitlines() if line.startswith("Expected cash  ")]
    assert expected.split()[-1] == "$112.00"
    assert "Opening float (left by Z-0001)" in pdf_text(second.path)
    z, path, problem = reprinted
    assert path == reports / "Z-0001-reprint.pdf" and problem is None and z == first.z
    again = pdf_text(path)
    assert "REPRINT of Z-0001" in again and "Over/short: -$0.50 (short)" in again and "Expected cash: $112.00" in again


async def test_a_count_too_far_off_needs_a_reason_and_nothing_is_closed_without_one(sandbox, tmp_path):
    config = config_for(sandbox, tmp_path, opening_float=5000, cash_difference_limit=500)
    async with await Station.open(config, sandbox.keys["B"]) as station:
        await every_movement(station)  # expected 6200
        with pytest.raises(DifferenceNeedsReason) as refused:
            await close_shift(station, counted=6701, by="Mo", terminal_id=TERMINAL)
        with pytest.raises(DifferenceNeedsReason):
            await close_shift(station, counted=5000, by="Mo", terminal_id=TERMINAL, reason="   ")
        untouched = (await station.journal.z_reports(), close_requests(sandbox))
        within = await close_shift(station, counted=6700, by="Mo", terminal_id=TERMINAL)  # 5.00 over: allowed
        await station.move_cash(CashKind.CASH_OUT, 1000, reason="to the safe", by="Mo")  # expected 5000 - 1000
        signed = await close_shift(station, counted=2000, by="Mo", terminal_id=TERMINAL, reason="a note missing")

    assert refused.value.over_short == 501 and "$5.01 over" in str(refused.value)
    assert "nothing was closed" in str(refused.value)
    assert untouched == ([], 0)
    assert within.z is not None and (within.count.over_short, within.z.reason) == (500, None)
    assert signed.z is not None and (signed.z.over_short, signed.z.reason) == (-2000, "a note missing")
    assert "Reason: a note missing" in pdf_text(signed.path)


@pytest.mark.parametrize("counted,left,problem", [
    (-1, None, "whole number of cents"), (1000, 1001, "cannot be left in the drawer"), (True, None, "whole number")])
async def test_a_count_that_cannot_be_taken_is_refused_before_anything(sandbox, tmp_path, counted, left, problem):
    async with await Station.open(config_for(sandbox, tmp_path), sandbox.keys["B"]) as station:
        with pytest.raises(ValueError, match=problem):
            await close_shift(station, counted=counted, by="Mo", terminal_id=TERMINAL, left_in_drawer=left,
                              reason="x")
        assert await station.journal.z_reports() == []
    assert close_requests(sandbox) == 0


async def test_no_z_is_written_while_the_batch_cannot_close(sandbox, tmp_path):
    async with await Station.open(config_for(sandbox, tmp_path), sandbox.keys["B"]) as station:
        await every_movement(station)
        unknown = await station.sale(9908, order_key="o-unknown")  # 503: nobody can say what it did
        assert unknown.outcome is Outcome.UNKNOWN
        blocked = await close_shift(station, counted=1200, by="Mo", terminal_id=TERMINAL)
        await station.resolve(unknown.attempt_id, paid=False, reason="503: nothing charged", by="Mo", force=True)
        sandbox.set_faults(close_batch_decline_next=1)
        declined = await close_shift(station, counted=1200, by="Mo", terminal_id=TERMINAL)
        closed = await close_shift(station, counted=1200, by="Mo", terminal_id=TERMINAL)

    assert blocked.state is ZState.BATCH_NOT_CLOSED and blocked.z is None
    result = blocked.end.report.close.result
    assert result.refusal is Refusal.TERMINAL_HAS_UNKNOWN and result.blocked_by == unknown.attempt_id
    assert "No Z was written" in blocked.to_json()["error"] and blocked.to_json()["z_number"] is None
    assert declined.state is ZState.BATCH_NOT_CLOSED and declined.end.report.close.state is CloseState.FAILED
    # the shift went on: the Z that finally closes it counts every movement, as Z-0001
    assert closed.state is ZState.WRITTEN and closed.z is not None and closed.z.label == "Z-0001"
    assert closed.shift.movements == blocked.shift.movements and closed.count.expected == 1200
