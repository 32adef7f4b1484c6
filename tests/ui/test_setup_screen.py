"""The first-run setup screen, driven by the keyboard as a person would: the app started
with no settings shows it; filling it in against the sandbox, picking a terminal and
pressing Enter saves store.toml, the key-hash (an in-memory keyring here; the real Secret
Service is tested in tests/test_provisioning.py) and the first manager, then the main
window opens. "Try the sandbox" opens training mode; a wrong key shows the 401 sentence.
Without a keyring (issue 16, item 14), POS_KEY_HASH is used, or the key typed serves this
session and the screen says how to set POS_KEY_HASH; nothing typed is lost."""

from __future__ import annotations

import tomllib

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import KeyringLocked

from pos_app.config import KEYRING_SERVICE
from pos_app.staff import Role, Staff, StaffMember, staff_path
from pos_app.ui.qt import QApplication, Qt
from pos_app.ui.setup import SetupDialog
from tests.ui.helpers import main_window, save


def shown_setup(qtbot, focus: str = "url") -> SetupDialog:
    found: list[SetupDialog] = []

    def visible() -> bool:
        found[:] = [w for w in QApplication.topLevelWidgets() if isinstance(w, SetupDialog) and w.isVisible()]
        return bool(found)

    qtbot.waitUntil(visible, timeout=10_000)
    dialog = found[0]
    qtbot.waitUntil(lambda: dialog.focusWidget() is getattr(dialog, focus))
    return dialog


def type_and_tab(qtbot, dialog: SetupDialog, *texts: str) -> None:
    """Type each text into the focused field, then Tab to the next one."""
    for text in texts:
        if text:
            qtbot.keyClicks(dialog.focusWidget(), text)
        qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Tab)


def fill_service(qtbot, dialog: SetupDialog, base_url: str, key: str) -> None:
    type_and_tab(qtbot, dialog, base_url, "harbor-7", "lane-2", "Harbor Books, Pier 4", key)
    assert dialog.focusWidget() is dialog.check


def check_terminals(qtbot, dialog: SetupDialog) -> None:
    qtbot.keyClick(dialog.check, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: dialog.terminals.count() > 0, timeout=10_000)
    qtbot.waitUntil(lambda: dialog.focusWidget() is dialog.terminals)


def test_first_run_by_keyboard_saves_everything_and_opens_the_app(qtbot, start_app, sandbox, memory_keyring, data):
    task = start_app()
    dialog = shown_setup(qtbot)
    assert dialog.url.accessibleName() == "Service address" and dialog.key.echoMode() == dialog.key.EchoMode.Password
    fill_service(qtbot, dialog, sandbox.base_url, sandbox.keys["B"])
    check_terminals(qtbot, dialog)
    labels = [dialog.terminals.item(i).text() for i in range(dialog.terminals.count())]
    assert labels == ["Front desk — tb-2001", "Cafe counter — tb-2002", "Old counter — tb-2003"]
    assert "pick this station's terminal (3 listed)" in dialog.terminal_hint.text()
    assert dialog.terminals.currentItem() is None  # three: none is picked for the person
    qtbot.keyClick(dialog.terminals, Qt.Key.Key_Down)
    qtbot.keyClick(dialog.terminals, Qt.Key.Key_Down)
    assert dialog.terminals.currentItem().text().startswith("Cafe counter")
    type_and_tab(qtbot, dialog, "")  # to the printer: none
    assert dialog.focusWidget() in (dialog.printer, dialog.printer.lineEdit())
    type_and_tab(qtbot, dialog, "", "Ann Lee", "4821")
    qtbot.keyClicks(dialog.focusWidget(), "4821")
    assert dialog.focusWidget() is dialog.pin_again
    qtbot.keyClick(dialog.pin_again, Qt.Key.Key_Return)  # Enter: the default button, "Save and start"

    window = main_window(qtbot)
    assert not window.banner.isVisible()  # a real store, not training
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, SetupDialog) and w.isVisible()]
    assert "Harbor Books, Pier 4" in window.windowTitle() and "lane-2" in window.windowTitle()
    profile = tomllib.loads((data / "store.toml").read_text())
    assert profile == {"base_url": sandbox.base_url, "store_id": "harbor-7", "station_id": "lane-2",
                       "store_name": "Harbor Books, Pier 4", "terminal_id": "tb-2002", "gateway": "auto"}
    assert sandbox.keys["B"] not in (data / "store.toml").read_text()
    assert memory_keyring.secrets == {(KEYRING_SERVICE, f"harbor-7@{sandbox.base_url}"): sandbox.keys["B"]}
    with Staff.open(staff_path(data)) as staff:
        assert staff.list() == [StaffMember("Ann Lee", Role.MANAGER)]
    assert window.station.config.terminal_id == "tb-2002"
    window.close()
    qtbot.waitUntil(task.done, timeout=20_000)
    assert task.result() == 0


