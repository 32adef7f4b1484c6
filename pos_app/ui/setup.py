"""The first-run setup screen, shown when the app's settings are missing or cannot be used.

The payment service (address, ids, key-hash; "Check and list terminals"), this station's
terminal and printer, the first manager. "Save and start" (Enter) checks the key again if
it changed, then keyring, ``store.toml`` and manager (``pos_app.provisioning``) and leaves
``outcome`` with the loaded config; "Try the sandbox" leaves ``outcome.sandbox``. Every
problem is a sentence on the screen with its field focused, and what was typed stays.

Where the key-hash lives (``provisioning.KeySource``) is said beside its field: with
``POS_KEY_HASH`` set, that is the key (the field is read-only, nothing is stored); on a
computer without a keyring, the key typed serves this session only and the screen says
exactly how to set ``POS_KEY_HASH`` for the next start. The service is asked on the event
loop; keyring, files, PIN hashing and the printer list run in worker threads.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path

from pos_app import provisioning
from pos_app.api.address import check_base_url
from pos_app.config import StoreConfig, key_hash, load_config
from pos_app.i18n import N_, _, ngettext
from pos_app.profile import ConfigError, ConfigProblem, profile_path
from pos_app.provisioning import KeySource, NoKeyring, SetupError, StationSetup
from pos_app.receipts import list_printers
from pos_app.staff import PIN_MAX_DIGITS, StaffError
from pos_app.ui.qt import (
    QComboBox,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    Qt,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)

log = logging.getLogger(__name__)
WIDTH = 1000
"""The screen's width: a 1024×768 screen with the window's frame."""
MIN_HEIGHT = 680
LANE_HEIGHT = 768
"""A lane PC's screen height (1024×768): the window starts no taller than it allows."""
FRAME = 66
"""Pixels of a screen's height the window's frame and a taskbar take."""
FORM_MARGINS = 40
"""The dialog's margins around the form, and a scroll bar."""
NOT_SET_UP = N_("This station is not set up yet: fill in what your payment service provider gave you, once. "
                 "No account yet? Try the sandbox: training mode, no real money.")
STYLE = ("QLabel#sectionTitle { font-size: 20px; font-weight: bold; padding-top: 6px; }"  # not for people
         " QLabel#keyHelp { padding: 8px; border: 1px solid #b0b0b0; background: #fffbe6; }"
         " QComboBox { min-height: 44px; font-size: 20px; padding: 2px 8px; }"
         " QComboBox, QComboBox QLineEdit { background: #fff; } QComboBox QLineEdit { min-height: 36px; border: none; }"
         " QListWidget::item:disabled { color: #767676; }")


@dataclass(frozen=True)
class SetupOutcome:
    """What the person chose: the new settings and key-hash, or the sandbox."""

    config: StoreConfig | None = None
    secret: str | None = None
    sandbox: bool = False


def problem_sentence(problem: ConfigError, directory: Path) -> str:
    """Why the screen is shown, for a person (the app's ConfigError says it for the command line)."""
    text = str(problem)
    if problem.kind is ConfigProblem.NO_SERVICE_ADDRESS and not profile_path(directory).exists():
        return _(NOT_SET_UP)
    if problem.kind is ConfigProblem.NO_KEY_HASH:
        return _("This computer's keyring has no key-hash for this store yet: paste it below, then save.")
    if problem.kind is ConfigProblem.KEYRING_UNREADABLE:
        return _("This computer's keyring cannot be read, so the store's key-hash cannot be found: paste it below "
                 "(beside it: where it is kept), then save.")
    if problem.kind is ConfigProblem.ENV_KEY_HASH_UNUSABLE:
        return _("{problem}, then start the app again (POS_KEY_HASH is set outside the app).").format(
            problem=_sentence(text))
    if problem.kind is ConfigProblem.KEYRING_KEY_HASH_UNUSABLE:
        where = re.split(r"\s?:\s", text, maxsplit=1)[0]  # where the key-hash is: what is wrong with it follows
        return _("{problem}: paste the store's key-hash again below, then save.").format(problem=_sentence(where))
    return _("The saved settings cannot be used ({problem}). Correct them below, then save.").format(problem=text)


