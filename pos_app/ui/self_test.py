"""The Qt half of ``pos-app --self-test`` (see ``pos_app.self_test``): the real window.

On the sandbox given, with the data folder given: the counter and the station opened as
the app opens them (``open_counter``, ``open_station``: training mode, demo staff), the
main window shown offscreen with both attached, the catalog synced, the demo cashier's PIN typed into
the sign-in screen, an item scanned into the sale screen, the cart paid through the
terminal layer (a type S terminal: pay, then polls until approved), the receipt rendered
with fpdf2 and read back with QtPdf (its total, TRAINING and the payment id must be in
its text), then the window closed and everything shut.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pos_app.i18n import _, in_store_language
from pos_app.journal import Outcome
from pos_app.receipts import TRAINING_BANNER, render_receipt
from pos_app.self_test_report import Report, SelfTestFailed, check_pdf
from pos_app.station.counter import Counter
from pos_app.station.receipt import receipt_of
from pos_app.station.station import Station
from pos_app.ui.app import StartProblem, open_counter, open_station, training_config
from pos_app.ui.main_window import MainWindow
from pos_app.ui.qt import QApplication, QBuffer, QByteArray, QIODevice, QPdfDocument, run_async

DEMO_CASHIER_PIN = "1111"
STEP_TIMEOUT_S = 20.0


def run_sale(report: Report, base_url: str, key: str, directory: Path, *, deadline_s: float) -> None:
    """Every Qt step; raises ``SelfTestFailed`` (or the error met) on the first failure."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("pos-app")
    app.setQuitOnLastWindowClosed(False)
    report.passed("qt", _("{platform} platform").format(platform=QApplication.platformName()))

    async def bounded() -> None:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(thread_name_prefix="worker"))
        try:
            await asyncio.wait_for(_sale(report, base_url, key, directory), deadline_s)
        except TimeoutError:
            raise SelfTestFailed(
                _("the self-test took longer than {seconds:.0f} s").format(seconds=deadline_s)) from None

    run_async(bounded())


async def until(condition: Callable[[], bool], what: str, timeout: float = STEP_TIMEOUT_S) -> None:
    """Wait (Qt events keep flowing) until ``condition`` holds; ``SelfTestFailed`` naming
    ``what`` after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise SelfTestFailed(_("{what} did not happen within {seconds:.0f} s").format(what=what, seconds=timeout))
        await asyncio.sleep(0.02)


async def _sale(report: Report, base_url: str, key: str, directory: Path) -> None:
    config = training_config(base_url).replace(data_dir=directory)
    report.begin("station")
    window = MainWindow(training=True)
    try:
        try:
            counter = await open_counter(window, config, training=True)
        except StartProblem as problem:
            raise SelfTestFailed(str(problem)) from None
        try:
            try:
                station = await open_station(config, key, counter, training=True)
            except StartProblem as problem:
                raise SelfTestFailed(str(problem)) from None
            try:
                await _on_screen(report, window, station, counter)
            finally:
                await station.aclose()
        finally:
            await counter.aclose()
    finally:
        window.close()  # already closed after a sale
    report.passed("closed", _("window closed, journal and client shut"))


async def _on_screen(report: Report, window: MainWindow, station: Station, counter: Counter) -> None:
    window.attach_station(station)
    if await counter.sync_catalog() is None:
        raise SelfTestFailed(_("the catalog could not be synced from the sandbox"))
    report.passed("station", _("journal open, catalog synced from {address}").format(
        address=station.config.base_url))

    report.begin("sale screen")  # not for people: a step's name, a key of the JSON summary
    try:
        await until(lambda: window.windowHandle() is not None and window.windowHandle().isExposed(),
                    _("the main window showing"))
        window.sign_in.pin.setText(DEMO_CASHIER_PIN)
        window.sign_in.pin.returnPressed.emit()
        await until(lambda: window.stack.currentWidget() is window.sale, _("sign-in with the demo cashier's PIN"))
        report.passed("sale screen shown", _("signed in as {name}").format(  # not for people: the step's name
            name=counter.cashier.name if counter.cashier else "?"))

        report.begin("scan")
        items = [item for item in await counter.search("a", 40) if item.sku and item.price_cents >= 100]
        if not items:
            raise SelfTestFailed(_("the synced catalog has no item to sell"))
        window.sale.scan.setText(items[0].sku)
        window.sale.scan.returnPressed.emit()
        await until(lambda: counter.cart.units == 1, _("scanning {sku} into the cart").format(sku=items[0].sku))
        total = counter.totals().total
        money = counter.money(total)
        await until(lambda: money in window.sale.total.text(),
                    _("the sale screen showing the total {amount}").format(amount=money))
        report.passed("scan", _("{item}: total {amount}").format(item=items[0].name, amount=money))

        await _pay_and_print(report, station, counter)
    finally:
        window.close()
    await until(window.closed.is_set, _("the window closing"))


async def _pay_and_print(report: Report, station: Station, counter: Counter) -> None:
    report.begin("sale")
    result = await counter.pay()
    if result.outcome is not Outcome.APPROVED:
        raise SelfTestFailed(_("the sandbox sale was not approved ({outcome}: {message})").format(
            outcome=result.outcome.value, message=result.message))
    paid = counter.last_paid
    if paid is None or paid.result is not result:
        raise SelfTestFailed(_("the approved sale did not settle the cart"))
    report.facts["sale"] = {"attempt_id": result.attempt_id, "amount": result.amount,
                            "card": f"{result.card_brand} {result.card_last4}"}
    report.passed("sale", _("approved on {terminal}: {card}").format(
        terminal=result.terminal_id, card=f"{result.card_brand} {result.card_last4}"))

    report.begin("receipt")
    data = await receipt_of(paid, station.config, station.client, training=True)
    pdf = await asyncio.to_thread(render_receipt, data)
    pages = check_pdf(pdf)
    text = pdf_text(pdf)
    total = data.money(data.total_cents)
    with in_store_language():
        banner = _(TRAINING_BANNER)  # the receipt's own words: the store's language
    for expected in (total, banner, *(tender.payment_id for tender in data.tenders if tender.payment_id)):
        if expected not in text:
            raise SelfTestFailed(_("the receipt's text lacks {text}").format(text=repr(expected)))
    report.facts["receipt"] = {"bytes": len(pdf), "pages": pages, "total": total}
    report.passed("receipt", _("{size} bytes, {pages} page, total {amount} read back").format(
        size=len(pdf), pages=pages, amount=total))


def pdf_text(pdf: bytes) -> str:
    """The text of every page, as QtPdf (the preview's reader) extracts it."""
    buffer = QBuffer()
    buffer.setData(QByteArray(pdf))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    document = QPdfDocument()
    document.load(buffer)
    if document.status() is not QPdfDocument.Status.Ready:
        raise SelfTestFailed(_("QtPdf cannot read the receipt ({error})").format(error=document.error().name))
    return "\n".join(document.getAllText(page).text() for page in range(document.pageCount()))
