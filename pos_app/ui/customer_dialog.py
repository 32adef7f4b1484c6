"""F6, the customer: find the customer of the order on the service and attach them (their
name on the sale screen and the receipt), or add a new one.

By keyboard: the search field has the keyboard; what is typed is searched on the service
(name, email, phone, company or a card's last four) a moment after the last key, the
results listed with the first highlighted; ↑ ↓ move the highlight from the field, Enter
attaches the highlighted customer (Enter before the search answered searches first and
attaches only a single match). Ctrl+N opens the new-customer form (first and last name,
email, phone: Tab between them, Enter adds and attaches, Esc back to the search). Alt+D
detaches the customer attached; Esc closes. The service's answers and refusals are said in
a sentence under the list; the search and the add run on the event loop, never the screen.
Under the results, the memberships of the customer highlighted (else of the one attached):
Alt+E enrolls, Alt+P / Alt+R / Alt+C pause, resume, cancel (``pos_app.ui.memberships_panel``).
"""

from __future__ import annotations

from pos_app.api.errors import PaymentsError
from pos_app.i18n import _, ngettext
from pos_app.station.counter import Counter
from pos_app.station.customers import CustomerFound, add_customer, find_customers
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.memberships_panel import MembershipsPanel
from pos_app.ui.qt import (
    QDialog,
    QEvent,
    QFormLayout,
    QHBoxLayout,
    QKeyEvent,
    QKeySequence,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QObject,
    QPushButton,
    QShortcut,
    QStackedWidget,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)

SEARCH_DELAY_MS = 300
"""The pause after the last key before the typed text is searched on the service."""


