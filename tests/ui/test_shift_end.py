"""F10, end of shift, offscreen against the sandbox: the manager's PIN (recorded in the
audit trail), the shift's figures (a voided sale taken off the net), a sale the journal
does not know shown as a difference before the close, the drawer counted (an empty one
here: tests/ui/test_z_report.py counts cash), the close batch on type S and its Z, a failed
close on type B (a 2xx that is not success) shown as failed with no Z, the report previewed
and printed on the configured printer."""

from __future__ import annotations

from pos_app.api.client import PaymentsClient
from pos_app.api.identity import Identity
from pos_app.api.requests import PayRequest
from pos_app.journal import Outcome
from pos_app.money import format_money
from pos_app.ui.qt import QApplication, Qt
from pos_app.ui.receipt_view import ReceiptPreview
from pos_app.ui.shift_end import ShiftEndDialog
from pos_app.ui.theme import apply_theme
from tests.receipts.conftest import pdf_text
from tests.ui.helpers import close_preview, fits, modal, pay, save, scan, sign_in


def drawn(widget) -> bool:
    image = widget.grab().toImage()
    return any(image.pixelColor(x, y).value() < 100 for x in range(40, image.width() - 40, 5)
               for y in range(40, 400, 5))


def open_shift_end(qtbot, window, pin: str = "9999") -> ShiftEndDialog:
    qtbot.keyClick(window, Qt.Key.Key_F10)
    dialog = modal(qtbot, ShiftEndDialog)
    qtbot.keyClicks(dialog.pin, pin)
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
    return dialog


def count_empty_drawer(qtbot, dialog) -> None:
    """The drawer's count, once the check is shown: no cash sales and no float here, $0.00."""
    qtbot.waitUntil(lambda: dialog.count.isVisible() and dialog.count.counted.hasFocus(), timeout=10_000)
    qtbot.keyClicks(dialog.count.counted, "0")
    assert dialog.count.difference.text().startswith("Balanced")


def confirm_close(qtbot, dialog, key=Qt.Key.Key_Return) -> None:
    """The close's own question (Enter: close the batch; Esc: back), once it is asked."""
    from pos_app.ui.qt import QMessageBox

    box = modal(qtbot, QMessageBox)
    assert box.parent() is dialog and box.defaultButton().text().startswith("Close the batch")
    qtbot.keyClick(box, key)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is dialog)


def test_f10_shows_the_difference_then_closes_type_s_and_previews_the_report(qtbot, run, open_app, ui_config,
                                                                             sandbox):
    apply_theme(QApplication.instance(), "light")  # the screenshots as the app shows them
    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    sale = run(app.station.sale(1234, order_key="cart-shift"))
    assert sale.outcome is Outcome.APPROVED

    async def stranger_sale() -> None:  # the lane's key used by something that does not write this journal
        client = PaymentsClient(sandbox.base_url, sandbox.keys["S"], identity=Identity("demo", "lane-1", "x"))
        try:
            await client.pay(PayRequest(terminalId="ts-1001", amount=4321), attempt_id="a-unknown-here")
        finally:
            await client.aclose()

    run(stranger_sale())
    qtbot.waitUntil(lambda: any(p["amount"] == 4321 for p in sandbox.stats()["payments"]), timeout=5000)

    dialog = open_shift_end(qtbot, window, pin="1111")
    qtbot.waitUntil(lambda: "not a manager" in dialog.summary.text(), timeout=5000)
    assert dialog.check is None and not dialog.close_button.isEnabled()
    dialog.pin.clear()
    qtbot.keyClicks(dialog.pin, "9999")
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.check is not None, timeout=10_000)
    assert dialog.differences.count() == 1
    assert "$43.21" in dialog.differences.item(0).text() and "does not have" in dialog.differences.item(0).text()
    assert dialog.close_button.text() == "Close anyway (Z)…  (Enter)" and dialog.close_button.isEnabled()
    count_empty_drawer(qtbot, dialog)
    save(dialog, "light-shift-end-differences")

    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    confirm_close(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.end is not None, timeout=10_000)
    assert dialog.headline.text() == "Z-0001 closed" and "The batch is closed" in dialog.sentence.text()
    assert dialog.end.path is not None and dialog.end.path.name in dialog.sentence.text()
    text = pdf_text(dialog.end.path)
    assert "BATCH CLOSED" in text and sale.attempt_id in text and "$12.34" in text and "$43.21" in text
    qtbot.wait(50)
    fits(dialog)
    save(dialog, "light-shift-end-closed")
    audit = run(app.counter.disk(app.counter.staff.audit))
    assert any(e.action == "close_batch" and e.actor == "Demo Manager" and "ts-1001" in e.detail for e in audit)

    qtbot.mouseClick(dialog.batch_button, Qt.MouseButton.LeftButton)  # the end-of-shift report (Show: the Z)
    preview = modal(qtbot, ReceiptPreview)
    assert preview.windowTitle() == "End-of-shift report"
    qtbot.waitUntil(lambda: preview.document.pageCount() > 0)
    qtbot.waitUntil(lambda: drawn(preview), timeout=5000)  # QPdfView renders the page after it shows
    save(preview, "light-shift-report")
    qtbot.keyClick(preview, Qt.Key.Key_Escape)


