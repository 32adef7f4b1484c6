"""The figures' rules on a real journal file, without the service: what a void gives back
(a sale's or a captured pre-auth's whole charge, or only a hold), a capture counted for the
amount captured with its cart's tax, a sale without cart totals counted as untaxed, and one
card brand however the journal spelt it."""

from __future__ import annotations

from pos_app.journal import Journal, Operation, Outcome
from pos_app.station.figures import Category, Figures, Ledger
from tests.journal.helpers import Clock, sale


def follow_up(journal: Journal, operation: Operation, ref: str, amount: int | None = None, **result):
    attempt = journal.begin_attempt(operation=operation, terminal_id="T1", gateway="B", amount=amount, ref=ref,
                                    request={"terminalId": "T1", "pnRefNum": ref})
    return journal.finish(attempt.id, Outcome.APPROVED, result)


def figures_of(journal: Journal) -> Figures:
    history = journal.attempts()
    ledger = Ledger.of(history)
    ledger = Ledger.of(history, journal.order_totals(ledger.order_keys(history)))
    return Figures(tuple(ledger.line(attempt, None) for attempt in history))


def test_a_void_of_a_captured_preauth_gives_back_the_capture_and_its_tax(tmp_path):
    clock = Clock()
    with Journal.open(tmp_path / "journal.db", clock=clock) as journal:
        journal.record_order("tab", subtotal=5000, tax=400, taxes={"State sales tax": 400})
        clock.advance(seconds=1)
        held = journal.finish(sale(journal, order="tab", amount=5400, operation=Operation.PREAUTH, gateway="B").id,
                              Outcome.APPROVED, {"transaction_id": "t-tab", "card_brand": "MASTERCARD"})
        clock.advance(seconds=1)
        capture = follow_up(journal, Operation.CAPTURE, "t-tab", 4000)
        clock.advance(seconds=1)
        void = follow_up(journal, Operation.VOID, "t-tab")
        figures = figures_of(journal)

    lines = {line.attempt_id: line for line in figures.lines}
    assert lines[held.id].category is Category.PREAUTH_CLOSED and figures.held.count == 0
    assert lines[capture.id].category is Category.CAPTURE and lines[capture.id].voided
    assert (lines[capture.id].amount, lines[capture.id].tax) == (4000, 400)
    assert lines[void.id].category is Category.VOIDED and (lines[void.id].amount, lines[void.id].tax) == (4000, 400)
    assert (figures.gross.amount, figures.voids.amount, figures.net.amount, figures.tax) == (4000, 4000, 0, 0)
    assert {line.brand for line in figures.lines} == {"Mastercard"}  # the capture and void take the pre-auth's card


def test_a_void_of_a_preauth_never_captured_releases_it_and_moves_no_money(tmp_path):
    with Journal.open(tmp_path / "journal.db") as journal:
        held = journal.finish(sale(journal, order="deposit", amount=2000, operation=Operation.PREAUTH).id,
                              Outcome.APPROVED, {"transaction_id": "t-dep"})
        release = follow_up(journal, Operation.VOID, "t-dep")
        figures = figures_of(journal)

    lines = {line.attempt_id: line for line in figures.lines}
    assert lines[release.id].category is Category.RELEASED and lines[release.id].amount == 2000
    assert lines[held.id].category is Category.PREAUTH_CLOSED
    assert figures.gross.count == figures.voids.count == figures.held.count == 0 and figures.net.amount == 0


def test_a_sale_without_cart_totals_is_counted_untaxed_and_brands_fold(tmp_path):
    with Journal.open(tmp_path / "journal.db") as journal:
        journal.record_order("cart-1", subtotal=1000, tax=80, taxes={"State sales tax": 80})
        for order, brand in (("cart-1", "mastercard"), ("typed-at-the-cli", "Mastercard"), ("cart-2", "MC")):
            amount = 1080 if order == "cart-1" else 500
            journal.finish(sale(journal, order=order, amount=amount).id, Outcome.APPROVED,
                           {"transaction_id": f"t-{order}", "card_brand": brand})
        figures = figures_of(journal)

    assert figures.gross.count == 3 and figures.tax == 80 and figures.untaxed == 2
    assert [name for name, _ in figures.by_brand()] == ["Mastercard"]
    assert [line.tax for line in figures.lines] == [80, None, None]
