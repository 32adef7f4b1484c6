"""Every dialog, offscreen: by keyboard, Enter on a focused button presses that button (a
QDialog pressed its default button instead: Tab to Cancel, Enter, and the surcharge
notice was accepted) and Enter in a field never presses a button nobody chose; on a
1024×768 screen, none is cut (a refusal below a manager's PIN was), nor the sale screen."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest

from pos_app.cart import tax_choice
from pos_app.i18n import _
from pos_app.journal import Operation, Outcome
from pos_app.terminal.outcomes import OperationResult
from pos_app.ui.qt import QApplication, QDialog, QLineEdit, QPushButton, Qt
from tests.ui.helpers import clipped, sign_in

REFUND_ALL = ("Refund all that is left, $41.23, to Visa •••• 4242. The terminal refund returns the amount of the "
              "sale; the $1.03 card surcharge is returned only if the service reverses it (the list shows it after "
              "the refund). If it does not, give it back by store policy.")
SCREEN = (1024, 768)
"""A lane PC's screen; a window's frame and the taskbar take some 60 pixels of its height."""
UNKNOWN = OperationResult(Outcome.UNKNOWN, Operation.SALE, "ts-1001", attempt_id="a-unknown", amount=1234)


def dialogs(app, run) -> dict[str, Callable[[], QDialog]]:
    from pos_app.cart import OrderCustomer
    from pos_app.cart.store import encode
    from pos_app.journal.orders import OrderLine
    from pos_app.journal.parked import ParkedOrder, ParkStage
    from pos_app.membership_plans import MembershipPlan
    from pos_app.receipts import ReportData, render_report
    from pos_app.station.card_on_file import StoredCard
    from pos_app.station.returns import OrderForReturn, ReturnLine
    from pos_app.station.shift import ShiftCheck
    from pos_app.station.update_link import Contact, ContactKind, LinkTarget
    from pos_app.station.z_report import x_report
    from pos_app.ui.acknowledgment import AcknowledgmentDialog
    from pos_app.ui.back_office import BackOfficeDialog
    from pos_app.ui.card_on_file import StoredCardPicker
    from pos_app.ui.close_question import CloseBatchQuestion
    from pos_app.ui.customer_dialog import CustomerDialog
    from pos_app.ui.drawer_dialog import DrawerChoice
    from pos_app.ui.help import HelpDialog
    from pos_app.ui.manager import ManagerDialog
    from pos_app.ui.manager_approval import ManagerApproval
    from pos_app.ui.memberships_panel import PlanChoice
    from pos_app.ui.open_price import OpenPriceDialog
    from pos_app.ui.parked_links import CancelLinkQuestion, LinkDialog, WaitingLinksDialog
    from pos_app.ui.payment_dialog import PaymentDialog
    from pos_app.ui.preauths import PreauthsDialog
    from pos_app.ui.receipt_view import ReceiptPreview
    from pos_app.ui.return_dialog import ReturnDialog
    from pos_app.ui.setup import SetupDialog
    from pos_app.ui.shift_end import ShiftEndDialog
    from pos_app.ui.update_link_dialog import UpdateLinkDialog
    from pos_app.ui.x_report import XReportDialog

    window, money = app.window, app.counter.money  # the store's MoneyFormat: dialogs prefill and parse with it
    verify = window.office.verify_manager

    def payment() -> QDialog:
        dialog = PaymentDialog(app.counter, window.bridge, preauth=False, parent=window)
        dialog._show(UNKNOWN)  # keep waiting, check again, manager decides, details, back to the sale
        return dialog

    def back_office() -> QDialog:
        dialog = BackOfficeDialog(window.office, money, window.receipts, window)
        dialog.payments.void_button.setEnabled(True)  # as for a payment picked in the list
        return dialog

    def new_customer() -> QDialog:
        dialog = CustomerDialog(app.counter, window)
        dialog.new_button.click()  # the new-customer form, as Ctrl+N shows it
        return dialog

    jane = OrderCustomer("cus-1", "Jane Roe", "jane@example.com", "(555) 123-4567")
    now = datetime.now(UTC)
    parking = ParkedOrder("p-1", "o-1", ParkStage.PARKED, 1234, "jane@example.com", encode(app.counter.cart).decode(),
                          "Alex", now, link_id="l-1")
    plan = MembershipPlan(name="Coffee club", amount=1500, every_months=1, day=1)
    check = ShiftCheck("ts-1001", now, True, now, (), (), (), True)
    report = render_report(ReportData("Keys", "Store", "s1", "lane-1", datetime.now(UTC), ()))
    taxes = tax_choice(app.counter.rates, [((), 1), (tuple(app.counter.rates), 1)])  # the longest class's name
    return {
        "surcharge notice": lambda: AcknowledgmentDialog(["Card payments carry a 3 % surcharge."], "$12.34", window),
        "void approval": lambda: ManagerApproval(
            "Void", "Void Visa •••• 4242 of $25.63: the customer gets everything back, surcharge included.", verify,
            money=money, parent=window),
        "refund approval": lambda: ManagerApproval("Refund", "Refund up to $12.34 of this $12.71 payment to Visa.",
                                                   verify, money=money, max_amount=1234, parent=window),
        "refund all approval": lambda: ManagerApproval("Refund", REFUND_ALL, verify, money=money, max_amount=4123,
                                                       parent=window),
        "audit PIN": lambda: ManagerApproval("Show the audit trail", "A manager's PIN shows who did what, when and "
                                             "why.", verify, money=money, ask_reason=False, parent=window),
        "manager decision": lambda: ManagerDialog(app.counter, UNKNOWN, window),
        "payment": payment,
        "open pre-auths": lambda: PreauthsDialog(app.counter, money, window, receipts=window.receipts),
        "misc item (F3)": lambda: OpenPriceDialog(app.counter, taxes, window),
        "customer (F6)": lambda: CustomerDialog(app.counter, window),
        "end of shift": lambda: ShiftEndDialog(app.counter, window, receipts=window.receipts),
        "back office": back_office,
        "keys (F1)": lambda: HelpDialog(window),
        "receipt preview": lambda: ReceiptPreview(report, window),
        "setup": lambda: SetupDialog(app.config.data_dir / "setup", parent=window),
        "stored cards (F4)": lambda: StoredCardPicker(
            [StoredCard("c-1", "m-1", "Visa", "4242", "credit", "424242", True, "12/30"),
             StoredCard("c-1", "m-2", "Mastercard", "4444", "debit", "555555", False, "01/29")],
            "Jane Roe", "$12.34", window),
        "drawer": lambda: DrawerChoice(window),
        "pay by link (Ctrl+K)": lambda: LinkDialog(window.parked_links.parked, money, window),
        "waiting links (Ctrl+W)": lambda: WaitingLinksDialog(window.parked_links, window),
        "cancel a link": lambda: CancelLinkQuestion(parking, money, window),
        "update link (Ctrl+U)": lambda: UpdateLinkDialog(app.station.client, LinkTarget(
            jane, (Contact(ContactKind.EMAIL, "jane@example.com"), Contact(ContactKind.PHONE, "(555) 123-4567")),
            has_card=True), window),
        "new customer (F6, Ctrl+N)": new_customer,
        "enroll (F6)": lambda: PlanChoice(jane, (plan,), app.counter, window),
        "X report": lambda: XReportDialog(app.station, run(x_report(app.station, "ts-1001")), window,
                                          receipts=window.receipts),
        "close the batch?": lambda: CloseBatchQuestion(check, window, "Z-0001 records $100.00 counted."),
        "return items": lambda: ReturnDialog(OrderForReturn(
            "o-1", (ReturnLine(OrderLine(1, "Apples", "4011", 199, 3, 48)),
                    ReturnLine(OrderLine(2, "Bread", "5011", 349, 1, 0))), (), 1000), money, window),
    }


def settled(dialog: QDialog) -> bool:
    """Done loading what it shows (the back office's lists: Refresh is disabled meanwhile; the
    open pre-auths and the waiting links, which give a field or the list the keyboard once
    loaded)."""
    from pos_app.ui.back_office import BackOfficeDialog
    from pos_app.ui.parked_links import WaitingLinksDialog
    from pos_app.ui.preauths import PreauthsDialog

    if isinstance(dialog, BackOfficeDialog):  # in any language: the day read, not its sentence
        return dialog.payments.refresh_button.isEnabled() and dialog.payments.day_read
    if isinstance(dialog, PreauthsDialog | WaitingLinksDialog):
        return dialog.message.text() != _("Loading…")
    return True


def opened(qtbot, app, run, *, leaving_out: str | None = None) -> Iterator[tuple[str, QDialog]]:
    """Each dialog of ``dialogs`` (but ``leaving_out``) opened and settled, by name; closed
    once the loop moves on."""
    for name, make in dialogs(app, run).items():
        if name == leaving_out:
            continue
        dialog = make()
        dialog.open()
        qtbot.waitUntil(lambda dialog=dialog: QApplication.activeModalWidget() is dialog and settled(dialog))
        yield name, dialog
        dialog.done(0)
        qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)


def test_enter_on_a_focused_button_presses_it_in_every_dialog(qtbot, run, open_app, ui_config):
    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    misrouted: list[str] = []
    for name, dialog in opened(qtbot, app, run):
        pressed: list[QPushButton] = []
        buttons = [b for b in dialog.findChildren(QPushButton) if b.isVisible() and b.isEnabled()
                   and b.focusPolicy() != Qt.FocusPolicy.NoFocus]
        for button in buttons:
            button.clicked.disconnect()  # the button's action itself is not under test: where Enter goes is
            button.clicked.connect(lambda checked=False, button=button, pressed=pressed: pressed.append(button))
        for button in buttons:
            pressed.clear()
            button.setFocus()
            qtbot.waitUntil(button.hasFocus)
            qtbot.keyClick(button, Qt.Key.Key_Return)
            if pressed != [button]:
                misrouted.append(f"{name}: Enter on “{button.text()}” pressed "
                                 f"{[b.text() for b in pressed] or 'nothing'}")
        default = [b for b in buttons if b.isDefault()]
        for field in (f for f in dialog.findChildren(QLineEdit) if f.isVisible() and f.isEnabled()):
            pressed.clear()
            field.setFocus()
            qtbot.waitUntil(field.hasFocus)
            qtbot.keyClick(field, Qt.Key.Key_Return)
            if pressed not in ([], default):  # the dialog's chosen default, or nothing
                misrouted.append(f"{name}: Enter in “{field.accessibleName()}” pressed {[b.text() for b in pressed]}")
    assert not misrouted, "\n".join(misrouted)


def refused(qtbot, name: str, dialog: QDialog) -> None:
    """Make the dialog say its refusal, as a manager's slip would (a wrong PIN, an amount too big)."""
    from pos_app.ui.manager_approval import ManagerApproval
    from pos_app.ui.open_price import OpenPriceDialog

    if isinstance(dialog, OpenPriceDialog):
        dialog.price.setText("-3")
        qtbot.keyClick(dialog.price, Qt.Key.Key_Return)
        qtbot.waitUntil(dialog.problem.isVisible)
        return
    if not isinstance(dialog, ManagerApproval):
        return
    if dialog.max_amount is not None:
        dialog.amount.setText("99999")
    if dialog.ask_reason:
        qtbot.keyClicks(dialog.reason, "wrong item")
    qtbot.keyClicks(dialog.pin, "0000")
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.message.text() != "" and dialog.ok.isEnabled(), timeout=10_000)


