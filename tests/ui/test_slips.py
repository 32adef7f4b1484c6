"""Slips in the window, offscreen, against the sandbox: a void from the back office prints
its slip on the real CUPS printer (or previews it when no printer is set), a capture of an
open pre-auth (Ctrl+T) too; Ctrl+P then prints the last document again, the slip, not the
older sale receipt."""

from __future__ import annotations

import re

from pos_app.journal import Outcome
from pos_app.staff import DEMO_MANAGER_PIN
from pos_app.ui.qt import QApplication, Qt
from tests.receipts.conftest import pdf_text
from tests.ui.helpers import approve, close_preview, modal, open_back_office, pay, pick, scan, sign_in, two_codes


def sell(qtbot, run, app):
    """A sale paid by card through the window (F12, Enter): its receipt goes out; a new sale."""
    scan(qtbot, app.window, two_codes(run, app)[0])
    dialog = pay(qtbot, app.window)
    assert dialog.result.outcome is Outcome.APPROVED
    return dialog


def new_sale(qtbot, window, dialog):
    """Enter after the approval: the payment dialog closes, the window has the keys again."""
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible() and window.payment is None)


def reprint(qtbot, window):
    """Ctrl+P on the sale screen, once the window has the keys again (the back office closed: a
    window manager activates the window again; the offscreen platform needs to be asked)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)


def void_from_the_back_office(qtbot, window, attempt_id):
    office = open_back_office(qtbot, window)
    row = pick(qtbot, office, attempt_id)
    assert row.voidable
    qtbot.mouseClick(office.payments.void_button, Qt.MouseButton.LeftButton)
    approve(qtbot, DEMO_MANAGER_PIN, "customer changed their mind")
    qtbot.waitUntil(lambda: office.payments.message.text().startswith("Approved: Voided"), timeout=10_000)
    return office, row


def test_a_void_prints_its_slip_and_ctrl_p_reprints_the_slip_not_the_sale(qtbot, run, open_app, ui_config,
                                                                            cups_pdf):
    app = open_app(ui_config.replace(terminal_id="tb-2001", printer=cups_pdf.printer), "B")
    window, desk = app.window, app.window.receipts
    sign_in(qtbot, window)
    sale = sell(qtbot, run, app)
    qtbot.waitUntil(lambda: desk.printed is not None and desk.last.name == "receipt", timeout=20_000)
    assert "SALE" in pdf_text(cups_pdf.wait_for(desk.printed))
    new_sale(qtbot, window, sale)

    office, row = void_from_the_back_office(qtbot, window, sale.result.attempt_id)
    total = window.sale.money(row.total)
    said = f"Void slip of {total}, {row.card_brand} **** {row.card_last4} sent to {cups_pdf.printer} ("
    qtbot.waitUntil(lambda: said in office.payments.message.text(), timeout=20_000)
    slip_job = desk.printed
    assert slip_job is not None and f"({slip_job.job_id})" in office.payments.message.text()
    slip = pdf_text(cups_pdf.wait_for(slip_job))
    for expected in ("VOID", "CUSTOMER COPY", "Cashier Demo Cashier", "Manager Demo Manager",
                     f"**** {row.card_last4}", row.transaction_id, row.payment_id, "APPROVED (TRAINING)"):
        assert expected in slip, f"{expected!r} missing from:\n{slip}"
    assert re.search(rf"TOTAL VOIDED\s+{re.escape(total)}", slip) and "Subtotal" not in slip
    qtbot.keyClick(office, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)

    reprint(qtbot, window)
    qtbot.waitUntil(lambda: window.status.text().startswith("Reprinted:"), timeout=20_000)
    again = desk.printed
    assert again is not None and again.job_id != slip_job.job_id
    assert window.status.text() == (f"Reprinted: void slip of {total}, {row.card_brand} **** {row.card_last4}, "
                                    f"sent to {cups_pdf.printer} ({again.job_id}).")
    reprinted = pdf_text(cups_pdf.wait_for(again))
    assert reprinted == slip and "SALE" not in reprinted  # the slip again, not the older sale receipt


def test_without_a_printer_the_void_slip_is_previewed_and_ctrl_p_shows_it_again(qtbot, run, open_app, ui_config):
    from pos_app.ui.receipt_view import ReceiptPreview

    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    window, desk = app.window, app.window.receipts
    sign_in(qtbot, window)
    sale = sell(qtbot, run, app)
    close_preview(qtbot)  # the sale's receipt
    new_sale(qtbot, window, sale)

    office, row = void_from_the_back_office(qtbot, window, sale.result.attempt_id)
    preview = modal(qtbot, ReceiptPreview)
    assert preview.windowTitle() == "Void slip" and preview.file_name == "void-slip.pdf"
    shown = pdf_text(preview.pdf)
    assert "VOID" in shown and "TOTAL VOIDED" in shown and "TRAINING" in shown
    qtbot.keyClick(preview, Qt.Key.Key_Escape)
    total = window.sale.money(row.total)
    qtbot.waitUntil(lambda: f"Void slip of {total}, {row.card_brand} **** {row.card_last4} shown."
                    in office.payments.message.text(), timeout=10_000)
    assert desk.printed is None and desk.last.name == "void slip"
    qtbot.keyClick(office, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)

    reprint(qtbot, window)
    again = modal(qtbot, ReceiptPreview)
    assert again.windowTitle() == "Void slip" and again.pdf == preview.pdf  # the slip, not the sale receipt
    qtbot.keyClick(again, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.status.text() == f"Reprinted: void slip of {total}, {row.card_brand} "
                    f"**** {row.card_last4}, shown.", timeout=10_000)


def test_a_capture_from_the_open_pre_auths_prints_its_slip(qtbot, run, open_app, ui_config, cups_pdf):
    from pos_app.ui.preauths import PreauthsDialog

    app = open_app(ui_config.replace(terminal_id="tb-2001", printer=cups_pdf.printer), "B")
    window, desk = app.window, app.window.receipts
    sign_in(qtbot, window)
    held = run(app.station.sale(1500, order_key="tab-1", preauth=True))
    assert held.outcome is Outcome.APPROVED
    qtbot.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    tabs = modal(qtbot, PreauthsDialog)
    qtbot.waitUntil(lambda: tabs.model.rowCount() == 1)
    tabs.amount.setText("12.00")
    qtbot.keyClick(tabs.amount, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "Capture slip of" in tabs.message.text(), timeout=20_000)
    assert tabs.message.text().startswith("Approved") and f"sent to {cups_pdf.printer}" in tabs.message.text()
    slip = pdf_text(cups_pdf.wait_for(desk.printed))
    assert "CAPTURE" in slip and re.search(r"Held \(pre-auth\)\s+\$15\.00", slip)
    assert re.search(r"Captured\s+\$12\.00", slip) and "TOTAL CHARGED" in slip and held.transaction_id in slip
    assert slip.count("TRAINING") >= 2 and "Cashier Demo Cashier" in slip
    qtbot.keyClick(tabs, Qt.Key.Key_Escape)
