"""Bad data never bricks a lane, in the real window: the app starts with a saved cart naming
a tax the merchant deleted since, the line says so, and F12 takes the payment."""

from __future__ import annotations

import json

from pos_app.api.client import PaymentsClient
from pos_app.catalog import Catalog, sync_catalog
from pos_app.journal import Outcome
from pos_app.station.station import Station
from pos_app.ui.qt import Qt
from tests.counters import counter_for
from tests.merchant_data import B_CITY_TAX, delete_tax
from tests.ui.helpers import close_preview, pay, save, sign_in


async def ring_up_a_city_taxed_item(config, sandbox) -> tuple[str, int]:
    """A lane rings up an item carrying the city tax and is closed, its cart saved: its name
    and the total the customer was told."""
    station = await Station.open(config, sandbox.keys["B"], training=True)
    counter = await counter_for(station)
    try:
        await counter.sync_catalog()
        item = next(i for i in await counter.search("a", 200) if B_CITY_TAX in i.tax_ids and i.price_cents > 100)
        await counter.add(item, 2)
        return item.name, counter.totals().total
    finally:
        await counter.aclose()
        await station.aclose()


async def sync_the_catalog(config, sandbox) -> None:
    """The lane's catalog synced while the app is closed (its saved cart untouched)."""
    with Catalog.open(config.catalog_path) as catalog:
        async with PaymentsClient(config.base_url, sandbox.keys["B"]) as client:
            await sync_catalog(client, catalog)


def test_the_app_starts_with_a_cart_naming_a_deleted_tax_flags_the_line_and_f12_pays(
        qtbot, run, open_app, ui_config, sandbox):
    config = ui_config.replace(terminal_id="tb-2001")
    name, quoted = run(ring_up_a_city_taxed_item(config, sandbox))
    delete_tax(sandbox, B_CITY_TAX)
    app = open_app(config, "B")  # restores the saved cart, then syncs: the city tax is no longer listed
    assert B_CITY_TAX not in app.counter.rates
    window = app.window
    sign_in(qtbot, window)
    sale = window.sale
    shown = sale.cart_model.index(0, 0)
    assert sale.cart_model.data(shown) == f"{name}\n⚠ City tax 2.00 % kept: no longer listed"
    assert sale.table.rowHeight(0) > sale.table.fontMetrics().height() * 2  # the flag's own line shows whole
    assert "no longer lists City tax" in sale.cart_model.data(shown, Qt.ItemDataRole.ToolTipRole)
    assert sale.total.text() == sale.money(quoted) and sale.pay_button.isEnabled()
    save(window, "sale-flagged-line")
    dialog = pay(qtbot, window)  # F12, Enter on the surcharge notice
    assert dialog.result.outcome is Outcome.APPROVED and dialog.result.amount == quoted
    close_preview(qtbot)
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert app.counter.cart.is_empty and sale.cart_model.rowCount() == 0
    [payment] = sandbox.stats()["payments"]
    assert payment["amount"] == quoted and payment["paid"]


def test_an_item_whose_tax_is_gone_is_refused_with_a_sentence_at_the_scan(qtbot, run, open_app, ui_config, sandbox):
    delete_tax(sandbox, B_CITY_TAX)
    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    sign_in(qtbot, app.window)
    item = next(i for i in run(app.counter.search("a", 200)) if B_CITY_TAX in i.tax_ids and i.sku)
    qtbot.keyClicks(app.window.sale.scan, item.sku)
    qtbot.keyClick(app.window.sale.scan, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "cannot be rung up" in app.window.status.text())
    assert app.counter.cart.is_empty and item.name in app.window.status.text()


def test_an_old_cart_that_cannot_be_used_is_kept_aside_and_the_cashier_is_told(
        qtbot, run, open_app, ui_config, sandbox):
    config = ui_config.replace(terminal_id="tb-2001")
    name, _ = run(ring_up_a_city_taxed_item(config, sandbox))
    saved = json.loads(config.cart_path.read_text("utf-8"))
    old = {k: v for k, v in saved.items() if k not in ("taxes", "customer")} | {"version": 1}  # as saved before
    config.cart_path.write_text(json.dumps(old), "utf-8")
    delete_tax(sandbox, B_CITY_TAX)
    run(sync_the_catalog(config, sandbox))  # the local catalog no longer lists the city tax
    app = open_app(config, "B", sync=False)
    status = app.window.status.text()
    assert status.startswith(f"The saved sale could not be restored: {name} names a tax") and "unusable-" in status
    assert app.counter.cart.is_empty and not config.cart_path.exists()
    sign_in(qtbot, app.window)
    assert app.window.status.text() == status  # still there once the cashier is on the sale screen
    save(app.window, "sale-cart-kept-aside")


def test_a_sync_that_left_items_out_says_so_on_the_status_line(qtbot, run, open_app, ui_config, sandbox):
    app = open_app(ui_config.replace(terminal_id="tb-2001"), "B")
    sign_in(qtbot, app.window)
    priced_in_gold = run(app.counter.search("a", 1))[0]
    sandbox.set_item_fields("B", priced_in_gold.id, salesPrice="NaN")
    result = run(app.counter.sync_catalog())
    assert [s.id for s in result.skipped_items] == [priced_in_gold.id] and result.count == 299
    qtbot.waitUntil(lambda: app.window.status.text().startswith("The catalog was refreshed, but 1 item with values"))
    assert priced_in_gold.id not in {i.id for i in run(app.counter.search(priced_in_gold.name, 20))}
