"""Driving the app's window as a cashier does: keys, scans, and the dialogs that open."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pos_app.ui.qt import QApplication, Qt


def modal(qtbot: Any, kind: type, timeout: int = 10_000) -> Any:
    """The open dialog of ``kind``, once it is there."""
    found: list[Any] = []

    def present() -> bool:
        widget = QApplication.activeModalWidget()
        if isinstance(widget, kind):
            found.append(widget)
            return True
        return False

    qtbot.waitUntil(present, timeout=timeout)
    return found[-1]


def sign_in(qtbot: Any, window: Any, pin: str = "1111") -> None:
    field = window.sign_in.pin
    qtbot.keyClicks(field, pin)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.sale, timeout=10_000)


def scan(qtbot: Any, window: Any, code: str) -> None:
    """What a keyboard-wedge scanner does: types the code, then Enter."""
    before = window.counter.cart.units
    field = window.sale.scan
    qtbot.keyClicks(field, code)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.counter.cart.units > before, timeout=10_000)


def two_codes(run: Any, app: Any) -> list[str]:
    """Two barcodes of synced catalog items over $1 (a sale of them is approved)."""
    items = [i for i in run(app.counter.search("a", 40)) if i.sku and i.price_cents > 100]
    return [items[0].sku, items[1].sku]


def pay(qtbot: Any, window: Any, key: Any = Qt.Key.Key_F12) -> Any:
    """F12 (or ``key``), Enter on the surcharge notice; the payment dialog once it has a result."""
    from pos_app.ui.acknowledgment import AcknowledgmentDialog
    from pos_app.ui.payment_dialog import PaymentDialog

    qtbot.keyClick(window, key)
    ack = modal(qtbot, AcknowledgmentDialog)
    assert ack.accept_button.isDefault()
    qtbot.keyClick(ack, Qt.Key.Key_Return)
    dialog = modal(qtbot, PaymentDialog)
    qtbot.waitUntil(lambda: dialog.result is not None, timeout=20_000)
    return dialog


def close_preview(qtbot: Any) -> None:
    """The receipt preview shown after an approval (no printer set), closed by Esc."""
    from pos_app.ui.receipt_view import ReceiptPreview

    preview = modal(qtbot, ReceiptPreview)
    assert preview.document.pageCount() >= 1
    qtbot.keyClick(preview, Qt.Key.Key_Escape)


def main_window(qtbot: Any) -> Any:
    """The app's window once it is shown and its payment side is open (the real start)."""
    from pos_app.ui.main_window import MainWindow

    found: list[Any] = []

    def visible() -> bool:  # and started: its payment side open
        found[:] = [w for w in QApplication.topLevelWidgets()
                    if isinstance(w, MainWindow) and w.isVisible() and w.payments_ready]
        return bool(found)

    qtbot.waitUntil(visible, timeout=20_000)
    return found[0]


def open_back_office(qtbot: Any, window: Any) -> Any:
    """F9 on the sale screen: the back office, once the whole day's payments are read (not
    only the first page a cold F9 shows at once)."""
    from pos_app.ui.back_office import BackOfficeDialog

    qtbot.keyClick(window, Qt.Key.Key_F9)
    office = modal(qtbot, BackOfficeDialog)
    qtbot.waitUntil(lambda: office.payments.day_read and not office.payments.history.first_page, timeout=10_000)
    return office


def pick(qtbot: Any, office: Any, attempt_id: str) -> Any:
    """The back office's row of ``attempt_id``, selected."""
    qtbot.waitUntil(lambda: office.payments.select(attempt_id), timeout=10_000)
    return office.payments.selected()


def approve(qtbot: Any, pin: str, reason: str | None, amount: str | None = None) -> Any:
    """The manager's approval dialog answered: PIN, reason (and amount), Enter."""
    from pos_app.ui.manager_approval import ManagerApproval

    dialog = modal(qtbot, ManagerApproval)
    if amount is not None:
        dialog.amount.setText(amount)
    qtbot.keyClicks(dialog.pin, pin)
    if reason is not None:
        qtbot.keyClicks(dialog.reason, reason)
    qtbot.keyClick(dialog.reason if reason is not None else dialog.pin, Qt.Key.Key_Return)
    return dialog


def slip_previewed(qtbot: Any, kind: str) -> Any:
    """No printer is set: the slip of the approved void or refund is previewed; Esc closes it."""
    from pos_app.ui.receipt_view import ReceiptPreview

    preview = modal(qtbot, ReceiptPreview)
    assert preview.windowTitle() == f"{kind} slip" and preview.document.pageCount() == 1
    qtbot.keyClick(preview, Qt.Key.Key_Escape)
    return preview


def audit(run: Any, app: Any) -> Any:
    """The newest five rows of the audit trail."""
    return run(app.counter.disk(app.counter.staff.audit, 5))


