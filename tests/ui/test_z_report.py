"""F10 as the Z, offscreen against the sandbox with a real journal (issue 17): a cash sale
taken with F8, then the drawer counted: the expected cash and its parts shown right, over/
short as the count is typed, a count within the limit closing the batch and writing Z-0001
(its PDF previewed); a count beyond the limit refused until a manager's PIN and a reason
are given; counting by notes and coins (Tab from field to field, the total as typed; yen
without decimals); the X report (Alt+X) closing and writing nothing."""

from __future__ import annotations

import pytest

from pos_app.money import format_money
from pos_app.ui.qt import QApplication, QLabel, QMessageBox, Qt
from pos_app.ui.theme import apply_theme
from tests.receipts.conftest import pdf_text
from tests.terminal.conftest import pay_requests
from tests.ui.helpers import close_preview, fits, modal, save, scan, sign_in, two_codes

FLOAT = 10_000
LIMIT = 500


@pytest.fixture
def z_config(ui_config):
    return ui_config.replace(opening_float=FLOAT, cash_difference_limit=LIMIT)


def usd(cents: int) -> str:
    return format_money(cents, "USD")


def cash_sale(qtbot, run, app, change: int = 253) -> int:
    """Two items rung up, paid with F8 in cash (``change`` back); what the drawer kept."""
    from pos_app.ui.cash_dialog import CashDialog

    window = app.window
    for code in two_codes(run, app):
        scan(qtbot, window, code)
    total = app.counter.totals().total
    qtbot.keyClick(window, Qt.Key.Key_F8)
    cash = modal(qtbot, CashDialog)
    qtbot.keyClicks(cash.page.amount, app.counter.money.field(total + change))
    qtbot.keyClick(cash.page.amount, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: cash.pages.currentWidget() is cash.change_page, timeout=10_000)
    close_preview(qtbot)
    qtbot.keyClick(cash.new_sale, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not cash.isVisible() and window.sale.scan.hasFocus())  # the sale screen's keys again
    return total


def open_z(qtbot, window, pin: str = "9999"):
    """F10, the manager's PIN, Enter: the shift checked and the drawer's count focused."""
    from pos_app.ui.shift_end import ShiftEndDialog

    qtbot.keyClick(window, Qt.Key.Key_F10)
    dialog = modal(qtbot, ShiftEndDialog)
    qtbot.keyClicks(dialog.pin, pin)
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.check is not None and dialog.count.isVisible(), timeout=10_000)
    qtbot.waitUntil(dialog.count.counted.hasFocus)
    return dialog


def shoot(qtbot, widget, name: str) -> None:
    """``widget`` saved as a PNG once its layout has taken the sentences just set; it fits a
    1024x768 screen with the window's title bar."""
    qtbot.wait(50)
    fits(widget)
    save(widget, name)


def parts(dialog) -> list[str]:
    labels = [label.text() for label in dialog.count.findChildren(QLabel)]
    return labels


def expected_shown(dialog) -> str:
    return next(label.text() for label in dialog.count.findChildren(QLabel)
                if label.accessibleName() == "Expected cash")


def confirm(qtbot, dialog, key=Qt.Key.Key_Return) -> QMessageBox:
    box = modal(qtbot, QMessageBox)
    text = box.text()
    qtbot.keyClick(box, key)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is dialog)
    return text


