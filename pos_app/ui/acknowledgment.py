"""The merchant's surcharge acknowledgment, shown to the customer before a card payment.

Nothing is sent to the terminal before it is accepted: Accept is the default button
(Enter), Esc cancels. With a second screen attached (the customer's), a window filling
it shows the customer the total and the text while the cashier's dialog waits; with one
screen the dialog alone is shown (turned to the customer).
"""

from __future__ import annotations

from pos_app.i18n import _, in_store_language
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
    QDialog,
    QDialogButtonBox,
    QFont,
    QGuiApplication,
    QLabel,
    Qt,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)


class AcknowledgmentDialog(QDialog):
    def __init__(self, paragraphs: list[str], total: str, parent: QWidget | None = None, *, quote: str = "",
                 customer: str = "") -> None:
        """``quote``: the surcharge quoted for the card being charged (a card on file), shown
        above the notice (and first on the customer's screen); ``customer``: the name of the
        customer attached to the sale (F6), greeted on their screen."""
        super().__init__(parent)
        self.setWindowTitle(_("Card surcharge: customer's acknowledgment"))
        self.setObjectName("acknowledgment")
        heading = QLabel(_("Total {amount} by card").format(amount=total))
        heading.setObjectName("dialogHeading")
        self.quote = QLabel(quote)
        self.quote.setObjectName("surchargeQuote")
        self.quote.setWordWrap(True)
        self.quote.setAccessibleName(_("Surcharge for this card"))
        self.quote.setVisible(bool(quote))
        text = QTextBrowser()
        text.setAccessibleName(_("Surcharge acknowledgment"))
        text.setHtml("".join(f"<p>{_escape(p)}</p>" for p in paragraphs))
        buttons = QDialogButtonBox()
        self.accept_button = buttons.addButton(_("Customer accepts  (Enter)"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.accept_button.setAccessibleDescription(_("The customer accepts the surcharge: the card payment goes on"))
        cancel = buttons.addButton(_("Cancel  (Esc)"), QDialogButtonBox.ButtonRole.RejectRole)
        cancel.setAccessibleDescription(_("The customer does not accept: nothing is charged"))
        self.accept_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.quote)
        layout.addWidget(text, 1)
        layout.addWidget(buttons)
        self.resize(640, 480 if quote else 420)
        shown = [quote, *paragraphs] if quote else paragraphs
        self.customer_display = CustomerDisplay.on_second_screen(shown, total, parent, customer=customer)
        self.finished.connect(self._close_display)
        enter_presses_focused_button(self)

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        self.accept_button.setFocus()

    def _close_display(self) -> None:
        if self.customer_display is not None:
            self.customer_display.close()


class CustomerDisplay(QWidget):
    """A window filling the customer's screen: the total to pay and the text to accept (or,
    with another ``caption`` and ``prompt``, the change due after a cash payment), and the
    attached customer's name (``customer``, F6) above them.

    It never takes the keyboard focus (the cashier's dialog keeps Enter and Esc) and has
    no frame; it closes with the dialog."""

    def __init__(self, paragraphs: list[str], total: str, *, caption: str | None = None,
                 prompt: str | None = None, customer: str = "") -> None:
        """``caption`` and ``prompt``: by default, the card surcharge's ("Total to pay by card")."""
        super().__init__()
        caption = _("Total to pay by card") if caption is None else caption
        prompt = _("Please tell the cashier if you accept.") if prompt is None else prompt
        self.setObjectName("customerDisplay")
        self.setWindowTitle(_("Customer display"))
        self.setWindowFlags(Qt.WindowType.FramelessWindowHint | Qt.WindowType.WindowDoesNotAcceptFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        caption_label = QLabel(caption)
        caption_label.setObjectName("customerCaption")
        self.total = QLabel(total)
        self.total.setObjectName("customerTotal")
        self.total.setAccessibleName(caption)
        self.text = QLabel("\n\n".join(paragraphs))
        self.text.setObjectName("customerText")
        self.text.setWordWrap(True)
        prompt_label = QLabel(prompt)
        prompt_label.setObjectName("customerPrompt")
        self.customer = QLabel(customer)
        self.customer.setObjectName("customerName")
        self.customer.setAccessibleName(_("Customer"))
        self.customer.setVisible(bool(customer))
        for label, pixels, bold in ((self.customer, 32, True), (caption_label, 28, False), (self.total, 72, True),
                                    (self.text, 24, False), (prompt_label, 28, True)):
            font = QFont(label.font())
            font.setPixelSize(pixels)
            font.setBold(bold)
            label.setFont(font)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 40, 48, 40)
        layout.addWidget(self.customer)
        layout.addWidget(caption_label)
        layout.addWidget(self.total)
        layout.addSpacing(24)
        layout.addWidget(self.text, 1, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(prompt_label)

    @classmethod
    def on_second_screen(cls, paragraphs: list[str], total: str, cashier: QWidget | None = None,
                         **words: str) -> CustomerDisplay | None:
        """Shown on a screen other than the cashier's (``cashier``'s window, else the
        primary one), filling it; None with one screen. ``words``: ``caption``, ``prompt``,
        ``customer``."""
        screen = customer_screen(cashier)
        if screen is None:
            return None
        with in_store_language():  # the customer reads the store's language, whoever is signed in
            display = cls(paragraphs, total, **words)
        display.setScreen(screen)
        display.setGeometry(screen.availableGeometry())
        display.show()
        return display


def customer_screen(cashier: QWidget | None = None):  # a QScreen or None
    """The first screen (``QScreen``) that is not the cashier's; None when there is only one."""
    own = cashier.window().screen() if cashier is not None else QGuiApplication.primaryScreen()
    others = [screen for screen in QGuiApplication.screens() if screen is not own]
    return others[0] if others else None


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
