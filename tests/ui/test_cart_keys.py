"""The cart by keyboard, offscreen, against the sandbox: the line just scanned is the one
+ and − change, ``3*`` before a scan or a pick, the Qty cell edited with F2, and what the
audit trail records of lines lowered or removed after a payment attempt."""

from __future__ import annotations

from pos_app.journal import Outcome
from pos_app.ui.qt import Qt
from tests.counters import under_a_dollar
from tests.ui.helpers import pay, save, scan, sign_in


def codes(run, app, count: int = 3) -> list[str]:
    items = [i for i in run(app.counter.search("a", 40)) if i.sku and i.price_cents > 100]
    return [item.sku for item in items[:count]]


def quantities(app) -> dict[str, int]:
    return {line.sku: line.quantity for line in app.counter.cart.lines}


def selected_sku(window) -> str | None:
    line_id = window.sale.selected_line_id()
    return None if line_id is None else window.counter.cart.line(line_id).sku


def test_the_line_just_scanned_is_the_one_plus_changes_even_from_the_scan_field(qtbot, run, open_app, ui_config):
    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    a, b, c = codes(run, app)
    scan(qtbot, window, a)
    scan(qtbot, window, b)
    assert selected_sku(window) == b
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Up)  # the arrow picks the line above
    assert selected_sku(window) == a
    scan(qtbot, window, c)
    assert selected_sku(window) == c  # the new line, not the one picked before

    assert window.sale.scan.hasFocus()
    qtbot.keyClicks(window.sale.scan, "+")
    qtbot.waitUntil(lambda: quantities(app)[c] == 2)
    assert window.sale.scan.text() == ""  # never typed as text
    qtbot.keyClicks(window.sale.scan, "12")
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Plus, Qt.KeyboardModifier.KeypadModifier)  # the number pad's +
    qtbot.waitUntil(lambda: quantities(app)[c] == 3)
    assert window.sale.scan.text() == "12"
    window.sale.scan.clear()
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Minus)
    qtbot.waitUntil(lambda: quantities(app)[c] == 2)
    assert quantities(app) == {a: 1, b: 1, c: 2}


def test_a_code_holding_a_minus_is_still_scanned_whole(qtbot, run, open_app, ui_config):
    """SKUs are free text for the service: a store whose codes hold "-" can still scan them."""
    from pos_app.api.requests import ItemDraft

    app = open_app(ui_config, "S", sync=False)
    run(app.station.client.create_item(ItemDraft(name="Hyphen test item", type="product", salesPrice=250,
                                                 sku="AB-12")))
    assert run(app.counter.sync_catalog()) is not None  # the screen hears of it and reads the codes again
    window = app.window
    sign_in(qtbot, window)
    [first] = codes(run, app, 1)
    scan(qtbot, window, first)
    qtbot.waitUntil(lambda: "-" in window.sale.codes_with_line_keys)
    scan(qtbot, window, "AB-12")
    assert quantities(app) == {first: 1, "AB-12": 1}
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Minus)  # in an empty field "−" is the line's again
    qtbot.waitUntil(lambda: "AB-12" not in quantities(app))


def test_a_typed_quantity_before_the_scan_or_the_pick_adds_that_many(qtbot, run, open_app, ui_config):
    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    a, b = codes(run, app, 2)
    field = window.sale.scan
    qtbot.keyClicks(field, "3*")
    qtbot.waitUntil(lambda: "Quantity 3" in window.status.text())
    qtbot.keyClicks(field, a)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: quantities(app).get(a) == 3 and "Added 3 × " in window.status.text())
    assert field.text() == ""

    name = next(line.name for line in run(app.counter.search("a", 40)) if line.sku == b)
    qtbot.keyClicks(field, f"2*{name}")
    qtbot.waitUntil(lambda: window.sale.results.isVisible() and window.sale.results.count() > 0)
    qtbot.keyClick(field, Qt.Key.Key_Return)  # the Enter on the search result
    qtbot.waitUntil(lambda: quantities(app).get(b) == 2 and "Added 2 × " in window.status.text())

    qtbot.keyClicks(field, "0*")
    qtbot.waitUntil(lambda: "0* is not a quantity" in window.status.text())
    qtbot.keyClicks(field, a)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert quantities(app) == {a: 3, b: 2} and field.text() == f"0*{a}"  # kept, to be corrected