def test_a_cash_sale_then_f10_counts_the_drawer_and_writes_z_0001(qtbot, run, open_app, z_config, sandbox):
    from pos_app.ui.receipt_view import ReceiptPreview

    apply_theme(QApplication.instance(), "light")
    app = open_app(z_config, "S")
    window = app.window
    sign_in(qtbot, window)
    kept = cash_sale(qtbot, run, app)
    expected = FLOAT + kept

    dialog = open_z(qtbot, window)
    assert expected_shown(dialog) == usd(expected)
    shown = parts(dialog)
    for said in ("Opening float (store setting)", usd(FLOAT), "+ Cash taken (1 cash sale)",
                 usd(kept + 253), "− Change given", usd(253), "+ Cash in", "− Cash out", "− Cash refunds"):
        assert said in shown, said
    assert dialog.count.left.text() == "100.00"  # the opening_float setting
    assert dialog.close_button.isDefault() and dialog.close_button.text() == "Close shift (Z)…  (Enter)"

    qtbot.keyClicks(dialog.count.counted, app.counter.money.field(expected - 125))
    assert dialog.count.difference.text() == "Short $1.25, within the $5.00 allowed."
    assert (dialog.count.counted_shown.text(), dialog.count.over_short.text()) == (usd(expected - 125), "-$1.25")
    assert dialog.count.difference.property("judged") == "within"
    shoot(qtbot, dialog, "light-z-count")
    assert pay_requests(sandbox, "S", "terminal.close_batch") == 0

    qtbot.keyClick(dialog.count.counted, Qt.Key.Key_Return)  # Enter: the close, asked first
    said = confirm(qtbot, dialog)
    assert "Close the batch of ts-1001 now?" in said
    assert f"Z-0001 is written: counted {usd(expected - 125)} against {usd(expected)} expected (short $1.25)" in said
    qtbot.waitUntil(lambda: dialog.z_close is not None, timeout=10_000)
    assert dialog.headline.text() == "Z-0001 closed" and dialog.headline.property("outcome") == "approved"
    text = dialog.sentence.text()
    assert (f"Z-0001 closed: expected {usd(expected)}, counted {usd(expected - 125)}, over/short -$1.25 (short); "
            "$100.00 left in the drawer.") in text
    reports = app.config.data_dir / "reports"
    assert f"Saved in {reports}: Z-0001.pdf (the Z) and shift-ts-1001-" in text and (reports / "Z-0001.pdf").exists()
    assert "The batch is closed" in text
    [z] = run(app.station.journal.z_reports())
    assert (z.label, z.expected, z.counted, z.left_in_drawer, z.by) == (
        "Z-0001", expected, expected - 125, FLOAT, "Demo Manager")
    assert pay_requests(sandbox, "S", "terminal.close_batch") == 1
    audit = run(app.counter.disk(app.counter.staff.audit))
    assert any(e.action == "z_report" and "Z-0001" in e.detail and e.actor == "Demo Manager" for e in audit)
    assert not dialog.count.counted.isEnabled() and not dialog.close_button.isEnabled()
    assert dialog.show_button.text() == "Show Z report" and dialog.batch_button.isVisible()
    shoot(qtbot, dialog, "light-z-closed")
    after = run(app.station.cash_shift())
    assert (after.figures.opening_float, after.z_next, after.movements) == (FLOAT, 2, ())

    qtbot.keyClick(dialog.show_button, Qt.Key.Key_Return)
    preview = modal(qtbot, ReceiptPreview)
    assert preview.windowTitle() == "Z report" and preview.file_name == "Z-0001.pdf"
    assert "Z report Z-0001" in pdf_text(preview.pdf) and "Over/short: -$1.25 (short)" in pdf_text(preview.pdf)
    qtbot.keyClick(preview, Qt.Key.Key_Escape)


