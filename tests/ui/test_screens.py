"""Every main screen rendered to PNG (test artifacts under build/screens/, the README's
screenshots come from there): sign-in, the sale screen with a cart, the surcharge
acknowledgment, the payment dialog live and approved, the receipt, both themes."""

from __future__ import annotations

import pytest

from pos_app.ui.acknowledgment import AcknowledgmentDialog
from pos_app.ui.payment_dialog import PaymentDialog
from pos_app.ui.qt import QApplication, Qt
from pos_app.ui.receipt_view import ReceiptPreview
from pos_app.ui.theme import apply_theme
from tests.ui.helpers import modal, save, scan, sign_in, two_codes


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_render_every_screen(qtbot, run, open_app, ui_config, sandbox, theme):
    apply_theme(QApplication.instance(), theme)
    try:
        sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.0)
        app = open_app(ui_config, "S")
        window = app.window
        save(window, f"{theme}-sign-in")
        sign_in(qtbot, window)
        for code in two_codes(run, app):
            scan(qtbot, window, code)
        qtbot.keyClicks(window.sale.scan, "app")
        qtbot.waitUntil(lambda: window.sale.results.count() > 0, timeout=5000)
        save(window, f"{theme}-sale")
        qtbot.keyClick(window.sale.scan, Qt.Key.Key_Escape)
        window.sale.scan.clear()
        qtbot.keyClick(window, Qt.Key.Key_F12)
        ack = modal(qtbot, AcknowledgmentDialog)
        save(ack, f"{theme}-acknowledgment")
        qtbot.keyClick(ack, Qt.Key.Key_Return)
        dialog = modal(qtbot, PaymentDialog)
        qtbot.waitUntil(lambda: "customer" in dialog.phase.text().lower(), timeout=10_000)
        save(dialog, f"{theme}-payment-waiting")
        qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
        preview = modal(qtbot, ReceiptPreview)
        qtbot.waitUntil(lambda: preview.document.pageCount() > 0)
        save(preview, f"{theme}-receipt")
        qtbot.keyClick(preview, Qt.Key.Key_Escape)
        save(dialog, f"{theme}-payment-approved")
        qtbot.keyClick(dialog, Qt.Key.Key_Return)
    finally:
        apply_theme(QApplication.instance(), "light")
