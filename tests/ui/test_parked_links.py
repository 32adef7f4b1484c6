"""Pay by link in the window, offscreen, against the sandbox (issue 19): Ctrl+K opens on the
contact field (prefilled from the sale's customer), a bad contact is said and nothing is
sent, Enter parks the sale and frees the lane; Ctrl+W lists the waiting link (arrows, Enter,
Delete with a confirmation, Alt+P pays it in training, Esc); a paid link's receipt comes out
with a notice."""

from __future__ import annotations

import pytest

from pos_app.cart import OrderCustomer
from pos_app.journal import ParkStage
from pos_app.sandbox.link_store import sent_links
from pos_app.ui.qt import QApplication, QMessageBox, Qt
from tests.links import link_requests
from tests.ui.helpers import clipped, close_preview, modal, save, scan, sign_in, two_codes


def open_link_dialog(qtbot, window):
    from pos_app.ui.parked_links import LinkDialog

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    return modal(qtbot, LinkDialog)


def open_waiting(qtbot, window, rows: int):
    from pos_app.ui.parked_links import WaitingLinksDialog

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    dialog = modal(qtbot, WaitingLinksDialog)
    qtbot.waitUntil(lambda: dialog.model.rowCount() == rows)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)
    return dialog


def test_ctrl_k_parks_the_sale_and_ctrl_w_pays_it_in_training(qtbot, run, open_app, ui_config, sandbox):
    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    scan(qtbot, window, two_codes(run, app)[0])
    run(app.counter.attach_customer(OrderCustomer("65f0c0de0000000000000001", "Jane Roe", email="jane@example.com")))
    total = app.counter.totals().total
    item = app.counter.cart.lines[0].name

    dialog = open_link_dialog(qtbot, window)
    assert dialog.contact.hasFocus() and dialog.contact.text() == "jane@example.com"
    dialog.contact.clear()
    qtbot.keyClicks(dialog.contact, "555 12")
    qtbot.keyClick(dialog.contact, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "neither a US mobile number" in dialog.message.text())
    assert link_requests(sandbox, "S") == 0 and dialog.isVisible()
    qtbot.keyClicks(dialog.contact, "3-4567")
    save(dialog, "light-pay-by-link")
    qtbot.keyClick(dialog.contact, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)
    assert app.counter.cart.is_empty and "the sale waits for it" in window.status.text()
    [sent] = sent_links(sandbox.sandbox, "S")
    assert sent.to == "(555) 123-4567" and sent.channel == "sms"

    waiting = open_waiting(qtbot, window, 1)
    row = [waiting.model.index(0, c).data() for c in range(waiting.model.columnCount())]
    assert row == [item, "Jane Roe", "(555) 123-4567", window.sale.money(total), "just now", "waiting"]
    assert waiting.pay_button.isVisible()
    save(waiting, "light-waiting-links")
    qtbot.keyClick(waiting.table, Qt.Key.Key_Return)  # shows the waiting one
    qtbot.waitUntil(lambda: "asked of (555) 123-4567" in waiting.message.text())
    qtbot.keyClick(waiting, Qt.Key.Key_P, Qt.KeyboardModifier.AltModifier)
    close_preview(qtbot)  # no printer set: the receipt is shown
    qtbot.waitUntil(lambda: "Paid by link: Jane Roe's sale" in window.status.text(), timeout=10_000)
    qtbot.waitUntil(lambda: waiting.model.row_at(0) is not None and waiting.model.row_at(0).paid, timeout=10_000)
    parking = waiting.model.row_at(0)
    qtbot.waitUntil(lambda: run(app.station.journal.parking(parking.parking_id)).stage is ParkStage.RECEIPTED)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is waiting)
    waiting.activateWindow()
    qtbot.waitUntil(waiting.isActiveWindow)
    qtbot.keyClick(waiting.table, Qt.Key.Key_Return)  # a paid one: its receipt again
    close_preview(qtbot)
    qtbot.waitUntil(lambda: "Jane Roe's sale" in waiting.message.text() and "Receipt" in waiting.message.text())
    qtbot.keyClick(waiting, Qt.Key.Key_Escape)


def test_delete_cancels_a_waiting_link_after_a_confirmation_and_the_sale_comes_back(qtbot, run, open_app,
                                                                                    ui_config):
    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    scan(qtbot, window, two_codes(run, app)[0])
    lines = app.counter.cart.lines
    dialog = open_link_dialog(qtbot, window)
    qtbot.keyClicks(dialog.contact, "ana@example.com")
    qtbot.keyClick(dialog.contact, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=10_000)

    waiting = open_waiting(qtbot, window, 1)
    qtbot.keyClick(waiting.table, Qt.Key.Key_Delete)
    confirm = modal(qtbot, QMessageBox)
    qtbot.keyClick(confirm, Qt.Key.Key_Escape)  # kept
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is waiting)
    qtbot.waitUntil(waiting.isActiveWindow)
    assert app.counter.cart.is_empty
    qtbot.keyClick(waiting.table, Qt.Key.Key_Delete)
    confirm = modal(qtbot, QMessageBox)
    save(confirm, "light-cancel-link")
    qtbot.keyClick(confirm, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "Link cancelled: the sale of" in waiting.message.text(), timeout=10_000)
    assert app.counter.cart.lines == lines and waiting.model.row_at(0).stage is ParkStage.RETURNED
    qtbot.keyClick(waiting, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not waiting.isVisible())



@pytest.mark.parametrize("language", ["en", "es", "fr"])
def test_ctrl_k_shows_its_whole_sentence_and_refusal_in_every_language(qtbot, run, open_app, ui_config, language):
    """Sized by hand (480×200), the dialog cut its last line ("the lane is free for the next
    customer") and its keys at the bottom, in English too; a refusal cut them further."""
    from pos_app import i18n
    from pos_app.ui.language import show_screens_in
    from pos_app.ui.theme import apply_theme

    i18n.use_store_language(language)
    show_screens_in(language)
    apply_theme(QApplication.instance(), "light")  # the app's look: its larger type is what must fit
    try:
        app = open_app(ui_config.replace(language=language), "S")
        window = app.window
        sign_in(qtbot, window)
        scan(qtbot, window, two_codes(run, app)[0])
        run(app.counter.attach_customer(OrderCustomer("65f0c0de0000000000000001", "Jane Roe",
                                                      email="jane@example.com")))
        dialog = open_link_dialog(qtbot, window)
        shown_whole = clipped(dialog)
        dialog.contact.clear()
        qtbot.keyClicks(dialog.contact, "555 12")
        qtbot.keyClick(dialog.contact, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: dialog.message.text() != "")
        qtbot.waitUntil(lambda: dialog.height() >= dialog.minimumSizeHint().height())
        refused_whole = clipped(dialog)
        dialog.done(0)
    finally:
        show_screens_in("en")
        i18n.use_store_language("en")
    assert shown_whole == [] and refused_whole == [], "\n".join(shown_whole + refused_whole)