def test_a_count_beyond_the_limit_needs_a_managers_pin_and_a_reason(qtbot, run, open_app, z_config, sandbox):
    from pos_app.ui.manager_approval import ManagerApproval

    apply_theme(QApplication.instance(), "light")
    app = open_app(z_config, "S")
    window = app.window
    sign_in(qtbot, window)
    for code in two_codes(run, app):
        scan(qtbot, window, code)
    total = app.counter.totals().total
    run(app.counter.pay_cash(total))  # as F8 does: exact cash
    close_preview(qtbot)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    expected = FLOAT + total

    dialog = open_z(qtbot, window)
    qtbot.keyClicks(dialog.count.counted, app.counter.money.field(expected + 1000))
    assert dialog.count.difference.property("judged") == "beyond"
    assert dialog.count.difference.text().startswith("Over $10.00: more than the $5.00 allowed.")
    shoot(qtbot, dialog, "light-z-count-beyond")

    qtbot.keyClick(dialog.count.counted, Qt.Key.Key_Return)
    approval = modal(qtbot, ManagerApproval)
    assert approval.pin.hasFocus() and "over $10.00, more than the $5.00 allowed" in approval.summary.text()
    save(approval, "light-z-difference-approval")
    qtbot.keyClick(approval, Qt.Key.Key_Escape)  # count again: nothing closed
    qtbot.waitUntil(lambda: "Nothing was closed." in dialog.count.problem.text())
    assert dialog.count.counted.hasFocus()
    assert pay_requests(sandbox, "S", "terminal.close_batch") == 0 and run(app.station.journal.z_reports()) == []

    qtbot.keyClick(dialog.count.counted, Qt.Key.Key_Return)
    approval = modal(qtbot, ManagerApproval)
    qtbot.keyClicks(approval.pin, "1111")  # a cashier's PIN: refused
    qtbot.keyClicks(approval.reason, "a $10 note from the safe was left in")
    qtbot.keyClick(approval.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "not a manager" in approval.message.text(), timeout=5000)
    approval.reason.clear()
    qtbot.keyClicks(approval.pin, "9999")  # no reason: refused before the PIN is tried
    qtbot.keyClick(approval.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "reason" in approval.message.text().lower())
    assert approval.isVisible() and pay_requests(sandbox, "S", "terminal.close_batch") == 0
    qtbot.keyClicks(approval.reason, "a $10 note from the safe was left in")
    qtbot.keyClicks(approval.pin, "9999")
    qtbot.keyClick(approval.pin, Qt.Key.Key_Return)
    said = confirm(qtbot, dialog)
    assert "(over $10.00)" in said
    qtbot.waitUntil(lambda: dialog.z_close is not None, timeout=10_000)
    assert dialog.headline.text() == "Z-0001 closed"
    [z] = run(app.station.journal.z_reports())
    assert (z.over_short, z.reason) == (1000, "a $10 note from the safe was left in")
    audit = run(app.counter.disk(app.counter.staff.audit))
    accepted = next(e for e in audit if e.action == "override" and "accepted a count over $10.00" in e.detail)
    assert accepted.actor == "Demo Manager" and accepted.reason == "a $10 note from the safe was left in"
    z_row = next(e for e in audit if e.action == "z_report")
    assert z_row.reason == "a $10 note from the safe was left in" and "accepted by Demo Manager" in z_row.detail