def test_no_dialog_is_cut_on_a_1024_by_768_screen(qtbot, run, open_app, ui_config):
    from tests.ui.helpers import save

    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    problems = [f"the sale screen: {problem}" for problem in clipped(app.window)]
    for name, dialog in opened(qtbot, app, run):
        refused(qtbot, name, dialog)
        problems.extend(f"{name}: {problem}" for problem in clipped(dialog))
        if name in ("void approval", "refund all approval", "audit PIN"):
            save(dialog, f"light-{name.replace(' ', '-')}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_sale_screen_in_each_theme_fits_1024_by_768(qtbot, run, open_app, ui_config, theme):
    """The themes' large keys and fonts included (the other checks here run unthemed), a
    partly paid sale's payment panel shown and a long sentence on the status line: the
    window's smallest size still fits the screen, less a title bar and a taskbar."""
    from pos_app.ui.theme import apply_theme

    apply_theme(QApplication.instance(), theme)
    try:
        app = open_app(ui_config, "S")
        sign_in(qtbot, app.window)
        item = next(i for i in run(app.counter.search("a", 40)) if i.price_cents > 200)
        run(app.counter.add(item))
        run(app.counter.pay_cash(100))
        app.window.sale.refresh()
        app.window.status.setText("A sentence long enough to wrap on the status line, as a cancel's or a drawer's "
                                  "can be: it says what was done, by whom, and what the drawer did. " * 3)
        assert app.window.sale.payments.isVisibleTo(app.window)
        needed = app.window.layout().totalMinimumSize()
        assert needed.width() <= SCREEN[0] and needed.height() <= SCREEN[1] - 60, needed
    finally:
        apply_theme(QApplication.instance(), "")


@pytest.mark.parametrize("language", ["en", "es", "fr"])
def test_the_high_contrast_theme_fits_1024_by_768_in_every_language(qtbot, run, open_app, ui_config, language):
    """Its bold keys and thicker focus borders made the sale screen 1,123 pixels wide in English
    (1,096 in Spanish), the payment dialog's row of keys wider than the screen, and cut the
    default key of every dialog (its 5-pixel border) and "Marquer non payé"."""
    from pos_app import i18n
    from pos_app.ui.language import show_screens_in
    from pos_app.ui.theme import apply_theme

    i18n.use_store_language(language)
    show_screens_in(language)
    apply_theme(QApplication.instance(), "high-contrast")
    try:
        app = open_app(ui_config.replace(language=language), "S")
        sign_in(qtbot, app.window)
        for item in [i for i in run(app.counter.search("a", 40)) if i.price_cents > 100][:2]:
            run(app.counter.add(item))
        app.window.sale.refresh()
        needed = app.window.layout().totalMinimumSize()
        problems = [f"the sale screen needs {needed.width()}×{needed.height()}"] if (
            needed.width() > SCREEN[0] or needed.height() > SCREEN[1] - 60) else []
        for name, dialog in opened(qtbot, app, run, leaving_out="setup"):  # shown before any theme is chosen
            problems.extend(f"{name}: {problem}" for problem in clipped(dialog))
    finally:
        show_screens_in("en")
        i18n.use_store_language("en")
    assert not problems, "\n".join(problems)


def test_every_key_field_and_choice_of_every_dialog_is_described(qtbot, run, open_app, ui_config):
    """A screen reader says what a control does after its name: in every dialog, each key,
    field, check box and choice has a description (``tests/ui/access.py``)."""
    from tests.ui.access import undescribed

    app = open_app(ui_config, "S")
    sign_in(qtbot, app.window)
    problems: list[str] = []
    for name, dialog in opened(qtbot, app, run):
        problems.extend(f"{name}: {control}" for control in undescribed(dialog))
    assert problems == [], "\n".join(problems)
