"""F4, the card on file (issue 19), offscreen with real widgets against the sandbox: a part
typed first, a customer with two cards (the picker: the default first and highlighted, ↓,
Enter), the surcharge notice with that card's quote, the payment dialog, the panel's
card-on-file line; no customer, no card, a bad part, Esc in the picker or at the notice: a
sentence and nothing sent; F1 lists F4. Each screen is rendered to PNG."""

from __future__ import annotations

import pytest

from pos_app.journal import Operation, Outcome
from pos_app.station.customers import find_customers
from pos_app.ui.help import KEYS
from pos_app.ui.qt import QApplication, Qt
from pos_app.ui.theme import apply_theme
from tests.ui.helpers import close_preview, modal, save, scan, sign_in, two_codes


@pytest.fixture
def b_config(ui_config):
    return ui_config.replace(terminal_id="tb-2001")


def charges(sandbox) -> int:
    return sandbox.stats()["requests"].get("B", {}).get("card.charge", 0)


def attach(run, app, keyword: str) -> None:
    [found] = run(find_customers(app.station.client, keyword))
    run(app.counter.attach_customer(found.customer))


def two_items_on_sale(qtbot, run, app):
    """Two items scanned on ``app``'s sale (their "Added …" said: a later sentence is F4's)."""
    for code in two_codes(run, app):
        scan(qtbot, app.window, code)
    last = f"Added {app.counter.cart.lines[-1].name}"
    qtbot.waitUntil(lambda: app.window.status.text().startswith(last))
    return app


def press_f4(qtbot, window) -> None:
    window.activateWindow()  # the sale screen's keys (offscreen has no window manager to give them back)
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_F4)


def test_f4_picks_a_card_by_arrows_and_charges_the_part_typed(qtbot, run, open_app, b_config, sandbox):
    from pos_app.ui.acknowledgment import AcknowledgmentDialog
    from pos_app.ui.card_on_file import OnFilePaymentDialog, StoredCardPicker

    apply_theme(QApplication.instance(), "light")  # as the screenshots are
    app = open_app(b_config, "B")
    window = app.window
    sign_in(qtbot, window)
    two_items_on_sale(qtbot, run, app)
    total = app.counter.totals().total
    attach(run, app, "rivera")
    qtbot.keyClicks(window.sale.scan, app.counter.money.field(500))  # the part, typed before F4
    press_f4(qtbot, window)

    picker = modal(qtbot, StoredCardPicker)
    qtbot.waitUntil(picker.list.hasFocus)  # the arrows move the list at once
    assert picker.list.currentRow() == 0 and picker.pick_button.isDefault()
    assert [picker.list.item(row).text() for row in range(picker.list.count())] == [
        "American Express credit •••• 0005 · expires 12/30 · default", "Visa debit •••• 5556 · expires 12/30"]
    save(picker, "light-card-on-file-picker")
    qtbot.keyClick(picker.list, Qt.Key.Key_Down)
    qtbot.keyClick(picker.list, Qt.Key.Key_Return)

    notice = modal(qtbot, AcknowledgmentDialog)
    assert notice.quote.isVisible() and notice.quote.text() == (
        "Visa •••• 5556 (card on file): no surcharge on this card. $5.00 is charged.")
    assert charges(sandbox) == 0  # nothing sent before the customer accepts
    save(notice, "light-card-on-file-notice")
    qtbot.keyClick(notice, Qt.Key.Key_Return)

    dialog = modal(qtbot, OnFilePaymentDialog)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    result = dialog.result
    assert (result.outcome, result.operation, result.amount, result.card_last4) == (
        Outcome.APPROVED, Operation.CARD_CHARGE, 500, "5556")
    assert dialog.heading.text() == "Approved" and dialog.close_button.hasFocus()
    save(dialog, "light-card-on-file-approved")
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.payment is None)
    assert window.sale.scan.text() == "" and charges(sandbox) == 1
    rows = window.sale.payments.rows
    assert rows[0] == ("Visa •••• 5556 (card on file)", window.sale.money(500), "approved")
    assert rows[-1] == ("Balance due", window.sale.money(total - 500), "")
    save(window, "light-sale-card-on-file-part")


def test_f4_one_card_goes_straight_to_the_notice_and_pays_the_balance(qtbot, run, open_app, b_config, sandbox):
    from pos_app.ui.acknowledgment import AcknowledgmentDialog
    from pos_app.ui.card_on_file import OnFilePaymentDialog

    app = open_app(b_config, "B")
    window = app.window
    sign_in(qtbot, window)
    two_items_on_sale(qtbot, run, app)
    order_key = app.counter.cart.order_key
    total = app.counter.totals().total
    attach(run, app, "roe")
    press_f4(qtbot, window)
    notice = modal(qtbot, AcknowledgmentDialog)
    surcharge = (total * 25 + 500) // 1000  # merchant B's credit rate, 2.50 %
    assert notice.quote.text().startswith(f"Visa •••• 4242 (card on file): surcharge (2.50 %) "
                                          f"{window.sale.money(surcharge)}.")
    qtbot.keyClick(notice, Qt.Key.Key_Return)
    dialog = modal(qtbot, OnFilePaymentDialog)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    assert dialog.result.outcome is Outcome.APPROVED and dialog.result.amount == total
    close_preview(qtbot)  # no printer here: the receipt is previewed
    paid = app.counter.last_paid
    assert paid.order_key == order_key and [line.label for line in paid.payments] == [
        "Visa •••• 4242 (card on file)"]
    assert dialog.close_button.text() == "New sale  (Enter)"
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.payment is None)
    assert app.counter.cart.is_empty


def test_f4_refusals_are_sentences_and_nothing_is_sent(qtbot, run, open_app, b_config, sandbox):
    from pos_app.ui.acknowledgment import AcknowledgmentDialog
    from pos_app.ui.card_on_file import StoredCardPicker

    assert any(key == "F4" and "card on file" in what.lower() for key, what in KEYS)
    app = open_app(b_config, "B")
    window = app.window
    sign_in(qtbot, window)
    press_f4(qtbot, window)
    qtbot.waitUntil(lambda: window.status.text().startswith("Add items first"))
    two_items_on_sale(qtbot, run, app)

    press_f4(qtbot, window)
    qtbot.waitUntil(lambda: window.payment is None and "Attach a customer first (F6)" in window.status.text())

    attach(run, app, "quinn")
    press_f4(qtbot, window)
    qtbot.waitUntil(lambda: window.status.text().startswith("Pat Quinn has no card on file. Ctrl+U sends them"),
                    timeout=10_000)
    save(window, "light-card-on-file-no-card")

    attach(run, app, "rivera")
    qtbot.keyClicks(window.sale.scan, "abc")
    press_f4(qtbot, window)
    qtbot.waitUntil(lambda: "Type the part to charge, like 12.50, then F4" in window.status.text())
    assert window.payment is None
    window.sale.scan.clear()

    press_f4(qtbot, window)
    picker = modal(qtbot, StoredCardPicker)
    qtbot.keyClick(picker.list, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.payment is None)
    assert window.status.text() == "Card on file cancelled: nothing was charged."

    window.status.setText("")
    press_f4(qtbot, window)
    picker = modal(qtbot, StoredCardPicker)
    qtbot.keyClick(picker.list, Qt.Key.Key_Return)
    notice = modal(qtbot, AcknowledgmentDialog)
    qtbot.keyClick(notice, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.payment is None)
    assert window.status.text() == "Card on file cancelled: nothing was charged."
    assert charges(sandbox) == 0 and app.counter.payments.lines == ()
