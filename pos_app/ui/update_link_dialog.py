"""Ctrl+U, the update link: the customer attached to the sale gets a secure link to add or
update their card, by email or by text message to the contact their vault holds. The
contacts are a list (↑ ↓ pick, Enter sends, Esc closes); what is sent and said is
``pos_app.station.update_link``'s. The status line then says the link is *queued*: the
service sends it later and never tells whether it arrived."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pos_app.api.errors import PaymentsError
from pos_app.i18n import _
from pos_app.station.update_link import NO_CUSTOMER, LinkTarget, link_target, send_update_link
from pos_app.ui.dialogs import enter_presses_focused_button, shown
from pos_app.ui.qt import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from pos_app.api.client import PaymentsClient
    from pos_app.station.counter import Counter


class UpdateLinkDialog(QDialog):
    """Where the link goes: one of the vault's contacts; ``said`` is the status line's
    sentence once the service queued it."""

    def __init__(self, client: PaymentsClient, target: LinkTarget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.client = client
        self.target = target
        self.said: str | None = None
        self.setWindowTitle(_("Update link"))
        intro = QLabel((_("Send {name} a secure link to update the card on file. Where to?") if target.has_card else
                        _("Send {name} a secure link to add a card (none is on file). Where to?")).format(
            name=target.customer.name))
        intro.setWordWrap(True)
        self.contacts = QListWidget()
        self.contacts.setAccessibleName(_("Send the link to"))
        for contact in target.contacts:
            QListWidgetItem(contact.words, self.contacts)
        self.contacts.setCurrentRow(0)
        self.message = QLabel(_("↑ ↓ pick, Enter sends. The link goes only to the contact picked."))
        self.message.setWordWrap(True)
        self.message.setAccessibleName(_("Update link result"))
        self.send_button = QPushButton(_("Send link  (Enter)"))
        self.send_button.setDefault(True)
        cancel = QPushButton(_("Cancel  (Esc)"))
        self.send_button.setAccessibleDescription(_("Sends the secure link to the contact picked"))
        cancel.setAccessibleDescription(_("Closes without sending a link"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.contacts)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.contacts.setMaximumHeight(self.contacts.sizeHintForRow(0) * 3 + 8)
        self.resize(480, self.sizeHint().height())
        self.send_button.clicked.connect(self._send)
        cancel.clicked.connect(self.reject)
        enter_presses_focused_button(self)
        self.contacts.setFocus()

    @asyncSlot()
    async def _send(self) -> None:
        row = self.contacts.currentRow()
        if not 0 <= row < len(self.target.contacts):
            self.message.setText(_("Pick where the link goes (↑ ↓), then Enter."))
            return
        self.send_button.setEnabled(False)  # a second Enter sends no second link
        self.message.setText(_("Sending…"))
        try:
            self.said = await send_update_link(self.client, self.target, self.target.contacts[row])
        except ValueError as error:
            self.message.setText(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return
        except PaymentsError as error:
            self.message.setText(_("The service did not answer ({error}): the link may or may not be queued. "
                                   "Ask the customer before sending it again.").format(error=error))
            return
        finally:
            self.send_button.setEnabled(True)
        self.accept()


async def ask_update_link(counter: Counter, parent: QWidget, say: Callable[[str], None]) -> None:
    """Ctrl+U from the sale screen: the attached customer's contacts read, one picked, the
    link sent; ``say`` puts each sentence on the status line."""
    customer = counter.cart.customer
    if customer is None:
        say(_(NO_CUSTOMER))
        return
    say(_("Reading {name}'s contacts…").format(name=customer.name))
    client = counter.station.client
    try:
        target = await link_target(client, customer)
    except ValueError as error:
        say(f"{str(error)[:1].upper()}{str(error)[1:]}.")
        return
    except PaymentsError as error:
        say(_("The service could not be reached ({error}): no link was sent.").format(error=error))
        return
    say("")
    dialog = UpdateLinkDialog(client, target, parent)
    if await shown(dialog) == QDialog.DialogCode.Accepted and dialog.said:
        say(dialog.said)