def test_try_the_sandbox_starts_training_mode(qtbot, start_app, data):
    task = start_app()
    dialog = shown_setup(qtbot)
    dialog.sandbox.setFocus()
    qtbot.keyClick(dialog.sandbox, Qt.Key.Key_Space)
    window = main_window(qtbot)
    assert window.banner.isVisible() and window.station.training
    assert window.station.config.data_dir == data / "training"
    assert not (data / "store.toml").exists()
    window.close()
    qtbot.waitUntil(task.done, timeout=20_000)
    assert task.result() == 0


def test_a_wrong_key_is_the_401_sentence_and_nothing_is_saved(qtbot, start_app, sandbox, memory_keyring, data):
    start_app()
    dialog = shown_setup(qtbot)
    fill_service(qtbot, dialog, sandbox.base_url, "not-the-stores-key")
    qtbot.keyClick(dialog.check, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: "401" in dialog.message.text(), timeout=10_000)
    assert dialog.message.text().startswith("The payment service refused this key-hash (401 Unauthorized)")
    assert dialog.focusWidget() is dialog.key and dialog.terminals.count() == 0
    assert dialog.check.isEnabled() and dialog.save.isEnabled()
    save(dialog, "setup-wrong-key")
    dialog.manager_name.setText("Ann Lee")
    dialog.pin.setText("4821")
    dialog.pin_again.setText("4821")
    dialog.message.setText("")
    qtbot.keyClick(dialog.pin_again, Qt.Key.Key_Return)  # saving checks the key again
    qtbot.waitUntil(lambda: dialog.message.text().startswith("The payment service refused"), timeout=10_000)
    assert dialog.save.isEnabled()
    assert not (data / "store.toml").exists() and memory_keyring.secrets == {} and dialog.isVisible()


@pytest.mark.parametrize("change,sentence,field", [
    ({"url": "http://payments.example.com"}, "must start with https://", "url"),
    ({"url": "payments"}, "must look like https://", "url"),
    ({"store_id": ""}, "Type the store id.", "store_id"),
    ({"station_id": "lane 2"}, "The station id is 1 to 64 letters", "station_id"),
    ({"key": ""}, "Type or paste the store's key-hash.", "key"),
    ({"pin": "12", "pin_again": "12"}, "The manager's PIN is 4 to 8 digits", "pin"),
    ({"pin": "4821", "pin_again": "4822"}, "The two PINs are not the same", "pin"),
    ({"manager_name": " "}, "Type the manager's name.", "manager_name"),
    ({"store_name": "KEY-abcdef123"}, "The key-hash was typed into the store name", "store_name"),
])
def test_each_problem_is_a_sentence_and_focuses_its_field(qtbot, start_app, memory_keyring, data, change, sentence,
                                                          field):
    start_app()
    dialog = shown_setup(qtbot)
    values = {"url": "https://payments.example.com", "store_id": "harbor-7", "station_id": "lane-2",
              "store_name": "", "key": "KEY-abcdef123", "manager_name": "Ann Lee", "pin": "4821",
              "pin_again": "4821", **change}
    for name, value in values.items():
        getattr(dialog, name).setText(value)
    qtbot.keyClick(dialog.pin_again, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: sentence in dialog.message.text(), timeout=5000)
    assert dialog.focusWidget() is getattr(dialog, field)
    assert not (data / "store.toml").exists() and memory_keyring.secrets == {}


def manager_and_enter(qtbot, dialog: SetupDialog) -> None:
    """From the terminal list: the first terminal, no printer, the manager, then Enter."""
    qtbot.keyClick(dialog.terminals, Qt.Key.Key_Down)
    qtbot.keyClick(dialog.terminals, Qt.Key.Key_Tab)
    type_and_tab(qtbot, dialog, "", "Ann Lee", "4821")
    qtbot.keyClicks(dialog.focusWidget(), "4821")
    assert dialog.focusWidget() is dialog.pin_again
    qtbot.keyClick(dialog.pin_again, Qt.Key.Key_Return)


def service_used(qtbot, sandbox, merchant: str) -> None:
    """The started app talks to the service with ``merchant``'s key (its catalog sync)."""
    qtbot.waitUntil(lambda: sandbox.stats()["requests"].get(merchant, {}).get("item.list"), timeout=20_000)


