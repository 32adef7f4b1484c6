"""The screens in every language: a marking pseudo-language finds a text never wrapped for
translation; Spanish and French renders (to ``build/screens/``) must fit 1280×800 and
1024×768 with no text cut; a cashier's own language applies at sign-in, without a restart."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pos_app import i18n
from pos_app.ui.acknowledgment import AcknowledgmentDialog
from pos_app.ui.language import show_screens_in
from pos_app.ui.payment_dialog import PaymentDialog
from pos_app.ui.qt import QApplication, Qt
from pos_app.ui.theme import apply_theme
from tests.languages import MARKING, unmarked
from tests.ui.access import undescribed
from tests.ui.helpers import clipped, close_preview, modal, open_back_office, save, scan, sign_in, two_codes

SIZES = ((1280, 800), (1024, 768))


def main_screens(qtbot, run, app, visit: Callable[[str, Any], None]) -> None:
    """Sign-in, the sale screen with two lines, the surcharge notice, the payment dialog
    waiting and approved, the back office, F1, cash (F8) and its change due, the customer
    (F6) and the shift's end (F10), each handed to ``visit`` as it shows."""
    from pos_app.ui.cash_dialog import CashDialog
    from pos_app.ui.customer_dialog import CustomerDialog
    from pos_app.ui.help import HelpDialog
    from pos_app.ui.shift_end import ShiftEndDialog

    window = app.window
    visit("sign-in", window)
    sign_in(qtbot, window)
    for code in two_codes(run, app):
        scan(qtbot, window, code)
    visit("sale", window)
    qtbot.keyClick(window, Qt.Key.Key_F12)
    notice = modal(qtbot, AcknowledgmentDialog)
    visit("surcharge-notice", notice)
    qtbot.keyClick(notice, Qt.Key.Key_Return)
    dialog = modal(qtbot, PaymentDialog)
    visit("payment-waiting", dialog)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    close_preview(qtbot)
    visit("payment-approved", dialog)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    back_to_the_sale(qtbot, window)
    office = open_back_office(qtbot, window)
    visit("back-office", office)
    back_to_the_sale(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F1)
    visit("help", modal(qtbot, HelpDialog))
    back_to_the_sale(qtbot, window)
    scan(qtbot, window, two_codes(run, app)[0])
    qtbot.keyClick(window, Qt.Key.Key_F8)
    cash = modal(qtbot, CashDialog)
    visit("cash", cash)
    cash.page.amount.selectAll()
    qtbot.keyClicks(cash.page.amount, "50")
    qtbot.keyClick(cash.page.amount, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: cash.pages.currentWidget() is cash.change_page, timeout=10_000)
    close_preview(qtbot)
    visit("change-due", cash)
    qtbot.keyClick(cash.new_sale, Qt.Key.Key_Return)
    back_to_the_sale(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F6)
    visit("customer", modal(qtbot, CustomerDialog))
    back_to_the_sale(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F10)
    shift_end = modal(qtbot, ShiftEndDialog)
    qtbot.keyClicks(shift_end.pin, "9999")
    qtbot.keyClick(shift_end.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: shift_end.count.isVisible(), timeout=10_000)
    visit("shift-end", shift_end)
    back_to_the_sale(qtbot, window)


def back_to_the_sale(qtbot, window) -> None:
    """Esc on the dialog open (if any), the main window active again."""
    dialog = QApplication.activeModalWidget()
    if dialog is not None:
        dialog.done(0)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)


def data_texts(run, app) -> set[str]:
    """What the screens show that is no one's to translate: the catalog's names, the store's,
    the staff's."""
    config = app.counter.config
    items = run(app.counter.search("", 500))
    names = {item.name for item in items} | {name for name in (config.store_name, config.store_id,
                                                                config.station_id) if name}
    return names | {"pos-app", "Demo Cashier", "Demo Manager"} | set(run(app.counter.categories()))


def test_every_text_on_the_main_screens_is_wrapped_for_translation(qtbot, run, open_app, ui_config, sandbox,
                                                                  monkeypatch):
    monkeypatch.setattr(i18n, "translations_for", lambda language: MARKING)
    sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.0)
    app = open_app(ui_config, "S")
    data = data_texts(run, app)
    found: dict[str, list[str]] = {}
    main_screens(qtbot, run, app, lambda name, widget: found.update({name: unmarked(widget, data)}))
    problems = {name: texts for name, texts in found.items() if texts}
    assert problems == {}, "\n".join(f"{name}: {text}" for name, texts in problems.items() for text in texts)


@pytest.mark.parametrize("language", ["es", "fr"])
def test_the_main_screens_in_spanish_and_french_fit_and_are_translated(qtbot, run, open_app, ui_config, sandbox,
                                                                        language):
    i18n.use_store_language(language)
    show_screens_in(language)
    apply_theme(QApplication.instance(), "light")  # the app's look: its larger type is what must fit
    sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.0)
    problems: list[str] = []
    app = open_app(ui_config.replace(language=language), "S")
    with i18n.in_language(language):
        pay_key = i18n._("Pay by card  (F12)")
    assert pay_key != "Pay by card  (F12)"

    def visit(name: str, widget: Any) -> None:
        for width, height in SIZES:
            if widget is app.window:
                widget.resize(width - 24, height - 68)  # the window manager's frame and a taskbar
                qtbot.waitUntil(lambda width=width: widget.width() <= width)
            save(widget, f"{language}-{name}-{width}x{height}")
            problems.extend(f"{name} at {width}×{height}: {problem}"
                            for problem in clipped(widget, screen=(width, height)))

    main_screens(qtbot, run, app, visit)
    assert app.window.sale.pay_button.text() == pay_key
    show_screens_in("en")
    assert not problems, "\n".join(problems)