@contextmanager
def x_server(*screens: str) -> Iterator[dict[str, str]]:
    """A real X server (Xvfb, one X screen per ``WxHxD`` of ``screens``) with openbox on its
    first screen; yields the environment of a Qt app on it (xcb, no ``POS_*`` settings).
    Skips without Xvfb or openbox (fails under CI=true)."""
    from tests.system import require_tool

    require_tool("Xvfb", "xvfb")
    require_tool("openbox", "openbox")
    layout = [arg for number, size in enumerate(screens or ("1280x800x24",)) for arg in ("-screen", str(number), size)]
    server = subprocess.Popen(["Xvfb", "-displayfd", "1", *layout, "-nolisten", "tcp"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    processes = [server]
    try:
        assert server.stdout is not None
        env = {k: v for k, v in os.environ.items() if not k.startswith(("POS_", "QT_QPA"))}
        env.update(DISPLAY=":" + server.stdout.readline().strip(), QT_QPA_PLATFORM="xcb")
        processes.append(subprocess.Popen(["openbox"], env=env, stderr=subprocess.DEVNULL))
        yield env
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()


class StallProbe:
    """A 5 ms Qt timer that records the gaps between its ticks: the longest gap is the
    longest time the Qt event loop (the screen) was stalled while it ran."""

    def __init__(self) -> None:
        from pos_app.ui.qt import QTimer

        self.gaps: list[float] = []
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(5)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(now - self._last)
        self._last = now

    def start(self) -> StallProbe:
        self._last = time.perf_counter()
        self._timer.start()
        return self

    def stop(self) -> float:
        """Stop; the longest stall in seconds (the first gap, before the loop ran, excluded)."""
        self._timer.stop()
        return max(self.gaps[1:], default=0.0)


SCREENS = Path(__file__).resolve().parent.parent.parent / "build" / "screens"


def save(widget: Any, name: str) -> Path:
    """``widget`` rendered to ``build/screens/<name>.png`` (a test artifact), checked not blank."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    image = widget.grab().toImage()
    assert image.save(str(path)), path
    colors = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colors) > 4, f"{name} renders blank"
    return path


def fits(widget: Any, screen: tuple[int, int] = (1024, 768)) -> None:
    """``widget`` (a window) and the least its layout needs fit ``screen`` with a title bar
    (38 pixels)."""
    width, height = screen[0], screen[1] - 38
    needs = widget.minimumSizeHint()
    assert widget.width() <= width and widget.height() <= height, (widget.width(), widget.height())
    assert needs.width() <= width and needs.height() <= height, (needs.width(), needs.height())


def clipped(dialog: Any, screen: tuple[int, int] = (1024, 768)) -> list[str]:
    """What of ``dialog`` (or the main window) a person cannot read whole: larger than the
    screen, a field or button smaller than it needs, a wrapped text shorter than its lines,
    a widget reaching past its edge (but for the content of a scroll area: it scrolls)."""
    from pos_app.ui.qt import QComboBox, QLabel, QLineEdit, QPushButton, QScrollArea

    scrolled = [area.widget() for area in dialog.findChildren(QScrollArea) if area.widget() is not None]

    found = []
    size = dialog.frameGeometry().size()
    if size.width() > screen[0] or size.height() > screen[1] - 60:
        found.append(f"{size.width()}×{size.height()} does not fit a {screen[0]}×{screen[1]} screen")
    for widget in dialog.findChildren(QLabel) + dialog.findChildren(QPushButton) + dialog.findChildren(QLineEdit) \
            + dialog.findChildren(QComboBox):
        if not widget.isVisibleTo(dialog) or widget.window() is not dialog or widget.parent().inherits("QComboBox"):
            continue
        what = f"{type(widget).__name__} “{(getattr(widget, 'text', lambda: '')() or widget.accessibleName())[:40]}”"
        if isinstance(widget, QLabel) and widget.wordWrap() and widget.text():
            needed = widget.heightForWidth(widget.width())
            if widget.height() < needed:
                found.append(f"{what} is {widget.height()} px high, its text needs {needed}")
        else:
            hint = widget.minimumSizeHint()
            # a style sheet's min-height gives a field or key 2 pixels less than Qt's hint asks for: not a cut
            if widget.width() < hint.width() or widget.height() + 2 < hint.height():
                found.append(f"{what} is {widget.width()}×{widget.height()}, needs {hint.width()}×{hint.height()}")
        in_scroll_area = any(content.isAncestorOf(widget) for content in scrolled)
        if not in_scroll_area and not dialog.rect().contains(
                widget.rect().translated(widget.mapTo(dialog, widget.rect().topLeft()))):
            found.append(f"{what} reaches past the dialog's edge")
    return found