@pytest.mark.usefixtures("no_keyring")
def test_no_keyring_with_pos_key_hash_set_uses_it_and_starts(qtbot, start_app, sandbox, data, monkeypatch):
    monkeypatch.setenv("POS_KEY_HASH", sandbox.keys["B"])
    task = start_app()
    dialog = shown_setup(qtbot)
    assert dialog.key.isReadOnly() and dialog.key.text() == ""
    assert dialog.key.placeholderText() == "taken from POS_KEY_HASH"
    assert dialog.key_note.text().startswith("The key-hash is POS_KEY_HASH, set in this app's environment")
    assert not dialog.key_help.isVisible()
    save(dialog, "setup-pos-key-hash")
    fill_service(qtbot, dialog, sandbox.base_url, "")  # Tab passes over the key: nothing to type
    check_terminals(qtbot, dialog)
    manager_and_enter(qtbot, dialog)
    window = main_window(qtbot)
    service_used(qtbot, sandbox, "B")
    assert tomllib.loads((data / "store.toml").read_text())["store_name"] == "Harbor Books, Pier 4"
    with Staff.open(staff_path(data)) as staff:
        assert staff.list() == [StaffMember("Ann Lee", Role.MANAGER)]
    window.close()
    qtbot.waitUntil(task.done, timeout=20_000)
    assert task.result() == 0


@pytest.mark.usefixtures("no_keyring")
def test_no_keyring_and_no_pos_key_hash_starts_for_this_session_and_keeps_the_rest(qtbot, start_app, sandbox, data):
    task = start_app()
    dialog = shown_setup(qtbot)
    qtbot.waitUntil(dialog.key_help.isVisible, timeout=5000)
    assert dialog.key_help.text().startswith("This computer has no keyring: the key-hash typed above is used until "
                                             "the app closes, and written nowhere.")
    assert "POS_KEY_HASH=<key-hash>  in ~/.config/environment.d/pos-app.conf" in dialog.key_help.text()
    assert not dialog.key_note.isVisible() and not dialog.key.isReadOnly()
    save(dialog, "setup-no-keyring")
    fill_service(qtbot, dialog, sandbox.base_url, sandbox.keys["B"])
    check_terminals(qtbot, dialog)
    manager_and_enter(qtbot, dialog)
    window = main_window(qtbot)
    service_used(qtbot, sandbox, "B")
    window.close()
    qtbot.waitUntil(task.done, timeout=20_000)
    assert [p for p in data.rglob("*") if p.is_file() and sandbox.keys["B"].encode() in p.read_bytes()] == []

    start_app()  # the next start: everything typed is there but the key-hash, which the screen asks for
    dialog = shown_setup(qtbot, focus="key")
    intro = dialog.findChild(type(dialog.message), "setupIntro").text()
    assert intro.startswith("This computer's keyring cannot be read, so the store's key-hash cannot be found")
    assert (dialog.url.text(), dialog.store_id.text(), dialog.station_id.text(), dialog.store_name.text()) == (
        sandbox.base_url, "harbor-7", "lane-2", "Harbor Books, Pier 4")
    qtbot.waitUntil(lambda: "optional: Ann Lee is one" in dialog.manager_title.text())


class LockedKeyring(KeyringBackend):
    """A keyring that exists but will not take the key (locked, and no one unlocks it)."""

    priority = 1

    def get_password(self, service, username):
        raise KeyringLocked("locked")

    def set_password(self, service, username, password):
        raise KeyringLocked("locked")

    def delete_password(self, service, username):
        raise KeyringLocked("locked")


def test_a_keyring_that_will_not_keep_the_key_offers_this_session_and_keeps_what_was_typed(qtbot, start_app, sandbox,
                                                                                          data):
    previous = keyring.get_keyring()
    keyring.set_keyring(LockedKeyring())
    try:
        task = start_app()
        dialog = shown_setup(qtbot)
        fill_service(qtbot, dialog, sandbox.base_url, sandbox.keys["B"])
        check_terminals(qtbot, dialog)
        manager_and_enter(qtbot, dialog)
        qtbot.waitUntil(lambda: "Save and start again" in dialog.message.text(), timeout=10_000)
        assert dialog.message.text().startswith("No keyring: the OS keyring is locked (unlock it")
        assert dialog.focusWidget() is dialog.save and dialog.key_help.isVisible()
        assert (dialog.store_name.text(), dialog.key.text(), dialog.pin.text()) == ("Harbor Books, Pier 4",
                                                                                   sandbox.keys["B"], "4821")
        assert not (data / "store.toml").exists()
        save(dialog, "setup-keyring-locked")
        qtbot.keyClick(dialog.save, Qt.Key.Key_Return)
        window = main_window(qtbot)
        service_used(qtbot, sandbox, "B")
        window.close()
        qtbot.waitUntil(task.done, timeout=20_000)
    finally:
        keyring.set_keyring(previous)


