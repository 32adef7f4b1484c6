"""F10 with an order paid by payment link in the shift, offscreen against the sandbox: the
link's money on a line of its own under the card figures (paid online: not the terminal's
card total), and no difference for the link's sale the service lists."""

from __future__ import annotations

from pos_app.journal import Outcome
from pos_app.money import format_money
from pos_app.ui.qt import QApplication, Qt
from pos_app.ui.shift_end import ShiftEndDialog
from pos_app.ui.theme import apply_theme
from tests.counters import cart_over
from tests.links import paid
from tests.parking import PHONE
from tests.ui.helpers import close_preview, fits, modal, save, sign_in


def usd(cents: int) -> str:
    return format_money(cents, "USD")


def test_f10_shows_the_links_paid_on_their_own_line(qtbot, run, open_app, ui_config, sandbox):
    apply_theme(QApplication.instance(), "light")
    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    window = app.window
    sign_in(qtbot, window)
    assert run(app.station.sale(1250, order_key="cart-card")).outcome is Outcome.APPROVED
    parked = window.parked_links.parked
    run(cart_over(app.counter, 800))
    tax = app.counter.totals().tax
    parking = run(parked.park(PHONE))
    payment = paid(sandbox, parking.link_id)["payment"]
    done = run(parked.check(parking))
    assert done.paid
    close_preview(qtbot)  # the paid link's receipt (no printer set): a modal over what comes next otherwise
    window.activateWindow()  # what a window manager does once the preview closes (offscreen has none)
    qtbot.waitUntil(window.isActiveWindow)

    qtbot.keyClick(window, Qt.Key.Key_F10)  # the manager's PIN, Enter: checked with the service
    dialog = modal(qtbot, ShiftEndDialog)
    qtbot.keyClicks(dialog.pin, "9999")
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.check is not None and dialog.check_button.isEnabled(), timeout=10_000)
    assert dialog.check.clean and not dialog.differences.isVisible()  # the link's sale is its parking's
    assert "1 payment attempt in this station's journal, 1 order paid by payment link." in dialog.summary.text()
    card, _rest, links = dialog.figures.text().splitlines()
    assert card.startswith(f"Gross {usd(1250)} (1 sale or capture)")  # the terminal's card money alone
    assert links == (f"Payment links (card paid online, not the terminal's) net {usd(parking.amount)} (1 link, "
                     f"surcharge {usd(payment['surcharge'])}, tax {usd(tax)})")
    qtbot.wait(50)
    fits(dialog)
    save(dialog, "light-shift-end-links")
