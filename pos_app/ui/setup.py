"""The first-run setup screen: shown instead of the app when its settings cannot be used.

Three steps on one screen: the payment service (address, store and station ids, the
key-hash) with "Check and list terminals"; this station's terminal and receipt printer;
the first manager (name, PIN twice). "Save and start" checks the key with the service
(again if it changed), stores the key-hash in the OS keyring, writes ``store.toml``, adds
the manager, and leaves ``outcome`` with the loaded config; "Try the sandbox" leaves
``outcome.sandbox``. Every problem is a sentence on the screen, with the field to fix
focused. Network calls run on the event loop; the keyring, files, PIN hashing and the
printer list run in worker threads.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from pathlib import Path

from pos_app.api.client import check_base_url
from pos_app.config import ConfigError, StoreConfig, key_hash, load_config, profile_path
from pos_app.provisioning import (
    SetupError,
    StationSetup,
    check_key,
    check_service,
    check_setup,
    provision,
    read_existing,
)
from pos_app.provisioning import terminal_label as label_of
from pos_app.staff import PIN_MAX_DIGITS, InvalidName, InvalidPin, Role, Staff, StaffError, staff_path
from pos_app.staff.pins import check_pin
from pos_app.staff.store import check_name
from pos_app.ui.qt import (
    QComboBox,
    QDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)

NOT_SET_UP = "This station is not set up yet. Fill in the store's details once; they are kept on this computer."


@dataclass(frozen=True)
class SetupOutcome:
    """What the person chose: the new settings and key-hash, or the sandbox."""

    config: StoreConfig | None = None
    secret: str | None = None
    sandbox: bool = False


def problem_sentence(problem: str, directory: Path) -> str:
    if not profile_path(directory).exists() and problem.startswith("no service address"):
        return NOT_SET_UP
    return f"The saved settings cannot be used ({problem}). Check them below and save again."


class SetupDialog(QDialog):
    def __init__(self, directory: Path, problem: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.directory = directory
        self.outcome: SetupOutcome | None = None
        self._checked: tuple[str, str] | None = None  # (address, key) the terminal list belongs to
        self._has_manager = False
        self._prepared = False
        self.setObjectName("setupDialog")
        self.setWindowTitle("pos-app — set up this station")
        title = QLabel("Set up this station")
        title.setObjectName("screenTitle")
        intro = QLabel(problem_sentence(problem, directory) if problem else NOT_SET_UP)
        intro.setWordWrap(True)
        intro.setObjectName("setupIntro")
        prefill = read_existing(directory)

        def field(name: str, hint: str, value: str = "", *, secret: bool = False) -> QLineEdit:
            edit = QLineEdit(value)
            edit.setPlaceholderText(hint)
            edit.setAccessibleName(name)
            if secret:
                edit.setEchoMode(QLineEdit.EchoMode.Password)
            return edit

        self.url = field("Service address", "https://payments.example.com", prefill.get("base_url", ""))
        self.store_id = field("Store id", "e.g. store-042", prefill.get("store_id", ""))
        self.station_id = field("Station id", "e.g. lane-1", prefill.get("station_id", ""))
        self.store_name = field("Store name", "optional, shown at the top of the screen", prefill.get("store_name", ""))
        self.key = field("Key-hash", "paste it from the service's merchant settings", secret=True)
        self.check = QPushButton("&Check and list terminals")
        self.check.setAccessibleName("Check the key and list the terminals")
        service = QGroupBox("1 · Payment service")
        form = QFormLayout(service)
        for text, widget in (("Service &address", self.url), ("Store &id", self.store_id),
                             ("Station i&d", self.station_id), ("Store &name", self.store_name),
                             ("&Key-hash", self.key)):
            form.addRow(text, widget)
        form.addRow("", self.check)
        self.key_note = QLabel("The key-hash is kept in this computer's keyring, never in a file.")
        self.key_note.setWordWrap(True)
        form.addRow("", self.key_note)

        self.terminals = QListWidget()
        self.terminals.setAccessibleName("Payment terminal")
        self.terminals.setMinimumHeight(120)
        self.terminal_hint = QLabel("Check the key first: the store's terminals are listed here.")
        self.terminal_hint.setWordWrap(True)
        self.terminal_hint.setAccessibleName("Terminal list status")
        self._wanted_terminal = prefill.get("terminal_id")
        self.printer = QComboBox()
        self.printer.setEditable(True)
        self.printer.setAccessibleName("Receipt printer")
        line = self.printer.lineEdit()
        line.setPlaceholderText("none: preview, then the print dialog")
        line.setAccessibleName("Receipt printer")
        line.setText(prefill.get("printer", ""))
        station = QGroupBox("2 · This station")
        station_form = QVBoxLayout(station)
        terminal_label = QLabel("Payment &terminal")
        terminal_label.setBuddy(self.terminals)
        printer_label = QLabel("Receipt &printer (optional)")
        printer_label.setBuddy(self.printer)
        for widget in (terminal_label, self.terminals, self.terminal_hint, printer_label, self.printer):
            station_form.addWidget(widget)

        self.manager_name = field("Manager's name", "e.g. Ann Lee")
        self.pin = field("Manager's PIN", f"4 to {PIN_MAX_DIGITS} digits", secret=True)
        self.pin_again = field("Manager's PIN again", "the same PIN", secret=True)
        for edit in (self.pin, self.pin_again):
            edit.setMaxLength(PIN_MAX_DIGITS)
        manager = QGroupBox("3 · First manager")
        manager_form = QFormLayout(manager)
        for text, widget in (("&Manager's name", self.manager_name), ("PI&N", self.pin),
                             ("PIN a&gain", self.pin_again)):
            manager_form.addRow(text, widget)
        self.manager_note = QLabel("Signs in with this PIN and adds the cashiers.")
        self.manager_note.setWordWrap(True)
        manager_form.addRow("", self.manager_note)

        self.message = QLabel("")
        self.message.setObjectName("errorText")
        self.message.setWordWrap(True)
        self.message.setAccessibleName("Setup message")
        self.sandbox = QPushButton("Try the &sandbox")
        self.sandbox.setAccessibleName("Try the sandbox: training mode, no real money")
        self.save = QPushButton("Save and &start")
        self.save.setDefault(True)
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("No account yet? The sandbox is training mode: no real money."))
        buttons.addStretch(1)
        buttons.addWidget(self.sandbox)
        buttons.addWidget(self.save)

        columns = QHBoxLayout()
        columns.addWidget(service, 1)
        right = QVBoxLayout()
        right.addWidget(station)
        right.addWidget(manager)
        columns.addLayout(right, 1)
        layout = QVBoxLayout(self)
        for widget in (title, intro):
            layout.addWidget(widget)
        layout.addLayout(columns, 1)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        order = [self.url, self.store_id, self.station_id, self.store_name, self.key, self.check, self.terminals,
                 self.printer, self.manager_name, self.pin, self.pin_again, self.save, self.sandbox]
        for first, second in zip(order, order[1:], strict=False):
            QWidget.setTabOrder(first, second)
        self._fields = {"base_url": self.url, "store_id": self.store_id, "station_id": self.station_id,
                        "store_name": self.store_name, "key": self.key, "terminal_id": self.terminals,
                        "printer": self.printer, "manager": self.manager_name, "pin": self.pin}
        self.check.clicked.connect(self._check)
        self.save.clicked.connect(self._save)
        self.sandbox.clicked.connect(self._try_sandbox)
        self.resize(1060, 700)

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        if not self._prepared:
            self._prepared = True
            self.url.setFocus()
            self._prepare()

    # steps ---------------------------------------------------------------------------

    @asyncSlot()
    async def _prepare(self) -> None:
        """The printers the print system knows, and whether a manager exists already."""
        printers, managers = await asyncio.gather(asyncio.to_thread(_printers), asyncio.to_thread(
            _managers, self.directory), return_exceptions=True)
        if isinstance(printers, list) and printers:
            typed = self.printer.currentText()
            self.printer.addItems(printers)
            self.printer.setEditText(typed)
            self.printer.lineEdit().setPlaceholderText(f"none: the print dialog; or one of {len(printers)} printers")
        if isinstance(managers, list) and managers:
            self._has_manager = True
            self.manager_note.setText(f"This station already has a manager ({', '.join(managers)}): "
                                      "leave these empty to keep the staff as they are.")

    @asyncSlot()
    async def _check(self) -> None:
        self._busy("Checking the key with the payment service…")
        try:
            await self._list_terminals(self.url.text(), self.key.text())
        except ConfigError as error:
            self._refuse(error)
        else:
            self.message.setText("")
            self.terminals.setFocus()
        finally:
            self._busy(None)

    async def _list_terminals(self, url: str, key: str) -> None:
        wanted = self._picked() or self._wanted_terminal
        self.terminals.clear()
        self._checked = None
        try:
            found = await check_service(url, key, store_id=self.store_id.text().strip() or "-",
                                        station_id=self.station_id.text().strip() or "-")
        except SetupError:
            self.terminal_hint.setText("No terminals listed: fix the problem below, then check again.")
            raise
        for terminal in found:
            item = QListWidgetItem(label_of(terminal))
            item.setData(Qt.ItemDataRole.UserRole, terminal.id)
            self.terminals.addItem(item)
            if terminal.id == wanted or len(found) == 1:
                self.terminals.setCurrentItem(item)
        self._checked = (check_base_url(url.strip()), check_key(key))
        self.terminal_hint.setText(
            "The key works, but the service lists no terminal for this store yet: you can add it later."
            if not found else f"The key works. Pick this station's terminal ({len(found)} listed), with the arrows.")

    @asyncSlot()
    async def _save(self) -> None:
        self._busy("Saving…")
        try:
            setup = check_setup(base_url=self.url.text(), store_id=self.store_id.text(),
                                station_id=self.station_id.text(), store_name=self.store_name.text(),
                                printer=self.printer.currentText())
            key = check_key(self.key.text())
            manager = self._manager()
            if self._checked != (setup.base_url, key):
                self.message.setText("Checking the key with the payment service…")
                await self._list_terminals(setup.base_url, key)
            if self.terminals.count() and not self._picked():
                raise SetupError("Pick this station's payment terminal in the list (arrows, then Tab).",
                                 field="terminal_id")
            setup = replace(setup, terminal_id=self._picked())
            self.message.setText("Saving…")
            self.outcome = await asyncio.to_thread(_provision, self.directory, setup, key, manager)
        except (ConfigError, StaffError) as error:
            self._refuse(error)
        else:
            self.accept()
        finally:
            self._busy(None)

    def _try_sandbox(self) -> None:
        self.outcome = SetupOutcome(sandbox=True)
        self.accept()

    # helpers -------------------------------------------------------------------------

    def _manager(self) -> tuple[str, str] | None:
        name, pin, again = self.manager_name.text(), self.pin.text(), self.pin_again.text()
        if self._has_manager and not (name.strip() or pin or again):
            return None
        try:
            name = check_name(name)
        except InvalidName as error:
            raise SetupError(f"The manager's name: {error}.", field="manager") from None
        try:
            check_pin(pin)
        except InvalidPin:
            self.pin.clear()
            self.pin_again.clear()
            raise SetupError(f"The manager's PIN is 4 to {PIN_MAX_DIGITS} digits (0-9).", field="pin") from None
        if pin != again:
            self.pin.clear()
            self.pin_again.clear()
            raise SetupError("The two PINs are not the same: type the PIN twice again.", field="pin")
        return name, pin

    def _picked(self) -> str | None:
        item = self.terminals.currentItem()
        return None if item is None or not item.isSelected() else str(item.data(Qt.ItemDataRole.UserRole))

    def _busy(self, text: str | None) -> None:
        for button in (self.check, self.save, self.sandbox):
            button.setEnabled(text is None)
        if text is not None:
            self.message.setText(text)

    def _refuse(self, error: Exception) -> None:
        text = str(error)
        self.message.setText(text[:1].upper() + text[1:])
        widget = self._fields.get(getattr(error, "field", None) or "")
        (widget or self.url).setFocus()


def _printers() -> list[str]:
    from pos_app.receipts import list_printers

    return list_printers()


def _managers(directory: Path) -> list[str]:
    path = staff_path(directory)
    if not path.exists():
        return []
    with Staff.open(path) as staff:
        return [m.name for m in staff.list() if m.is_manager]


def _provision(directory: Path, setup: StationSetup, key: str, manager: tuple[str, str] | None) -> SetupOutcome:
    """In a worker thread: keyring and store.toml, the manager, then the settings as the app loads them."""
    if manager is not None:
        with Staff.open(staff_path(directory)) as staff:
            if any(m.name.casefold() == manager[0].casefold() for m in staff.list()):
                raise SetupError(f"A staff member named {manager[0]} already exists: choose another name.",
                                 field="manager")
    provision(directory, setup, key)
    if manager is not None:
        with Staff.open(staff_path(directory)) as staff:
            try:
                staff.add(manager[0], Role.MANAGER, manager[1], by="setup")
            except StaffError as error:
                raise SetupError(f"The store is set up, but the manager could not be added ({error}): "
                                 "change the name or PIN and save again.", field="manager") from None
    config = load_config()
    return SetupOutcome(config=config, secret=key_hash(config))