def test_the_qty_cell_is_edited_by_keyboard(qtbot, run, open_app, ui_config):
    from pos_app.ui.qt import QApplication, QLineEdit

    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    a, b = codes(run, app, 2)
    scan(qtbot, window, a)
    scan(qtbot, window, b)
    qtbot.waitUntil(lambda: window.status.text() == f"Added {window.counter.cart.lines[-1].name}")  # saved

    def edit(typed: str, key: Qt.Key = Qt.Key.Key_Return) -> None:
        qtbot.keyClick(window.sale.scan, Qt.Key.Key_F2)
        qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit)
                        and QApplication.focusWidget() is not window.sale.scan)
        editor = QApplication.focusWidget()
        editor.selectAll()
        qtbot.keyClicks(editor, typed)
        qtbot.keyClick(editor, key)
        qtbot.waitUntil(window.sale.scan.hasFocus)  # back to scanning

    edit("12")
    qtbot.waitUntil(lambda: quantities(app)[b] == 12)
    save(window, "sale-qty-edited")
    typed: list[str] = []
    window.sale.cart_model.quantity_typed.connect(lambda line_id, text: typed.append(text))
    edit("7", Qt.Key.Key_Escape)  # Esc leaves the line as it was
    assert typed == []
    edit("abc")
    qtbot.waitUntil(lambda: "“abc” is not a quantity" in window.status.text())
    edit("10000")
    qtbot.waitUntil(lambda: "“10000” is not a quantity" in window.status.text())
    assert quantities(app) == {a: 1, b: 12}
    edit("0")
    qtbot.waitUntil(lambda: b not in quantities(app))
    assert quantities(app) == {a: 1}


def lowered_entries(run, app) -> list:
    entries = run(app.counter.disk(app.counter.staff.audit))
    return [e for e in entries if e.action in ("line_removed", "quantity_lowered")]


def test_lines_lowered_or_removed_after_a_declined_payment_are_audited_not_before(qtbot, run, open_app, ui_config):
    app = open_app(ui_config, "S")
    window = app.window
    sign_in(qtbot, window)
    cheap, deal_item = run(under_a_dollar(app.counter))
    item, deal, name = cheap.sku, deal_item.sku, cheap.name
    [other] = [code for code in codes(run, app, 2) if code != item][:1]
    scan(qtbot, window, item)
    scan(qtbot, window, other)
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Plus)
    qtbot.waitUntil(lambda: quantities(app)[other] == 2)
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Minus)
    qtbot.waitUntil(lambda: quantities(app)[other] == 1)
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: other not in quantities(app))
    assert lowered_entries(run, app) == []  # no payment attempted yet: nothing to audit

    scan(qtbot, window, deal)
    assert 0 < app.counter.totals().total < 100
    dialog = pay(qtbot, window)
    declined = dialog.result
    assert declined.outcome is Outcome.DECLINED
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # back to the sale: the cart stays
    qtbot.waitUntil(lambda: app.window.payment is None and window.sale.scan.hasFocus())

    scan(qtbot, window, item)  # selected: the line just scanned
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Minus)
    qtbot.waitUntil(lambda: quantities(app)[item] == 1)
    qtbot.keyClick(window.sale.scan, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: item not in quantities(app))
    removed, lowered = lowered_entries(run, app)  # newest first
    assert (lowered.actor, lowered.action) == ("Demo Cashier", "quantity_lowered")
    assert (removed.actor, removed.action) == ("Demo Cashier", "line_removed")
    assert lowered.detail.startswith(f"{name} (line 1, SKU {item}): quantity 2 → 1")
    assert removed.detail.startswith(f"{name} (line 1, SKU {item}): quantity 1 → 0")
    for entry in (removed, lowered):
        assert f"after payment attempt {declined.attempt_id} (declined)" in entry.detail
        assert app.counter.cart.order_key in entry.detail
