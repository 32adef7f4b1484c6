"""F3, the misc key, offscreen with real widgets against the sandbox: price, Tab to the tax,
Enter adds the line (selected, as a scan's); a price that cannot be is said under the
field, which keeps the keyboard, and nothing is added; Esc adds nothing; a German store
types "4,99"."""

from __future__ import annotations

import pytest

from pos_app.cart import OPEN_PRICE_ITEM
from pos_app.ui.open_price import OpenPriceDialog
from pos_app.ui.qt import QApplication, Qt
from pos_app.ui.theme import apply_theme
from tests.ui.helpers import modal, save, sign_in


@pytest.fixture(autouse=True)
def light_theme():
    """Rendered as the app shows it; the style sheet as it was for the tests that follow."""
    app = QApplication.instance()
    before = app.styleSheet()
    apply_theme(app, "light")
    yield
    app.setStyleSheet(before)


def open_dialog(qtbot, window) -> OpenPriceDialog:
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_F3)
    dialog = modal(qtbot, OpenPriceDialog)
    qtbot.waitUntil(dialog.price.hasFocus)
    return dialog


def test_f6_price_tab_to_the_tax_enter_adds_the_line_selected(qtbot, run, open_app, ui_config):
    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    dialog = open_dialog(qtbot, window)
    assert dialog.tax.currentText() == "State sales tax + City tax 8.25 %"  # what a corner market's goods carry
    save(dialog, "light-misc-item")
    qtbot.keyClicks(dialog.price, "4.99")
    qtbot.keyClick(dialog.price, Qt.Key.Key_Tab)
    assert dialog.tax.hasFocus()
    qtbot.keyClick(dialog.tax, Qt.Key.Key_Up)  # ↑ ↓ pick the class: "Prepared food tax 1.50 %"
    qtbot.keyClick(dialog.tax, Qt.Key.Key_Down)
    assert dialog.tax.currentText() == "State sales tax + City tax 8.25 %"
    save(dialog, "light-misc-item-tax")
    qtbot.keyClick(dialog.tax, Qt.Key.Key_Tab)
    assert dialog.description.hasFocus()
    qtbot.keyClicks(dialog.description, "Gift wrap")
    qtbot.keyClick(dialog.tax, Qt.Key.Key_Return)  # Enter from the tax: adds
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    [line] = app.counter.cart.lines
    assert (line.item_id, line.name, line.sku, line.unit_cents, line.quantity) == (OPEN_PRICE_ITEM, "Gift wrap", None,
                                                                                   499, 1)
    assert app.counter.totals().total == 540  # 4.99 + 8.25 % (0.41)
    assert window.sale.total.text() == "$5.40" and window.status.text() == "Added Gift wrap, $4.99"
    assert window.sale.selected_line_id() == line.line_id
    qtbot.waitUntil(window.sale.scan.hasFocus)  # scanning goes on

    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Plus)  # its quantity changes like any line's
    qtbot.waitUntil(lambda: app.counter.cart.lines[0].quantity == 2)
    dialog = open_dialog(qtbot, window)
    qtbot.keyClicks(dialog.price, "2.50")
    qtbot.keyClick(dialog.price, Qt.Key.Key_Return)  # Enter from the price, description left empty
    qtbot.waitUntil(lambda: len(app.counter.cart) == 2)
    added = app.counter.cart.lines[-1]
    assert added.name == "Misc item" and window.sale.selected_line_id() == added.line_id
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    save(window, "light-sale-misc-item")


def test_a_bad_price_is_said_under_the_field_and_adds_nothing(qtbot, run, open_app, ui_config):
    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    dialog = open_dialog(qtbot, window)
    for typed, said in (("", "Type the price, like 12.50."),
                        ("0", "The price must be more than $0.00."),
                        ("-3", "The price must be more than $0.00."),
                        ("25000", "A misc item costs at most $10,000.00"),
                        ("4,99", "'4,99' is not an amount")):
        dialog.price.setText(typed)
        qtbot.keyClick(dialog.description, Qt.Key.Key_Return)  # Enter from another field: the price gets the keys
        qtbot.waitUntil(lambda said=said, typed=typed: said in dialog.problem.text()
                        and dialog.price.selectedText() == typed)  # selected: typed over
        assert dialog.problem.isVisible() and dialog.price.hasFocus() and dialog.isVisible()
    save(dialog, "light-misc-item-refused")
    assert app.counter.cart.is_empty
    qtbot.keyClick(dialog.price, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None)
    qtbot.waitUntil(window.sale.scan.hasFocus)
    assert app.counter.cart.is_empty and window.status.text() == ""


def test_a_german_store_types_the_price_with_a_comma(qtbot, run, open_app, ui_config):
    app = open_app(ui_config.replace(currency="EUR", locale="de_DE"), "B")
    window = app.window
    sign_in(qtbot, window)
    dialog = open_dialog(qtbot, window)
    assert dialog.tax.currentText() == "State sales tax 6,25 %"  # what most of a bookshop's items carry, as
    # a German reads a rate: next to "4,99", "6.25 %" would say the decimal separator is a point
    qtbot.keyClicks(dialog.price, "4.99")
    qtbot.keyClick(dialog.price, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "this store writes amounts otherwise" in dialog.problem.text())
    assert "12,50" in dialog.problem.text() and app.counter.cart.is_empty
    save(dialog, "light-misc-item-de_DE-refused")
    dialog.price.clear()
    qtbot.keyClicks(dialog.price, "4,99")
    qtbot.keyClick(dialog.price, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(app.counter.cart) == 1)
    assert app.counter.cart.lines[0].unit_cents == 499 and app.counter.totals().total == 530  # 6.25 %: 0.31
    qtbot.waitUntil(lambda: window.status.text() == "Added Misc item, 4,99\u00a0€")