def test_a_pos_key_hash_that_cannot_be_sent_is_said_on_the_first_screen(qtbot, start_app, sandbox, data,
                                                                         memory_keyring, monkeypatch):
    data.mkdir(parents=True)
    (data / "store.toml").write_text(f'base_url = "{sandbox.base_url}"\nstore_id = "harbor-7"\n'
                                     'station_id = "lane-2"\n')
    monkeypatch.setenv("POS_KEY_HASH", sandbox.keys["B"] + "\r\n")
    start_app()
    dialog = shown_setup(qtbot)  # the key-hash field is read-only: it shows POS_KEY_HASH's place
    intro = dialog.findChild(type(dialog.message), "setupIntro").text()
    assert intro == ("The key-hash in POS_KEY_HASH has a carriage return (CR) at position 19 of 20: a key-hash is "
                     "letters, digits and symbols only, with no spaces or line breaks; set it again without it, then "
                     "start the app again (POS_KEY_HASH is set outside the app).")
    assert sandbox.stats()["requests"]["B"] == {}
    save(dialog, "setup-bad-pos-key-hash")
    qtbot.keyClick(dialog.url, Qt.Key.Key_Return)  # saving says the same, and what to do
    qtbot.waitUntil(lambda: "POS_KEY_HASH, set in this app's environment, has a carriage return" in
                    dialog.message.text(), timeout=5000)
    assert dialog.focusWidget() is dialog.key and sandbox.stats()["requests"]["B"] == {}


def test_render_the_setup_screen(qtbot, start_app, sandbox, memory_keyring):
    start_app()
    dialog = shown_setup(qtbot)
    save(dialog, "setup")
    fill_service(qtbot, dialog, sandbox.base_url, sandbox.keys["S"])
    check_terminals(qtbot, dialog)
    assert dialog.terminals.item(2).text() == "Inactive: Back office — ts-1003 · serial P3A-2310-0103"
    for _ in range(4):  # the arrows stop at the last active terminal: an inactive one cannot be picked
        qtbot.keyClick(dialog.terminals, Qt.Key.Key_Down)
    assert dialog.terminals.currentItem().text() == "Lane 2 — ts-1002 · serial P3A-2310-0102"
    dialog.manager_name.setText("Ann Lee")
    dialog.pin.setText("4821")
    save(dialog, "setup-terminals")
    qtbot.keyClick(dialog.pin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "not the same" in dialog.message.text(), timeout=5000)
    save(dialog, "setup-pin-mismatch")


def test_settings_that_cannot_be_used_are_prefilled_and_the_staff_kept(qtbot, start_app, sandbox, memory_keyring,
                                                                       data):
    data.mkdir(parents=True)
    (data / "store.toml").write_text(f'base_url = "{sandbox.base_url}"\nstore_id = "harbor-7"\nstation_id = "lane-2"\n'
                                     'terminal_id = "tb-2002"\n')  # but no key-hash in the keyring
    with Staff.open(staff_path(data)) as staff:
        staff.add("Ann Lee", Role.MANAGER, "4821")
    task = start_app()
    dialog = shown_setup(qtbot, focus="key")  # the first field to fill in
    intro = dialog.findChild(type(dialog.message), "setupIntro").text()
    assert intro == "This computer's keyring has no key-hash for this store yet: paste it below, then save."
    assert (dialog.url.text(), dialog.store_id.text(), dialog.station_id.text()) == (sandbox.base_url, "harbor-7",
                                                                                     "lane-2")
    qtbot.waitUntil(lambda: "optional: Ann Lee is one" in dialog.manager_title.text())
    save(dialog, "setup-again")
    qtbot.keyClicks(dialog.key, sandbox.keys["B"])
    qtbot.keyClick(dialog.key, Qt.Key.Key_Return)  # checks, keeps the terminal it had, saves; no new manager
    window = main_window(qtbot)
    assert window.station.config.terminal_id == "tb-2002"
    with Staff.open(staff_path(data)) as staff:
        assert staff.list() == [StaffMember("Ann Lee", Role.MANAGER)]
    window.close()
    qtbot.waitUntil(task.done, timeout=20_000)


def test_every_field_is_named_and_every_shortcut_letter_is_unique(qtbot, tmp_path):
    from pos_app.ui.qt import QComboBox, QLabel, QLineEdit, QListWidget, QPushButton

    dialog = SetupDialog(tmp_path)
    qtbot.addWidget(dialog)
    inputs = [w for kind in (QLineEdit, QListWidget, QComboBox) for w in dialog.findChildren(kind)]
    assert inputs and all(w.accessibleName() for w in inputs), [w for w in inputs if not w.accessibleName()]
    texts = [label.text() for label in dialog.findChildren(QLabel) if label.buddy() is not None]
    texts += [button.text() for button in dialog.findChildren(QPushButton)]
    letters = [text[text.index("&") + 1].lower() for text in texts if "&" in text]
    assert len(letters) == len(texts) == 13 and len(set(letters)) == len(letters), texts
    assert dialog.save.isDefault() and not dialog.sandbox.isDefault()