def test_counting_by_notes_and_coins_adds_up_as_typed(qtbot, run, open_app, z_config):
    apply_theme(QApplication.instance(), "light")
    app = open_app(z_config, "S")
    window = app.window
    sign_in(qtbot, window)
    dialog = open_z(qtbot, window)
    count = dialog.count
    qtbot.keyClick(dialog, Qt.Key.Key_N, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(count.grid.isVisible)
    fields = count.grid.fields
    assert fields[0].hasFocus() and fields[0].accessibleName() == "$100 notes"
    assert count.counted.isReadOnly()
    for typed in ("0", "1", "2", "", "4", "3"):  # $100, $50, $20, $10, $5, $1 notes, Tab between
        qtbot.keyClicks(QApplication.focusWidget(), typed)
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is count.grid.field_of(100, note=False)  # the $1 coins next
    assert count.counted.text() == "113.00"  # 50 + 40 + 20 + 3, as typed
    qtbot.keyClicks(count.grid.field_of(25, note=False), "7")
    qtbot.keyClicks(count.grid.field_of(1, note=False), "4")
    assert count.counted.text() == "114.79"
    assert count.difference.text() == "Over $14.79: more than the $5.00 allowed. Count again, or close with a " \
                                      "manager's PIN and the reason."
    shoot(qtbot, dialog, "light-z-by-pieces")
    apply_theme(QApplication.instance(), "dark")
    shoot(qtbot, dialog, "dark-z-by-pieces")
    apply_theme(QApplication.instance(), "light")
    qtbot.keyClick(count.grid.field_of(10000, note=True), Qt.Key.Key_Backspace)
    qtbot.keyClicks(count.grid.field_of(10000, note=True), "0")
    count.grid.field_of(5000, note=True).clear()
    qtbot.keyClicks(count.grid.field_of(5000, note=True), "1")
    count.grid.field_of(2000, note=True).clear()
    count.grid.field_of(1000, note=True).clear()
    count.grid.field_of(500, note=True).clear()
    count.grid.field_of(100, note=True).clear()
    count.grid.field_of(25, note=False).clear()
    count.grid.field_of(1, note=False).clear()
    qtbot.keyClicks(count.grid.field_of(2000, note=True), "2")
    qtbot.keyClicks(count.grid.field_of(1000, note=True), "1")
    assert count.counted.text() == "100.00" and count.difference.text().startswith("Balanced")
    qtbot.keyClick(dialog, Qt.Key.Key_N, Qt.KeyboardModifier.AltModifier)  # back to the total: it stays
    qtbot.waitUntil(lambda: not count.grid.isVisible())
    assert count.counted.hasFocus() and not count.counted.isReadOnly() and count.counted.text() == "100.00"


def test_yen_are_counted_without_decimals(qtbot, run, open_app, z_config):
    apply_theme(QApplication.instance(), "light")
    app = open_app(z_config.replace(currency="JPY", locale="ja_JP", opening_float=30_000), "S")
    window = app.window
    sign_in(qtbot, window)
    dialog = open_z(qtbot, window)
    count = dialog.count
    assert expected_shown(dialog) == "¥30,000" and count.left.text() == "30000"
    qtbot.keyClick(dialog, Qt.Key.Key_N, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(count.grid.isVisible)
    assert [f.accessibleName() for f in count.grid.fields] == [
        "¥10,000 notes", "¥5,000 notes", "¥2,000 notes", "¥1,000 notes",
        "¥500 coins", "¥100 coins", "¥50 coins", "¥10 coins", "¥5 coins", "¥1 coins"]
    for value, note, typed in ((10000, True, "2"), (5000, True, "1"), (1000, True, "4"), (500, False, "3"),
                               (10, False, "12"), (1, False, "7")):
        qtbot.keyClicks(count.grid.field_of(value, note=note), typed)
    assert count.counted.text() == "30627"  # 20000 + 5000 + 4000 + 1500 + 120 + 7
    assert count.difference.text().startswith("Over ¥627: more than the ¥500 allowed")
    assert count.over_short.text() == "+¥627" and count.over_short.property("judged") == "beyond"
    shoot(qtbot, dialog, "light-z-by-pieces-jpy")


def test_the_x_report_shows_the_shift_and_closes_nothing(qtbot, run, open_app, z_config, sandbox):
    from pos_app.ui.receipt_view import ReceiptPreview
    from pos_app.ui.shift_end import ShiftEndDialog
    from pos_app.ui.x_report import XReportDialog

    apply_theme(QApplication.instance(), "light")
    app = open_app(z_config, "S")
    window = app.window
    sign_in(qtbot, window)
    kept = cash_sale(qtbot, run, app)
    before = run(app.station.cash_shift())

    qtbot.keyClick(window, Qt.Key.Key_F10)
    dialog = modal(qtbot, ShiftEndDialog)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)  # its keys (Alt+X) are the dialog's
    qtbot.keyClicks(dialog.pin, "9999")
    qtbot.keyClick(dialog.pin, Qt.Key.Key_X, Qt.KeyboardModifier.AltModifier)  # the X straight from the PIN
    x = modal(qtbot, XReportDialog)
    labels = [label.text() for label in x.findChildren(QLabel)]
    assert usd(FLOAT + kept) in labels and "= Expected cash" in labels
    assert any("Z-0001 will close this shift" in text for text in labels)
    assert "Card, terminal ts-1001 (batch open)" in labels and x.card.text().startswith("Gross $0.00")
    save(x, "light-x-report")
    qtbot.keyClick(x.print_button, Qt.Key.Key_Return)  # no printer set: previewed, with Print…
    preview = modal(qtbot, ReceiptPreview)
    text = pdf_text(preview.pdf)
    assert "X report (before Z-0001)" in text and usd(FLOAT + kept) in text and "BATCH OPEN" in text
    qtbot.keyClick(preview, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is x)
    qtbot.keyClick(x, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is dialog)

    assert run(app.station.journal.z_reports()) == [] and pay_requests(sandbox, "S", "terminal.close_batch") == 0
    assert run(app.station.cash_shift()) == before
    assert not (app.config.data_dir / "reports").exists()
    audit = run(app.counter.disk(app.counter.staff.audit))
    assert any(e.action == "override" and "X report" in e.detail for e in audit)
    assert not any(e.action in ("z_report", "close_batch") for e in audit)
