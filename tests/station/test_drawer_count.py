"""Counting the drawer for the Z, without Qt: the notes and coins of each store's currency
(largest first, named as people name them), a count by pieces adding up (yen without
decimals), the count typed so far judged against the expected cash and the limit, the
expected cash's parts as the F10 screen lists them, and the app's Z close writing the close
batch and the Z to the audit trail (a real station and staff file on the sandbox); the X
report's PDF says nothing was closed."""

from __future__ import annotations

import pytest

from pos_app.config import StoreConfig
from pos_app.journal import CashKind
from pos_app.money import MoneyFormat
from pos_app.station import Station
from pos_app.station.cash_shift import CountState, cash_shift
from pos_app.station.denominations import MAX_PIECES, Denomination, denominations, drawer_total, pieces
from pos_app.station.drawer_count import check_count, close_z, expected_rows
from pos_app.station.z_report import ZState, x_pdf, x_report, z_pdf, z_sentence
from tests.counters import counter_for
from tests.receipts.conftest import pdf_text

USD = MoneyFormat("USD", "en_US")


@pytest.mark.parametrize("currency,locale,names", [
    ("USD", "en_US", ["$100", "$50", "$20", "$10", "$5", "$1", "$1", "$0.50", "$0.25", "$0.10", "$0.05", "$0.01"]),
    ("EUR", "de_DE", ["200 €", "100 €", "50 €", "20 €", "10 €", "5 €", "2 €", "1 €", "0,50 €", "0,20 €", "0,10 €",
                      "0,05 €", "0,02 €", "0,01 €"]),
    ("GBP", "en_GB", ["£50", "£20", "£10", "£5", "£2", "£1", "£0.50", "£0.20", "£0.10", "£0.05", "£0.02", "£0.01"]),
    ("CAD", "en_CA", ["$100", "$50", "$20", "$10", "$5", "$2", "$1", "$0.25", "$0.10", "$0.05"]),
    ("JPY", "ja_JP", ["¥10,000", "¥5,000", "¥2,000", "¥1,000", "¥500", "¥100", "¥50", "¥10", "¥5", "¥1"]),
])
def test_each_currency_has_its_notes_then_coins_largest_first(currency, locale, names):
    money = MoneyFormat(currency, locale)
    found = denominations(currency.lower())
    assert [money.piece(piece.value).replace("\xa0", " ") for piece in found] == names
    notes = [piece for piece in found if piece.note]
    assert found[:len(notes)] == tuple(notes)  # notes first
    assert [p.value for p in notes] == sorted((p.value for p in notes), reverse=True)


def test_a_currency_without_pieces_is_counted_as_a_total():
    assert denominations("SEK") == ()


def test_a_count_by_pieces_adds_up_in_minor_units():
    usd = {p.value: p for p in denominations("USD")}
    assert drawer_total([(usd[10000], 1), (usd[2000], 3), (usd[25], 7), (usd[1], 4)]) == 10000 + 6000 + 175 + 4
    yen = {p.value: p for p in denominations("JPY")}
    assert drawer_total([(yen[10000], 2), (yen[1000], 5), (yen[500], 1), (yen[1], 3)]) == 25503  # yen: no decimals
    assert MoneyFormat("JPY", "ja_JP")(25503) == "¥25,503"
    with pytest.raises(ValueError, match="whole number"):
        drawer_total([(Denomination(100, False), -1)])


@pytest.mark.parametrize("typed,count", [("", 0), ("  ", 0), ("7", 7), (" 12 ", 12), (str(MAX_PIECES), MAX_PIECES)])
def test_pieces_typed(typed, count):
    assert pieces(typed) == count


@pytest.mark.parametrize("typed", ["1.5", "-2", "x", "١٢", str(MAX_PIECES + 1)])
def test_pieces_refused_with_a_sentence(typed):
    with pytest.raises(ValueError, match="not a number of notes or coins"):
        pieces(typed)


def test_the_count_typed_so_far_is_judged_against_the_limit():
    shift = cash_shift(None, (), 10000)
    assert check_count(shift, None, 500).sentence(USD) == "Type the cash counted: the difference shows here."
    balanced = check_count(shift, 10000, 500)
    assert (balanced.state, balanced.beyond_limit) == (CountState.BALANCED, False)
    assert balanced.sentence(USD).startswith("Balanced")
    within = check_count(shift, 9500, 500)
    assert (within.over_short, within.beyond_limit) == (-500, False)
    assert within.sentence(USD) == "Short $5.00, within the $5.00 allowed."
    beyond = check_count(shift, 10501, 500)
    assert (beyond.state, beyond.beyond_limit) == (CountState.OVER, True)
    assert beyond.sentence(USD).startswith("Over $5.01: more than the $5.00 allowed")
    assert "manager's PIN and the reason" in beyond.sentence(USD)


def config_for(sandbox, tmp_path, **settings) -> StoreConfig:
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", store_name="Harbor Books", station_id="lane-7",
                       terminal_id="tb-2001", poll_wait_limit=20.0, data_dir=tmp_path / "data", **settings)


async def test_the_expected_cash_is_listed_with_its_parts_and_the_z_is_audited(sandbox, tmp_path):
    async with await Station.open(config_for(sandbox, tmp_path, opening_float=10000), sandbox.keys["B"]) as station:
        counter = await counter_for(station)
        try:
            await station.journal.record_order("o-cash", subtotal=1553, tax=0, taxes={})
            await station.take_cash("o-cash", 2000, cashier="Ann")
            await station.move_cash(CashKind.CASH_IN, 500, reason="coins", by="Mo")
            await station.move_cash(CashKind.CASH_OUT, 300, reason="safe", by="Mo")
            await station.move_cash(CashKind.RETURN, 553, reason="returned", by="Mo", order_key="o-cash")
            shift = await station.cash_shift()
            rows, total = expected_rows(shift, station.money)
            x = await x_report(station, "tb-2001")
            x_text = pdf_text(await x_pdf(station, x))
            done, audit_error = await close_z(counter, terminal_id="tb-2001", counted=10000, left_in_drawer=8000,
                                              by="Mo", reason="a refund paid twice", approved_by="Ruth")
            again = await station.cash_shift()
            audit = await counter.disk(counter.staff.audit)
            z_text = pdf_text(await z_pdf(done.z))
        finally:
            await counter.aclose()

    assert rows == [("Opening float (store setting)", "$100.00"), ("+ Cash taken (1 cash sale)", "$20.00"),
                    ("− Change given", "$4.47"), ("+ Cash in", "$5.00"), ("− Cash out", "$3.00"),
                    ("− Cash refunds", "$5.53")]
    assert total == ("= Expected cash", "$112.00")
    assert "X report (before Z-0001)" in x_text and "nothing was closed" in x_text and "$112.00" in x_text
    assert "BATCH OPEN" in x_text

    assert done.state is ZState.WRITTEN and audit_error is None
    assert z_sentence(done, station.money) == ("Z-0001 closed: expected $112.00, counted $100.00, over/short "
                                               "-$12.00 (short); $80.00 left in the drawer.")
    assert again.figures.opening_float == 8000 and again.z_next == 2
    z_row = next(entry for entry in audit if entry.action == "z_report")
    assert z_row.actor == "Mo" and z_row.reason == "a refund paid twice"
    assert "Z-0001" in z_row.detail and "accepted by Ruth" in z_row.detail and "short $12.00" in z_row.detail
    assert any(entry.action == "close_batch" and "tb-2001: closed" in entry.detail for entry in audit)
    assert "Z report Z-0001" in z_text and "Reason: a refund paid twice" in z_text