def test_a_cashier_s_own_language_applies_at_sign_in_and_the_store_s_comes_back_at_sign_out(qtbot, run, open_app,
                                                                                            ui_config, sandbox):
    app = open_app(ui_config.replace(language="en"), "S")
    window = app.window
    app.counter.staff.set_language("Demo Cashier", "es")
    with i18n.in_language("es"):
        spanish_pay, spanish_sign_in = i18n._("Pay by card  (F12)"), i18n._("Sign in")
    assert window.sign_in.title.text() == "Sign in"
    sign_in(qtbot, window)  # Demo Cashier: Spanish
    assert window.sale.pay_button.text() == spanish_pay != "Pay by card  (F12)"
    assert i18n.screen_language() == "es" and i18n.store_language_in_force() == "en"
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.sign_in)
    assert window.sign_in.title.text() == "Sign in" != spanish_sign_in
    sign_in(qtbot, window, "9999")  # Demo Manager: the store's language
    assert window.sale.pay_button.text() == "Pay by card  (F12)"
    assert len([widget for widget in window.stack.children() if type(widget).__name__ == "SaleScreen"]) == 1


def test_the_setup_screen_tells_the_problems_apart_in_any_language(tmp_path):
    from pos_app.profile import ConfigError, ConfigProblem
    from pos_app.ui.setup import problem_sentence

    show_screens_in("es")
    try:
        error = ConfigError(i18n._("no key-hash for {user} in the OS keyring; store it with `pos-app setup` or set "
                                   "POS_KEY_HASH").format(user="s1@x"), ConfigProblem.NO_KEY_HASH)
        said = problem_sentence(error, tmp_path)
        with i18n.in_language("es"):
            assert said == i18n._("This computer's keyring has no key-hash for this store yet: paste it below, "
                                  "then save.")
    finally:
        show_screens_in("en")


def test_the_customer_reads_the_store_language_while_the_cashier_reads_their_own(qtbot, run, open_app, ui_config,
                                                                               sandbox, monkeypatch):
    """A Spanish-speaking cashier in an English store: the surcharge notice on the cashier's
    screen in Spanish, the customer's screen in English. (One screen here: the customer's is
    put on it; tests/ui/test_customer_display.py shows it on a real second X screen.)"""
    from pos_app.ui import acknowledgment
    from pos_app.ui.qt import QGuiApplication, QLabel

    monkeypatch.setattr(acknowledgment, "customer_screen", lambda cashier=None: QGuiApplication.primaryScreen())
    app = open_app(ui_config.replace(language="en"), "S")
    window = app.window
    app.counter.staff.set_language("Demo Cashier", "es")
    sign_in(qtbot, window)
    for code in two_codes(run, app):
        scan(qtbot, window, code)
    qtbot.keyClick(window, Qt.Key.Key_F12)
    notice = modal(qtbot, AcknowledgmentDialog)
    display = notice.customer_display
    assert display is not None
    caption = display.findChild(QLabel, "customerCaption").text()
    with i18n.in_language("es"):
        spanish_accept = i18n._("Customer accepts  (Enter)")
    assert notice.accept_button.text() == spanish_accept != "Customer accepts  (Enter)"
    assert caption == "Total to pay by card"
    back_to_the_sale(qtbot, window)


@pytest.mark.parametrize("language", ["en", "es", "fr"])
def test_the_setup_screen_fits_1024_by_768_in_the_light_theme(qtbot, run, tmp_path, language):
    """The first run's screen, as the app shows it (light theme): the form scrolls on a short
    screen, the keys stay below it."""
    from pos_app.ui.setup import SetupDialog

    apply_theme(QApplication.instance(), "light")
    show_screens_in(language)
    problems: list[str] = []

    async def look() -> None:
        dialog = SetupDialog(tmp_path / "data")
        dialog.show()
        qtbot.waitExposed(dialog)
        save(dialog, f"{language}-setup-1024x768")
        problems.extend(clipped(dialog, screen=(1024, 768)))
        if not dialog.rect().contains(dialog.save.geometry()):
            problems.append("the Save key is outside the window")
        dialog.done(0)

    try:
        run(look())
    finally:
        show_screens_in("en")
    assert problems == []


def test_every_key_field_and_choice_of_the_main_screens_is_described(qtbot, run, open_app, ui_config, sandbox):
    """A screen reader says what a control does after its name: each key, field, check box
    and choice of the main screens has a description (``tests/ui/test_access.py`` reads the
    sale screen, the payment dialog and the back office the same way)."""
    sandbox.set_faults(s_delay_min=1.0, s_delay_max=1.0)
    app = open_app(ui_config, "S")
    found: dict[str, list[str]] = {}
    main_screens(qtbot, run, app, lambda name, widget: found.update({name: undescribed(widget)}))
    problems = [f"{name}: {control}" for name, controls in found.items() for control in controls]
    assert problems == [], "\n".join(problems)