KEY_NOTES = {
    KeySource.KEYRING: N_("The key-hash is kept in this computer's keyring, never in a file."),
    KeySource.ENVIRONMENT: N_("The key-hash is POS_KEY_HASH, set in this app's environment: used as it is, stored "
                              "nowhere. For another one, change POS_KEY_HASH and start again."),
    KeySource.SESSION: "",  # said at length by SET_KEY_HELP, across the screen
}
SET_KEY_HELP = N_("This computer has no keyring: the key-hash typed above is used until the app closes, and "
                  "written nowhere. To start next time without typing it, set POS_KEY_HASH for the app. "
                  "{instructions}")
"""With ``{instructions}``: ``provisioning.set_key_instructions()``."""


class SetupDialog(QDialog):
    def __init__(self, directory: Path, problem: ConfigError | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.directory = directory
        self.outcome: SetupOutcome | None = None
        self._checked: tuple[str, str] | None = None  # (address, key) the terminal list belongs to
        self._has_manager = False
        self._prepared = False
        self._saving = False
        self._tasks: set[asyncio.Task[None]] = set()  # cancelled when the dialog closes
        self.setObjectName("setupDialog")
        self.setStyleSheet(STYLE)
        self.setWindowTitle(_("pos-app — set up this station"))
        title = _text(_("Set up this station"), "screenTitle")
        intro = _text(problem_sentence(problem, directory) if problem is not None else _(NOT_SET_UP), "setupIntro")
        prefill = provisioning.read_existing(directory)

        def field(name: str, hint: str, value: str = "", *, secret: int = 0) -> QLineEdit:
            edit = QLineEdit(value)
            edit.setPlaceholderText(hint)
            edit.setAccessibleName(name)
            if secret:  # its longest length
                edit.setEchoMode(QLineEdit.EchoMode.Password)
                edit.setMaxLength(secret)
            return edit

        self.url = field(_("Service address"), "https://payments.example.com", prefill.get("base_url", ""))
        self.store_id = field(_("Store id"), _("e.g. store-042"), prefill.get("store_id", ""))
        self.station_id = field(_("Station id"), _("this checkout, e.g. lane-1"), prefill.get("station_id", ""))
        self.store_name = field(_("Store name"), _("optional, e.g. Corner Market"), prefill.get("store_name", ""))
        self.key = field(_("Key-hash"), _("paste it here"), secret=provisioning.KEY_MAX)
        self.key_note = _text("", name=_("Where the key-hash is kept"))
        self.key_help = _text(_(SET_KEY_HELP).format(instructions=provisioning.set_key_instructions()), "keyHelp",
                              name=_("How to set POS_KEY_HASH"))
        self.key_help.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.check = QPushButton(_("&Check and list terminals"))
        self.check.setAccessibleName(_("Check the key and list the terminals"))
        self.check.setAccessibleDescription(_("Asks the service whether the key works, and lists its terminals"))
        service, form = _section(_("1 · Payment service"), QFormLayout())
        for text, widget in ((_("Service &address"), self.url), (_("Store &id"), self.store_id),
                             (_("Station i&d"), self.station_id), (_("Store &name"), self.store_name),
                             (_("&Key-hash"), self.key)):
            form.addRow(text, widget)
        form.addRow("", self.check)
        form.addRow("", self.key_note)

        self.terminals = QListWidget()
        self.terminals.setAccessibleName(_("Payment terminal"))
        self.terminals.setMinimumHeight(170)  # three terminals without scrolling
        self.terminals.setWordWrap(True)
        self.terminals.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.terminal_hint = _text(_("Check the key first to list the terminals."), name=_("Terminal list status"))
        self._wanted_terminal = prefill.get("terminal_id")
        self.printer = QComboBox()
        self.printer.setEditable(True)
        self.printer.setAccessibleName(_("Receipt printer"))
        self.printer.setAccessibleDescription(_("The printer receipts go to; none: a preview, then the print dialog"))
        self.printer.lineEdit().setPlaceholderText(_("none: a preview, then the print dialog"))
        self.printer.lineEdit().setAccessibleName(_("Receipt printer"))
        self.printer.setEditText(prefill.get("printer", ""))
        station, station_form = _section(_("2 · This station"), QVBoxLayout())
        for text, widget in ((_("Payment &terminal"), self.terminals), ("", self.terminal_hint),
                             (_("Receipt p&rinter (optional)"), self.printer)):
            if text:
                station_form.addWidget(_label(text, widget))
            station_form.addWidget(widget, 1 if widget is self.terminals else 0)

        self.manager_name = field(_("Manager's name"), _("e.g. Ann Lee"))
        self.pin = field(_("Manager's PIN"), _("4 to {digits} digits").format(digits=PIN_MAX_DIGITS),
                         secret=PIN_MAX_DIGITS)
        self.pin_again = field(_("Manager's PIN again"), _("the same PIN"), secret=PIN_MAX_DIGITS)
        manager, manager_row = _section(_("3 · First manager: signs in with this PIN"), QHBoxLayout())
        self.manager_title = manager.findChild(QLabel, "sectionTitle")
        for text, widget, stretch in ((_("&Manager's name"), self.manager_name, 3), (_("&PIN"), self.pin, 2),
                                      (_("PIN a&gain"), self.pin_again, 2)):
            manager_row.addWidget(_label(text, widget))
            manager_row.addWidget(widget, stretch)

        self.message = _text("", "errorText", name=_("Setup message"))
        self.sandbox = QPushButton(_("Try the sand&box"))
        self.sandbox.setAccessibleName(_("Try the sandbox: training mode, no real money"))
        self.sandbox.setAccessibleDescription(_("Starts the app on its built-in sandbox, in training mode"))
        self.save = QPushButton(_("&Save and start"))
        self.save.setAccessibleDescription(_("Saves these settings and starts the app"))
        self.save.setDefault(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.message, 1)
        buttons.addWidget(self.sandbox)
        buttons.addWidget(self.save)
        columns = QHBoxLayout()
        columns.setSpacing(32)
        columns.addWidget(service, 1)
        columns.addWidget(station, 1)
        body = QWidget()
        column = self.column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(title)
        column.addWidget(intro)
        column.addLayout(columns, 1)
        column.addWidget(self.key_help)
        column.addWidget(manager)
        self.scroll = QScrollArea()  # a short screen (or large text) scrolls the form; the keys stay below
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.addWidget(self.scroll, 1)
        layout.addLayout(buttons)
        order = [self.url, self.store_id, self.station_id, self.store_name, self.key, self.check, self.terminals,
                 self.printer, self.manager_name, self.pin, self.pin_again, self.save, self.sandbox]
        for first, second in zip(order, order[1:], strict=False):
            QWidget.setTabOrder(first, second)
        self._fields = {"base_url": self.url, "store_id": self.store_id, "station_id": self.station_id,
                        "store_name": self.store_name, "key": self.key, "terminal_id": self.terminals,
                        "printer": self.printer, "manager": self.manager_name, "pin": self.pin}
        self._show_key_source(KeySource.ENVIRONMENT if os.environ.get("POS_KEY_HASH") else KeySource.KEYRING)
        self.check.clicked.connect(self._check)
        self.save.clicked.connect(self._save)
        self.sandbox.clicked.connect(self._try_sandbox)
        self.resize(WIDTH, self._height_at(WIDTH))

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        if not self._prepared:
            self._prepared = True
            empty = [f for f in (self.url, self.store_id, self.station_id, self.key)
                     if not f.text() and not f.isReadOnly()]
            (empty or [self.url])[0].setFocus()
            self._prepare()

    def done(self, code: int) -> None:
        if self._saving and code != QDialog.DialogCode.Accepted:
            return  # the keyring and files are being written: closing now would leave half of it
        current = asyncio.current_task()
        for task in self._tasks - {current}:
            task.cancel()
        super().done(code)

    def _track(self) -> None:
        if (task := asyncio.current_task()) is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @asyncSlot()
    async def _prepare(self) -> None:
        """Where the key-hash can be kept, the printers the print system knows, and whether
        a manager exists already."""
        self._track()
        source, printers, present = await asyncio.gather(
            asyncio.to_thread(provisioning.key_source), asyncio.to_thread(list_printers),
            asyncio.to_thread(provisioning.managers, self.directory), return_exceptions=True)
        if isinstance(source, KeySource):
            self._show_key_source(source)
        if isinstance(printers, list) and printers:
            typed = self.printer.currentText()
            self.printer.addItems(printers)
            self.printer.setEditText(typed)
            self.printer.lineEdit().setPlaceholderText(ngettext(
                "none: the print dialog (or pick: {count} found)", "none: the print dialog (or pick: {count} found)",
                len(printers)).format(count=len(printers)))
        if isinstance(present, list) and present:
            self._has_manager = True
            # TRANSLATORS: {names} lists the managers already set up ("Ann Lee" or "Ann Lee, Bo Park")
            self.manager_title.setText(ngettext("3 · Another manager (optional: {names} is one)",
                                                "3 · Another manager (optional: {names} is one)",
                                                len(present)).format(names=", ".join(present)[:40]))

    @asyncSlot()
    async def _check(self) -> None:
        self._track()
        self._busy(_("Checking the key with the payment service…"))
        try:
            await self._list_terminals(self.url.text(), self._key())
        except ConfigError as error:
            self._refuse(error)
            return
        self._busy(None)
        self.message.setText("")
        self.terminals.setFocus()

    async def _list_terminals(self, url: str, key: str) -> None:
        wanted = self._picked() or self._wanted_terminal
        self.terminals.clear()
        self._checked = None
        try:
            found = await provisioning.check_service(url, key, store_id=self.store_id.text().strip() or "-",
                                                     station_id=self.station_id.text().strip() or "-")
        except SetupError:
            self.terminal_hint.setText(_("No terminals: fix the problem below, then check again."))
            raise
        for terminal in found:
            item = QListWidgetItem(provisioning.terminal_label(terminal))
            item.setData(Qt.ItemDataRole.UserRole, terminal.id)
            self.terminals.addItem(item)
            if terminal.is_active is False:  # listed, so the station is recognised, but never picked
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled & ~Qt.ItemFlag.ItemIsSelectable)
            elif terminal.id == wanted or len(found) == 1:
                self.terminals.setCurrentItem(item)
        self._checked = (check_base_url(url.strip()), provisioning.check_key(key))
        self.terminal_hint.setText(ngettext("The key works: pick this station's terminal ({count} listed).",
                                            "The key works: pick this station's terminal ({count} listed).",
                                            len(found)).format(count=len(found)) if found
                                   else _("The key works; no terminal is listed for this store yet."))

    @asyncSlot()
    async def _save(self) -> None:
        self._track()
        self._busy(_("Saving…"))
        try:
            setup = provisioning.check_setup(base_url=self.url.text(), store_id=self.store_id.text(),
                                             station_id=self.station_id.text(), store_name=self.store_name.text(),
                                             printer=self.printer.currentText())
            key = self._key()
            provisioning.refuse_key_in(setup, key)
            manager = self._manager()
            if self._checked != (setup.base_url, key):
                self.message.setText(_("Checking the key with the payment service…"))
                await self._list_terminals(setup.base_url, key)
            items = map(self.terminals.item, range(self.terminals.count()))
            if any(i.flags() & Qt.ItemFlag.ItemIsEnabled for i in items) and not self._picked():
                raise SetupError(_("Pick this station's payment terminal in the list (arrows, then Tab)."),
                                 field="terminal_id")
            setup = replace(setup, terminal_id=self._picked())
            self.message.setText(_("Saving…"))
            self._saving = True
            try:
                self.outcome = await asyncio.to_thread(_provision, self.directory, setup, key, manager,
                                                       self.key_source)
            finally:
                self._saving = False
        except NoKeyring as error:  # nothing was written: the same Enter now starts for this session
            self._show_key_source(KeySource.SESSION)
            self._busy(None)
            self.message.setText(_("No keyring: {why}. Or press Save and start again: the key-hash is then used for "
                                   "this session only.").format(why=error.why))
            self.save.setFocus()
            return
        except (ConfigError, StaffError) as error:
            self._refuse(error)
            return
        except Exception as error:  # noqa: BLE001 - a sentence on the screen, the detail in the log
            log.exception("setup could not be saved")
            self._refuse(SetupError(_("The setup could not be saved ({error}): try again, or call support.").format(
                error=type(error).__name__)))
            return
        self.accept()

    def _try_sandbox(self) -> None:
        self.outcome = SetupOutcome(sandbox=True)
        self.accept()

    def _manager(self) -> tuple[str, str] | None:
        name, pin, again = self.manager_name.text(), self.pin.text(), self.pin_again.text()
        if self._has_manager and not (name.strip() or pin or again):
            return None
        try:
            return provisioning.check_manager(name, pin, again)
        except SetupError as error:
            if error.field == "pin":
                self.pin.clear()
                self.pin_again.clear()
            raise

    def _show_key_source(self, source: KeySource) -> None:
        self.key_source = source
        self.key_note.setText(_(KEY_NOTES[source]) if KEY_NOTES[source] else "")
        from_environment = source is KeySource.ENVIRONMENT
        self.key.setReadOnly(from_environment)
        self.key.setPlaceholderText(_("taken from POS_KEY_HASH") if from_environment else _("paste it here"))
        if from_environment:
            self.key.clear()
        self.key_note.setVisible(source is not KeySource.SESSION)
        self.key_help.setVisible(source is KeySource.SESSION)
        if source is KeySource.SESSION and self.isVisible():  # room for the help: nothing clipped
            self.resize(self.width(), max(self.height(), self._height_at(self.width())))
            self._fit_form()

    def _height_at(self, width: int) -> int:
        """The height the screen wants at ``width``: the form's wrapped texts and the keys below
        it, at least ``MIN_HEIGHT``, at most what a lane's screen has room for (the form
        scrolls; the window can be made taller)."""
        form = max(self.column.totalHeightForWidth(width - FORM_MARGINS), self.column.sizeHint().height())
        wanted = max(form + self.save.sizeHint().height() + FORM_MARGINS, MIN_HEIGHT)
        screen = self.screen().availableGeometry().height() if self.screen() is not None else LANE_HEIGHT
        return min(wanted, min(screen, LANE_HEIGHT) - FRAME)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_form()

    def _fit_form(self) -> None:
        """The form as tall as its wrapped texts at the width it has (a scroll area would
        otherwise squeeze it to its own height, and the texts would overlap)."""
        width = self.scroll.viewport().width()
        wanted = max(self.column.totalHeightForWidth(width), self.column.sizeHint().height())
        self.scroll.widget().setMinimumHeight(wanted)

    def _key(self) -> str:
        """The key-hash to use: POS_KEY_HASH as the app will send it, or the one typed."""
        if self.key_source is KeySource.ENVIRONMENT:
            return provisioning.environment_key()
        return provisioning.check_key(self.key.text())

    def _picked(self) -> str | None:
        item = self.terminals.currentItem()
        return None if item is None or not item.isSelected() else str(item.data(Qt.ItemDataRole.UserRole))

    def _busy(self, text: str | None) -> None:
        for button in (self.check, self.save, self.sandbox):
            button.setEnabled(text is None)
        if text is not None:
            self.message.setText(text)

    def _refuse(self, error: Exception) -> None:
        self._busy(None)
        text = str(error)
        self.message.setText(text[:1].upper() + text[1:])
        widget = self._fields.get(getattr(error, "field", None) or "")
        (widget or self.url).setFocus()


def _text(text: str, object_name: str = "", *, name: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setObjectName(object_name)
    label.setAccessibleName(name)
    return label


def _label(text: str, buddy: QWidget) -> QLabel:
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


def _section[L: (QFormLayout, QVBoxLayout, QHBoxLayout)](title: str, layout: L) -> tuple[QWidget, L]:
    """A titled part of the screen: a bold heading over ``layout``."""
    box = QWidget()
    outer = QVBoxLayout(box)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(_text(title, "sectionTitle"))
    outer.addLayout(layout)
    outer.addStretch(1)
    return box, layout


def _provision(directory: Path, setup: StationSetup, key: str, manager: tuple[str, str] | None,
               source: KeySource) -> SetupOutcome:
    """In a worker thread: keyring (if it lives there), store.toml and the manager; then the
    settings and the key-hash as the app loads them (this session's key: as typed)."""
    provisioning.provision_station(directory, setup, key, manager, source=source)
    config = load_config()
    return SetupOutcome(config=config, secret=key if source is KeySource.SESSION else key_hash(config))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
