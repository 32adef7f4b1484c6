"""Pre-auths in the window, offscreen, against the sandbox: the result says the amount is
held (reserved, not charged), never "paid"; the open pre-auths list (Ctrl+T) shows when
each was taken, the amount and the cashier, and no id of the station's own."""

from __future__ import annotations

from pos_app.journal import Outcome
from pos_app.ui.qt import QApplication, Qt
from tests.ui.helpers import close_preview, modal, pay, save, scan, sign_in, two_codes


def test_a_pre_auth_says_the_amount_is_held_not_paid(qtbot, run, open_app, ui_config):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    scan(qtbot, app.window, two_codes(run, app)[0])
    dialog = pay(qtbot, app.window, Qt.Key.Key_F11)
    assert dialog.result.outcome is Outcome.APPROVED
    held = app.window.sale.money(dialog.result.amount)
    assert dialog.heading.text() == "Amount held"
    assert dialog.phase.text().startswith(f"{held} held on ") and "not charged yet" in dialog.phase.text()
    assert "paid" not in f"{dialog.heading.text()} {dialog.phase.text()}".lower()
    close_preview(qtbot)
    save(dialog, "light-preauth-held")
    qtbot.keyClick(dialog, Qt.Key.Key_Return)


def test_the_open_pre_auths_list_shows_time_amount_and_cashier(qtbot, run, open_app, ui_config):
    from pos_app.ui.preauths import PreauthsDialog

    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)  # Demo Cashier
    first = run(app.station.sale(1500, order_key="tab-1", preauth=True))
    app.station.sign_in("Eli Night")  # the evening's cashier takes the second
    second = run(app.station.sale(2750, order_key="tab-2", preauth=True))
    app.station.sign_in("Demo Cashier")
    assert first.outcome is second.outcome is Outcome.APPROVED
    attempts = {a.id: a for a in run(app.station.journal.attempts())}

    qtbot.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    tabs = modal(qtbot, PreauthsDialog)
    qtbot.waitUntil(lambda: tabs.model.rowCount() == 2)
    headers = [tabs.model.headerData(c, Qt.Orientation.Horizontal) for c in range(tabs.model.columnCount())]
    assert headers[:3] == ["Time", "Amount", "Cashier"]
    rows = [[tabs.model.index(r, c).data() for c in range(tabs.model.columnCount())] for r in range(2)]
    for row, result, cashier in ((rows[0], second, "Eli Night"), (rows[1], first, "Demo Cashier")):  # newest first
        taken = attempts[result.attempt_id].created_at.astimezone()
        assert row[:3] == [f"{taken:%H:%M}", window.sale.money(result.amount), cashier]
        assert f"•••• {result.card_last4}" in row[3] and row[4] == "ts-1001"
        assert result.attempt_id not in " ".join(row)
    assert tabs.amount.text() == "27.50"  # the newest is picked
    save(tabs, "light-open-preauths")
    qtbot.keyClick(tabs, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