class CustomerDialog(QDialog):
    """Find (or add) and attach the order's customer; ``attached`` is who, once accepted."""

    def __init__(self, counter: Counter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counter = counter
        self.attached: CustomerFound | None = None
        self.detached = False
        self._found: list[CustomerFound] = []
        self._searched = ""
        """The text the listed results are for."""
        self.setWindowTitle(_("Customer"))
        self.search = QLineEdit()
        self.search.setAccessibleName(_("Find a customer"))
        self.search.setPlaceholderText(_("Name, email, phone or card last four"))
        self.results = QListWidget()
        self.results.setAccessibleName(_("Customers found"))
        self.results.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the field keeps the keyboard; ↑ ↓ move this
        self.message = QLabel(_("Type to find a customer; Ctrl+N adds a new one."))
        self.message.setWordWrap(True)
        self.message.setAccessibleName(_("Customer search result"))
        self.attach_button = QPushButton(_("Attach  (Enter)"))
        self.attach_button.setDefault(True)
        self.new_button = QPushButton(_("New customer  (Ctrl+N)"))
        # TRANSLATORS: Alt+D detaches: keep the & before a D ("Quitar (&D)" when the word has none)
        self.detach_button = QPushButton(_("&Detach"))
        self.detach_button.setEnabled(counter.cart.customer is not None)
        close = QPushButton(_("Close  (Esc)"))
        for widget, description in (
                (self.search, _("Finds the service's customers as you type")),
                (self.attach_button, _("Attaches the selected customer to the sale")),
                (self.new_button, _("Adds a new customer to the service and attaches them")),
                (self.detach_button, _("Takes the customer off the sale")),
                (close, _("Closes the customer search; the sale keeps its customer"))):
            widget.setAccessibleDescription(description)
        find_page = QWidget()
        find_layout = QVBoxLayout(find_page)
        find_layout.setContentsMargins(0, 0, 0, 0)
        if counter.cart.customer is not None:
            find_layout.addWidget(QLabel(_("Attached now: {name}").format(name=counter.cart.customer.name)))
        find_layout.addWidget(self.search)
        find_layout.addWidget(self.results, 2)
        find_layout.addWidget(self.message)
        buttons = QHBoxLayout()
        for button in (self.attach_button, self.new_button, self.detach_button, close):
            buttons.addWidget(button)
        find_layout.addLayout(buttons)
        self.memberships = MembershipsPanel(counter)
        find_layout.addWidget(self.memberships, 1)
        self.results.currentRowChanged.connect(self._highlighted)
        self.form = NewCustomerForm()
        self.pages = QStackedWidget()
        self.pages.addWidget(find_page)
        self.pages.addWidget(self.form)
        QVBoxLayout(self).addWidget(self.pages)
        self.resize(860, 680)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self._search_typed)
        self.search.textEdited.connect(lambda text: self._timer.start())
        self.search.installEventFilter(self)
        self.attach_button.clicked.connect(self._attach)
        self.new_button.clicked.connect(self._new)
        self.detach_button.clicked.connect(self._detach)
        close.clicked.connect(self.reject)
        self.form.add_button.clicked.connect(self._add)
        self.form.back_button.clicked.connect(self._back)
        QShortcut(QKeySequence("Ctrl+N"), self, activated=self._new)
        enter_presses_focused_button(self)
        self.search.setFocus()
        QWidget.setTabOrder(self.search, self.memberships.list)  # Tab: to the memberships, to pick one
        self._highlighted(-1)

    def _highlighted(self, row: int) -> None:
        """The memberships panel follows the highlight (nobody highlighted: the attached customer)."""
        chosen = self._found[row].customer if 0 <= row < len(self._found) else self.counter.cart.customer
        self.memberships.show_customer(chosen)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        """↑ ↓ in the search field move the highlight in the results; Alt+D there detaches
        (the button's mnemonic, answered by the field itself whatever window is active)."""
        if watched is self.search and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if (event.key() == Qt.Key.Key_D and event.modifiers() == Qt.KeyboardModifier.AltModifier
                    and self.detach_button.isEnabled()):
                self.detach_button.click()
                return True
            step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1}.get(Qt.Key(event.key()))
            if step is not None and self.results.count():
                row = min(max(self.results.currentRow() + step, 0), self.results.count() - 1)
                self.results.setCurrentRow(row)
                return True
        return super().eventFilter(watched, event)

    def reject(self) -> None:
        """Esc on the new-customer form goes back to the search; on the search, it closes."""
        if self.pages.currentWidget() is self.form:
            self._back()
            return
        super().reject()

    # finding ---------------------------------------------------------------------------

    @asyncSlot()
    async def _search_typed(self) -> None:
        await self._search()

    async def _search(self) -> bool:
        """Search what the field holds; whether the results are now for it."""
        text = " ".join(self.search.text().split())
        if text == self._searched:
            return True
        self._timer.stop()
        self.message.setText(_("Searching…"))
        try:
            found = await find_customers(self.counter.station.client, text)
        except ValueError as error:
            self._show([], text, f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return False
        except PaymentsError as error:
            self._show([], "", _("The service could not be searched: {error}").format(error=error))
            return False
        if " ".join(self.search.text().split()) != text:  # typed on meanwhile: that search follows
            return False
        count = len(found)
        said = (_("Nobody found for “{text}”: Ctrl+N adds a new customer.").format(text=text) if not found else
                ngettext("{count} found: Enter attaches.", "{count} found: ↑ ↓ pick, Enter attaches.",
                         count).format(count=count))
        self._show(found, text, said)
        return True

    def _show(self, found: list[CustomerFound], text: str, said: str) -> None:
        self._found, self._searched = found, text
        self.results.clear()
        for each in found:
            contact = " · ".join(part for part in (each.customer.email, each.customer.phone, each.card) if part)
            QListWidgetItem(f"{each.customer.name}    {contact}", self.results)
        if found:
            self.results.setCurrentRow(0)
        self.message.setText(said)

    @asyncSlot()
    async def _attach(self) -> None:
        current = " ".join(self.search.text().split()) == self._searched
        if not current and (not await self._search() or len(self._found) != 1):
            return  # the list is shown: the cashier picks
        row = self.results.currentRow()
        if not 0 <= row < len(self._found):
            self.message.setText(_("Nobody is highlighted: type a name, or Ctrl+N for a new customer."))
            return
        await self._attach_found(self._found[row])

    async def _attach_found(self, chosen: CustomerFound) -> None:
        await self.counter.attach_customer(chosen.customer)
        self.attached = chosen
        self.accept()

    @asyncSlot()
    async def _detach(self) -> None:
        await self.counter.attach_customer(None)
        self.detached = True
        self.accept()

    # adding ----------------------------------------------------------------------------

    def _new(self) -> None:
        self.pages.setCurrentWidget(self.form)
        self._enter_presses(self.form.add_button)
        self.form.first.setFocus()

    def _back(self) -> None:
        self.pages.setCurrentIndex(0)
        self._enter_presses(self.attach_button)
        self.search.setFocus()

    def _enter_presses(self, button: QPushButton) -> None:
        """Enter in a field of the page shown presses ``button``."""
        self.attach_button.setDefault(button is self.attach_button)
        self.form.add_button.setDefault(button is self.form.add_button)

    @asyncSlot()
    async def _add(self) -> None:
        form = self.form
        form.add_button.setEnabled(False)  # a second Enter adds nobody twice
        form.problem.setText(_("Adding the customer…"))
        try:
            added = await add_customer(self.counter.station.client, form.first.text(), form.last.text(),
                                       form.email.text(), form.phone.text())
        except ValueError as error:
            form.refuse(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return
        except PaymentsError as error:
            form.refuse(_("The service could not be reached: {error}. Nothing was added; try again.").format(
                error=error))
            return
        finally:
            form.add_button.setEnabled(True)
        await self._attach_found(added)


class NewCustomerForm(QWidget):
    """First and last name, email (required) and phone of a new customer."""

    def __init__(self) -> None:
        super().__init__()
        self.first = QLineEdit()
        self.first.setAccessibleName(_("First name"))
        self.last = QLineEdit()
        self.last.setAccessibleName(_("Last name"))
        self.email = QLineEdit()
        self.email.setAccessibleName(_("Email"))
        self.phone = QLineEdit()
        self.phone.setAccessibleName(_("Phone (optional)"))
        self.phone.setPlaceholderText(_("e.g. (555) 123-4567"))
        self.problem = QLabel(_("First name, last name and email are needed; the phone may stay empty."))
        self.problem.setWordWrap(True)
        self.problem.setAccessibleName(_("New customer result"))
        self.add_button = QPushButton(_("Add and attach  (Enter)"))
        self.back_button = QPushButton(_("Back  (Esc)"))
        for widget, description in (
                (self.first, _("The new customer's first name (required)")),
                (self.last, _("The new customer's last name (required)")),
                (self.email, _("The new customer's email address (required)")),
                (self.phone, _("The new customer's phone number; may stay empty")),
                (self.add_button, _("Adds the customer to the service and attaches them to the sale")),
                (self.back_button, _("Back to the search; nobody is added"))):
            widget.setAccessibleDescription(description)
        form = QFormLayout()
        form.addRow(_("First name"), self.first)
        form.addRow(_("Last name"), self.last)
        form.addRow(_("Email"), self.email)
        form.addRow(_("Phone"), self.phone)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.back_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel(_("New customer")))
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addStretch(1)
        layout.addLayout(buttons)

    def refuse(self, sentence: str) -> None:
        self.problem.setText(sentence)
        self.first.setFocus()
