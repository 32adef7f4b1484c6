"""The merchant's surcharge acknowledgment, shown to the customer before a card payment.

Nothing is sent to the terminal before it is accepted: Accept is the default button
(Enter), Esc cancels. With a second screen attached, the customer display mirrors the
text and the running total while the dialog waits.
"""

from __future__ import annotations

from pos_app.ui.qt import (
    QDialog,
    QDialogButtonBox,
    QGuiApplication,
    QLabel,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)


class AcknowledgmentDialog(QDialog):
    def __init__(self, paragraphs: list[str], total: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Card surcharge: customer's acknowledgment")
        self.setObjectName("acknowledgment")
        heading = QLabel(f"Total {total} by card")
        heading.setObjectName("dialogHeading")
        text = QTextBrowser()
        text.setAccessibleName("Surcharge acknowledgment")
        text.setHtml("".join(f"<p>{_escape(p)}</p>" for p in paragraphs))
        buttons = QDialogButtonBox()
        self.accept_button = buttons.addButton("Customer accepts  (Enter)", QDialogButtonBox.ButtonRole.AcceptRole)
        cancel = buttons.addButton("Cancel  (Esc)", QDialogButtonBox.ButtonRole.RejectRole)
        self.accept_button.setDefault(True)
        self.accept_button.setAutoDefault(True)
        cancel.setAutoDefault(False)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(text, 1)
        layout.addWidget(buttons)
        self.resize(640, 420)
        self.customer_display = CustomerDisplay.on_second_screen(paragraphs, total)
        self.finished.connect(self._close_display)

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        self.accept_button.setFocus()

    def _close_display(self) -> None:
        if self.customer_display is not None:
            self.customer_display.close()


class CustomerDisplay(QWidget):
    """A window on the customer's screen: the running total and the text to accept."""

    def __init__(self, paragraphs: list[str], total: str) -> None:
        super().__init__()
        self.setWindowTitle("Customer display")
        amount = QLabel(total)
        amount.setObjectName("grandTotal")
        text = QLabel("\n\n".join(paragraphs))
        text.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(amount)
        layout.addWidget(text, 1)

    @classmethod
    def on_second_screen(cls, paragraphs: list[str], total: str) -> CustomerDisplay | None:
        screens = QGuiApplication.screens()
        if len(screens) < 2:
            return None
        display = cls(paragraphs, total)
        display.setGeometry(screens[1].availableGeometry())
        display.show()
        return display


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