def test_a_failed_close_on_type_b_is_shown_failed_and_the_report_prints(qtbot, run, open_app, ui_config, sandbox,
                                                                       cups_pdf):
    app = open_app(ui_config.replace(terminal_id="tb-2001", printer=cups_pdf.printer), "B")
    window = app.window
    sign_in(qtbot, window)
    assert run(app.station.sale(1500, order_key="cart-b")).outcome is Outcome.APPROVED
    sandbox.set_faults(close_batch_decline_next=1)

    dialog = open_shift_end(qtbot, window)
    qtbot.waitUntil(lambda: dialog.check is not None, timeout=10_000)
    assert dialog.check.clean and not dialog.differences.isVisible()
    assert dialog.close_button.text() == "Close shift (Z)…  (Enter)"
    count_empty_drawer(qtbot, dialog)
    qtbot.keyClick(dialog.count.counted, Qt.Key.Key_Return)
    confirm_close(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.end is not None, timeout=10_000)
    assert dialog.headline.text() == "Batch NOT closed"
    assert "NOT closed" in dialog.sentence.text() and "BATCH CLOSE FAILED" in dialog.sentence.text()
    assert "No Z was written" in dialog.sentence.text() and run(app.station.journal.z_reports()) == []
    qtbot.wait(50)  # the layout takes the sentence's lines
    fits(dialog)
    save(dialog, "light-shift-end-failed")

    qtbot.mouseClick(dialog.print_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.printed is not None, timeout=20_000)
    assert f"End-of-shift report sent to {cups_pdf.printer}" in dialog.sentence.text()
    printed = pdf_text(cups_pdf.wait_for(dialog.printed))
    assert "BATCH NOT CLOSED" in printed
    assert window.receipts.last.pdf == dialog.end.pdf  # the counter's last document: Ctrl+P prints it again


def test_the_check_never_closes_the_batch_without_its_own_confirmation(qtbot, run, open_app, ui_config, sandbox):
    from pos_app.ui.qt import QMessageBox
    from tests.terminal.conftest import pay_requests

    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    assert run(app.station.sale(1234, order_key="cart-shift")).outcome is Outcome.APPROVED
    dialog = open_shift_end(qtbot, window)  # the PIN, Enter: checked with the service
    qtbot.waitUntil(lambda: dialog.check is not None and dialog.count.counted.hasFocus(), timeout=10_000)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)  # a second Enter, as a hurried manager does
    qtbot.waitUntil(lambda: "Type the cash counted" in dialog.count.problem.text())  # no count: nothing asked
    assert QApplication.activeModalWidget() is dialog and dialog.count.counted.hasFocus()
    qtbot.keyClicks(dialog.count.counted, "0")
    qtbot.keyClick(dialog.count.counted, Qt.Key.Key_Return)
    box = modal(qtbot, QMessageBox)
    assert "Close the batch of ts-1001 now?" in box.text() and "cannot be undone" in box.text()
    save(box, "light-shift-end-confirm")
    assert pay_requests(sandbox, "S", "terminal.close_batch") == 0 and dialog.end is None
    confirm_close(qtbot, dialog, Qt.Key.Key_Escape)  # back: nothing closed
    assert pay_requests(sandbox, "S", "terminal.close_batch") == 0 and dialog.end is None
    qtbot.waitUntil(dialog.close_button.hasFocus)  # Enter asks again

    qtbot.keyClick(dialog.close_button, Qt.Key.Key_Return)
    confirm_close(qtbot, dialog)  # Enter at the question: closed
    qtbot.waitUntil(lambda: dialog.end is not None, timeout=10_000)
    assert dialog.headline.text() == "Z-0001 closed" and pay_requests(sandbox, "S", "terminal.close_batch") == 1


def test_f10_shows_the_shifts_figures_with_a_voided_sale_taken_off(qtbot, run, open_app, ui_config):
    apply_theme(QApplication.instance(), "light")
    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    window = app.window
    sign_in(qtbot, window)
    taxed = [item for item in run(app.counter.in_category("Cafe")) if item.tax_ids and item.sku][:2]
    totals = []
    for item in taxed:  # rung up as a cashier does: scan, F12, Enter on the notice, the receipt closed
        scan(qtbot, window, item.sku)
        totals.append(app.counter.totals())
        dialog = pay(qtbot, window)
        assert dialog.result.outcome is Outcome.APPROVED
        close_preview(qtbot)
        qtbot.keyClick(dialog, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda dialog=dialog: not dialog.isVisible())
    voided = run(app.station.sale(1537, order_key="cart-voided"))
    assert run(app.station.void("tb-2001", voided.transaction_id)).outcome is Outcome.APPROVED

    dialog = open_shift_end(qtbot, window)  # the manager's PIN, Enter: checked with the service
    qtbot.waitUntil(lambda: dialog.check is not None and dialog.check_button.isEnabled(), timeout=10_000)
    kept = sum(t.total for t in totals)
    money, rest = dialog.figures.text().splitlines()
    assert money == f"Gross {usd(kept + 1537)} (3 sales and captures) - voids $15.37 - refunds $0.00 = net {usd(kept)}"
    assert f"tax collected {usd(sum(t.tax for t in totals))} (1 sale without cart totals)" in rest
    assert dialog.figures.isVisible()
    save(dialog, "light-shift-end-figures")


def usd(cents: int) -> str:
    return format_money(cents, "USD")
