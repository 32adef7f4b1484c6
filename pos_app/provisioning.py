"""First-run provisioning of a station (no Qt): ``store.toml`` and the key-hash.

- ``check_setup(...)`` turns what a person typed into a ``StationSetup`` (or a
  ``SetupError`` whose message is a sentence saying what to fix).
- ``write_profile(directory, setup)`` writes ``<data dir>/store.toml`` atomically (a
  temporary file, fsync, rename) with tomlkit: the setup's own settings are set in place,
  everything else of a usable existing file is kept as written (other settings, tables,
  another tool's tables, comments); an existing file that cannot be used is kept as
  ``store.toml.bak`` (unless it holds a key-hash) and a fresh one written. A key-hash is
  refused: it never goes into a file.
- ``store_key(base_url, store_id, key)`` puts the key-hash into the OS keyring (service
  ``pos-app``, user ``<store_id>@<base_url>``, where ``config.key_hash`` reads it) and reads
  it back; ``NoKeyring`` when no keyring can keep it (then ``POS_KEY_HASH`` is the way).
- ``key_source()``: where the key-hash will live: ``POS_KEY_HASH`` when it is set (the app
  uses it as it is; nothing is stored), the OS keyring when this computer has one, else
  this session only (in memory; ``set_key_instructions`` says exactly how to set
  ``POS_KEY_HASH`` for the next start). No file holds it: an "encrypted" file without a
  keyring or a passphrase would be locked with a key kept next to it.
- ``provision(directory, setup, key)``: the key into the keyring first (when that is where
  it lives), then the file, so a refused key leaves nothing half-done.
- ``check_manager``, ``provision_station``: the same plus the first manager (name, PIN
  twice) added to the staff file.
- ``check_service(base_url, key)`` (async): the merchant's terminals through a one-off
  client (closed after), or a ``SetupError`` sentence: bad address, key refused (401),
  unreachable, not the payment service.

``pos-app setup`` (``pos_app.setup_cli``) drives the same functions from a script.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import httpx
import tomlkit
from tomlkit.exceptions import TOMLKitError

from pos_app.api.address import check_base_url
from pos_app.api.client import PaymentsClient, RetryPolicy
from pos_app.api.errors import (
    ApiError,
    InvalidInput,
    NotFound,
    PaymentsError,
    ProtocolError,
    TransportError,
    Unauthorized,
)
from pos_app.api.identity import Identity
from pos_app.api.models import Terminal
from pos_app.api.secrets import key_hash_problem
from pos_app.config import GATEWAYS, KEYRING_SERVICE, check_profile_values
from pos_app.i18n import N_, _
from pos_app.profile import PROFILE_NAME, ConfigError, holds_a_key, profile_path
from pos_app.staff import (
    PIN_MAX_DIGITS,
    PIN_MIN_DIGITS,
    AuditAction,
    InvalidName,
    InvalidPin,
    Role,
    Staff,
    StaffError,
    check_pin,
    staff_path,
)
from pos_app.staff.store import check_name

__all__ = [
    "KeySource", "NoKeyring", "ProvisionResult", "SetupError", "StationSetup", "check_key",
    "check_manager", "check_service", "check_setup", "environment_key", "key_source", "keyring_usable", "managers",
    "provision", "provision_station", "read_existing", "refuse_key_in", "set_key_instructions", "store_key",
    "terminal_label", "updated_profile", "write_profile",
]

SETUP_KEYS = ("base_url", "gateway", "store_id", "store_name", "station_id", "terminal_id", "printer")
"""The settings ``setup`` owns: written (or removed when empty) every time."""
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
KEY_MAX = 1024
NAME_MAX = 80


class SetupError(ConfigError):
    """The setup cannot be done as asked; the message is a sentence saying what to fix, and
    ``field`` names the setting to fix when there is one (``base_url``, ``key``...)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NoKeyring(SetupError):
    """No OS keyring can keep the key-hash on this computer; ``why`` says what went wrong."""

    def __init__(self, why: str) -> None:
        super().__init__(_no_keyring(why), field="key")
        self.why = why


class KeySource(StrEnum):
    """Where the station's key-hash lives once it is set up."""

    KEYRING = "keyring"
    """The OS keyring keeps it (service ``pos-app``, user ``<store_id>@<base_url>``)."""
    ENVIRONMENT = "environment"
    """``POS_KEY_HASH`` is set in the app's environment: it is used as it is (it always
    wins over the keyring), nothing is stored."""
    SESSION = "session"
    """No keyring and no ``POS_KEY_HASH``: the key-hash typed is used until the app closes,
    then forgotten; the next start asks for it again (or reads ``POS_KEY_HASH``)."""


@dataclass(frozen=True)
class StationSetup:
    """What the setup writes into ``store.toml`` (never the key-hash)."""

    base_url: str
    store_id: str
    station_id: str
    store_name: str = ""
    terminal_id: str | None = None
    printer: str | None = None
    gateway: str = "auto"

    @property
    def keyring_user(self) -> str:
        return f"{self.store_id}@{self.base_url}"

    def entries(self) -> dict[str, str]:
        """The non-empty settings, as they go into the file."""
        return {k: v for k, v in asdict(self).items() if v}


@dataclass(frozen=True)
class ProvisionResult:
    profile: Path
    keyring_user: str
    keyring_backend: str
    kept: tuple[str, ...] = ()
    previous_saved_as: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {"file": str(self.profile), "kept": list(self.kept),
                "previous_saved_as": str(self.previous_saved_as) if self.previous_saved_as else None,
                "keyring": {"service": KEYRING_SERVICE, "user": self.keyring_user,
                            "backend": self.keyring_backend}}


# -- checking what was typed ---------------------------------------------------------------


def check_setup(*, base_url: str, store_id: str, station_id: str, store_name: str = "",
                terminal_id: str | None = None, printer: str | None = None, gateway: str = "auto") -> StationSetup:
    """The setup with outer spaces removed, each field checked; ``SetupError`` otherwise."""
    url = base_url.strip()
    if not url:
        raise SetupError(_("Type the payment service's address, e.g. https://payments.example.com."), field="base_url")
    try:
        url = check_base_url(url)
    except InvalidInput:
        raise SetupError(_bad_url_sentence(url), field="base_url") from None
    name = store_name.strip()
    if len(name) > NAME_MAX or _has_control(name):
        raise SetupError(_("The store name has at most {count} characters and no control characters.").format(
            count=NAME_MAX), field="store_name")
    gateway = gateway.strip().lower()
    if gateway not in GATEWAYS:
        raise SetupError(_("The gateway is one of {gateways}.").format(gateways=", ".join(GATEWAYS)), field="gateway")
    return StationSetup(
        base_url=url, store_id=_identifier("store_id", store_id),
        station_id=_identifier("station_id", station_id),
        store_name=name, terminal_id=_optional_id("terminal_id", terminal_id),
        printer=_printer(printer), gateway=gateway,
    )


def check_key(key: str) -> str:
    """The key-hash typed or pasted, without surrounding spaces or line ends; ``SetupError``
    saying what is wrong and where (never the value) if it cannot be one."""
    key = key.strip()
    if not key:
        raise SetupError(_("Type or paste the store's key-hash."), field="key")
    if len(key) > KEY_MAX:
        raise SetupError(_("The key-hash has at most {count} characters: paste it again.").format(count=KEY_MAX),
                         field="key")
    problem = key_hash_problem(key)
    if problem:
        raise SetupError(_("The key-hash {problem}: it is letters, digits and symbols only (no spaces or line "
                           "breaks); paste it again.").format(problem=problem), field="key")
    return key


def environment_key(env: Mapping[str, str] = os.environ) -> str:
    """``POS_KEY_HASH`` as the app will send it (not trimmed: the app does not trim it
    either); ``SetupError`` saying what is wrong with it and how to change it."""
    key = env.get("POS_KEY_HASH", "")
    problem = key_hash_problem(key)
    if problem:
        raise SetupError(_("POS_KEY_HASH, set in this app's environment, {problem}: set it again without it (or "
                           "remove it to keep the key-hash in the keyring), then start the app again.").format(
                               problem=problem), field="key")
    return key


FIELD_NAMES = {
    "base_url": N_("base url"),
    "gateway": N_("gateway"),
    "store_id": N_("store id"),
    "store_name": N_("store name"),
    "station_id": N_("station id"),
    "terminal_id": N_("terminal id"),
    "printer": N_("printer"),
}
"""Each setup field as a sentence names it ("Type the store id.")."""


def field_name(field: str) -> str:
    """``field`` (a setting) as a sentence names it, in the language in force."""
    return _(FIELD_NAMES[field]) if field in FIELD_NAMES else field.replace("_", " ")


def _identifier(field: str, value: str) -> str:
    value = value.strip()
    if not value:
        raise SetupError(_("Type the {field}.").format(field=field_name(field)), field=field)
    if not _ID.fullmatch(value):
        raise SetupError(_("The {field} is 1 to 64 letters, digits, dots, dashes or underscores "
                           "(starting with a letter or digit).").format(field=field_name(field)), field=field)
    return value


def _optional_id(field: str, value: str | None) -> str | None:
    value = (value or "").strip()
    if not value:
        return None
    if len(value) > 64 or _has_control(value) or any(c.isspace() for c in value):
        raise SetupError(_("The {field} has at most 64 characters and no spaces.").format(field=field_name(field)),
                         field=field)
    return value


def _printer(value: str | None) -> str | None:
    value = (value or "").strip()
    if not value:
        return None
    if len(value) > 127 or _has_control(value) or any(c.isspace() or c in "/#" for c in value):
        raise SetupError(_("A printer name has no spaces, '/' or '#' (as the print system names it); "
                           "leave it empty to print through the print dialog."), field="printer")
    return value


def _has_control(text: str) -> bool:
    return any(unicodedata.category(c).startswith("C") for c in text)


def _bad_url_sentence(url: str) -> str:
    if url.startswith("http://"):
        return _("The service address must start with https:// (plain http:// is only for the local "
                 "sandbox on 127.0.0.1).")
    return _("The service address must look like https://payments.example.com.")


def refuse_key_in(setup: StationSetup, key: str) -> None:
    """``SetupError`` when the key-hash was typed into one of the settings."""
    for field, value in setup.entries().items():
        if value == key or (len(key) >= 8 and key in value):
            raise SetupError(_("The key-hash was typed into the {field}: it never goes into "
                               "store.toml. Put it only in the key-hash field.").format(field=field_name(field)),
                             field=field)


# -- store.toml ----------------------------------------------------------------------------


def read_existing(directory: Path) -> dict[str, Any]:
    """The settings of ``<directory>/store.toml`` as far as they can be read (to prefill a
    form); empty when there is no file or it cannot be read."""
    try:
        raw = tomllib.loads(profile_path(directory).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    return {k: v for k, v in raw.items() if k in SETUP_KEYS and isinstance(v, str)}


def write_profile(directory: Path, setup: StationSetup, *, key: str | None = None) -> ProvisionResult:
    """Write ``<directory>/store.toml`` atomically; see the module docstring. ``key``, when
    given, is refused wherever it appears in a value."""
    if key:
        refuse_key_in(setup, key)
    path = profile_path(directory)
    existing, broken = _existing_profile(path)
    document = updated_profile(existing, setup)
    values = document.unwrap()
    try:
        check_profile_values(values, path)  # the whole profile as the app will load it
    except ConfigError:
        if existing is None:
            raise
        broken = True  # its other settings cannot be used: kept aside, a fresh file written
        document = updated_profile(None, setup)
        values = document.unwrap()
        check_profile_values(values, path)
    text = tomlkit.dumps(document)
    if tomllib.loads(text) != values:  # pragma: no cover - tomlkit's own guarantee
        raise SetupError(_("store.toml could not be written faithfully; nothing was changed."))
    try:
        directory.mkdir(parents=True, exist_ok=True)
        backup = None
        if broken:
            backup = path.with_name(PROFILE_NAME + ".bak")
            shutil.copy2(path, backup)
        _replace_atomically(path, text)
    except OSError as error:
        raise SetupError(_("{file} cannot be written ({error}): check the folder's "
                           "permissions and free space, or set POS_DATA_DIR.").format(
                               file=path, error=error.strerror or error)) from error
    kept = tuple(sorted(name for name in values if name not in SETUP_KEYS))
    return ProvisionResult(path, setup.keyring_user, "", kept, backup)


def updated_profile(existing: str | None, setup: StationSetup) -> tomlkit.TOMLDocument:
    """``existing`` (a ``store.toml``'s text; None: a new file, with a header saying where
    the key-hash is) with the setup's settings set in place, or removed when empty; every
    other entry, table (another tool's too), comment and blank line kept as written."""
    if existing is None:
        document = tomlkit.document()
        # the file's header stays in English, as the settings' names it goes with do
        document.add(tomlkit.comment("pos-app store profile (written by `pos-app setup`). The key-hash is not "
                                     "here: it is in"))  # not for people
        document.add(tomlkit.comment(f"the OS keyring (service {KEYRING_SERVICE!r}, user "  # not for people
                                     "'<store_id>@<base_url>') or POS_KEY_HASH."))
        document.add(tomlkit.nl())
    else:
        document = tomlkit.parse(existing)
    entries = setup.entries()
    for name in SETUP_KEYS:
        if name in entries:
            document[name] = entries[name]
        elif name in document:
            del document[name]
    return document


def _existing_profile(path: Path) -> tuple[str | None, bool]:
    """The text of the ``store.toml`` at ``path`` to update (None when there is none, or it
    cannot be used: then whether to keep it as ``store.toml.bak``, never when it holds a key)."""
    try:
        text = path.read_text(encoding="utf-8")
        tomlkit.parse(text)
    except FileNotFoundError:
        return None, False
    except (OSError, UnicodeDecodeError, TOMLKitError):
        return None, path.exists()
    if _holds_a_key(text):
        return None, False
    return text, False


def _holds_a_key(text: str) -> bool:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return any(holds_a_key(name) for name in raw)


def _replace_atomically(path: Path, text: str) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if hasattr(os, "O_DIRECTORY"):  # the rename itself survives a power cut (POSIX)
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


# -- the keyring ---------------------------------------------------------------------------


def store_key(base_url: str, store_id: str, key: str) -> str:
    """Put ``key`` into the OS keyring for this store and read it back; returns the
    backend's name. ``NoKeyring`` (never showing the key) when that is not possible."""
    user = f"{store_id}@{base_url}"
    try:
        import keyring
        from keyring.errors import KeyringLocked, NoKeyringError
    except ImportError:
        raise NoKeyring(_("the keyring package is missing")) from None
    try:
        backend = keyring.get_keyring()
        name = f"{type(backend).__module__}.{type(backend).__name__}"
        keyring.set_password(KEYRING_SERVICE, user, key)
        stored = keyring.get_password(KEYRING_SERVICE, user)
    except NoKeyringError:
        raise NoKeyring(_("this computer has no usable OS keyring")) from None
    except KeyringLocked:
        raise NoKeyring(_("the OS keyring is locked (unlock it, e.g. by signing in to the desktop, and try "
                          "again)")) from None
    except Exception as error:  # noqa: BLE001 - D-Bus, Secret Service, KWallet... all mean the same here
        raise NoKeyring(_("the OS keyring refused the key-hash ({error})").format(error=type(error).__name__)) from None
    if stored != key:
        raise NoKeyring(_("the OS keyring ({backend}) did not keep the key-hash").format(backend=name))
    return name


def keyring_usable() -> bool:
    """Whether this computer has an OS keyring backend (not that it is unlocked: saving says)."""
    try:
        import keyring
        from keyring.backends import fail, null

        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - a backend that fails to load means there is none
        return False
    return not isinstance(backend, (fail.Keyring, null.Keyring))


def key_source(env: Mapping[str, str] = os.environ) -> KeySource:
    """Where the key-hash will live on this computer (see ``KeySource``); asks the keyring
    library which backend it has (D-Bus on Linux: call it off the GUI thread)."""
    if env.get("POS_KEY_HASH"):
        return KeySource.ENVIRONMENT
    return KeySource.KEYRING if keyring_usable() else KeySource.SESSION


def set_key_instructions(platform: str = sys.platform) -> str:
    """Exactly how to give the app ``POS_KEY_HASH`` on this system, for a person."""
    if platform.startswith("win"):
        return _('In a Command Prompt, run  setx POS_KEY_HASH "<key-hash>"  then start the app again '
                 "(it is kept in your Windows user's environment).")
    if platform == "darwin":
        return _("In Terminal, run  launchctl setenv POS_KEY_HASH '<key-hash>'  then start the app again "
                 "(it lasts until the Mac restarts).")
    return _("Put the line  POS_KEY_HASH=<key-hash>  in ~/.config/environment.d/pos-app.conf, make the file "
             "yours only (chmod 600), then sign out and in again; or start the app from a terminal with  "
             "POS_KEY_HASH='<key-hash>' pos-app")


def _no_keyring(why: str) -> str:
    return _("no keyring: {why}; set POS_KEY_HASH in the app's environment instead, or install and "
             "unlock a keyring (GNOME Keyring, KWallet, the macOS or Windows keychain).").format(why=why)


# what the audit trail keeps (a record, in English as the rest of its entries)
KEPT = {KeySource.ENVIRONMENT: "key-hash from POS_KEY_HASH, not stored",  # not for people
        KeySource.SESSION: "key-hash for this session only, not stored (no keyring)"}  # not for people


def provision(directory: Path, setup: StationSetup, key: str, *, by: str = "setup",
              source: KeySource = KeySource.KEYRING) -> ProvisionResult:
    """The key-hash into the keyring (when ``source`` says it lives there), then
    ``store.toml``; nothing is written when the key is refused. The change is written to
    the audit trail (``by``; the settings and where the key lives, never the key)."""
    key = check_key(key)
    refuse_key_in(setup, key)
    check_profile_values(setup.entries(), profile_path(directory))  # before the keyring: a bad one stores nothing
    backend = store_key(setup.base_url, setup.store_id, key) if source is KeySource.KEYRING else ""
    written = write_profile(directory, setup, key=key)
    settings = ", ".join(f"{name} {value}" for name, value in sorted(setup.entries().items()))
    kept = KEPT.get(source) or f"key-hash in the keyring ({backend or 'none'})"  # not for people
    try:
        with Staff.open(staff_path(directory)) as staff:
            staff.record(by, AuditAction.SETTINGS_CHANGED, f"{written.profile}: {settings}; {kept}")
    except StaffError as error:
        raise SetupError(_("The store is set up, but the audit trail could not record it ({error}).").format(
            error=error)) from None
    return ProvisionResult(written.profile, written.keyring_user, backend, written.kept, written.previous_saved_as)


# -- the first manager ----------------------------------------------------------------------


def check_manager(name: str, pin: str, again: str) -> tuple[str, str]:
    """The manager's name and PIN, typed twice; ``SetupError`` (field ``manager`` or ``pin``)
    with the rule broken, never the PIN."""
    try:
        name = check_name(name)
    except InvalidName as error:
        raise SetupError(_("Type the manager's name.") if not name.strip()
                         else _("The manager's name: {error}.").format(error=error), field="manager") from None
    try:
        check_pin(pin)
    except InvalidPin:
        raise SetupError(_("The manager's PIN is {min} to {max} digits (0-9).").format(
            min=PIN_MIN_DIGITS, max=PIN_MAX_DIGITS), field="pin") from None
    if pin != again:
        raise SetupError(_("The two PINs are not the same: type the PIN twice again."), field="pin")
    return name, pin


def managers(directory: Path) -> list[str]:
    """The names of the managers in ``<directory>``'s staff file (none when there is no file)."""
    path = staff_path(directory)
    if not path.exists():
        return []
    with Staff.open(path) as staff:
        return [m.name for m in staff.list() if m.is_manager]


def provision_station(directory: Path, setup: StationSetup, key: str, manager: tuple[str, str] | None, *,
                      source: KeySource = KeySource.KEYRING) -> None:
    """``provision``, then the first manager (slow: PIN hashing; call it off the GUI thread).
    A name already in the staff file is refused before anything is written."""
    if manager is not None and staff_path(directory).exists():
        with Staff.open(staff_path(directory)) as staff:
            if any(m.name.casefold() == manager[0].casefold() for m in staff.list()):
                raise SetupError(_("A staff member named {name} already exists: choose another name.").format(
                    name=manager[0]), field="manager")
    provision(directory, setup, key, source=source)
    if manager is not None:
        with Staff.open(staff_path(directory)) as staff:
            try:
                staff.add(manager[0], Role.MANAGER, manager[1], by="setup")
            except StaffError as error:
                raise SetupError(_("The store is set up, but the manager could not be added ({error}): "
                                   "change the name or PIN and save again.").format(error=error),
                                 field="manager") from None


# -- asking the service --------------------------------------------------------------------


async def check_service(base_url: str, key: str, *, store_id: str = "-", station_id: str = "-",
                        transport: httpx.AsyncBaseTransport | None = None) -> list[Terminal]:
    """The merchant's terminals with this address and key (one try, a one-off client closed
    after); ``SetupError`` with the sentence for a person otherwise."""
    url = base_url.strip()
    try:
        url = check_base_url(url)
    except InvalidInput:
        raise SetupError(_bad_url_sentence(url), field="base_url") from None
    key = check_key(key)
    try:
        async with PaymentsClient(url, key, identity=Identity(store=store_id, station=station_id),
                                  connect_timeout=5.0, read_timeout=15.0, retry=RetryPolicy(attempts=1),
                                  transport=transport) as client:
            listing = await client.list_terminals()
    except Unauthorized:
        raise SetupError(_("The payment service refused this key-hash (401 Unauthorized): check that it is "
                           "the store's key-hash, complete, and for this service address."), field="key") from None
    except TransportError:
        raise SetupError(_("Cannot reach the payment service at {url}: check the address and this "
                           "computer's network connection.").format(url=url), field="base_url") from None
    except (ProtocolError, NotFound):
        raise SetupError(_("{url} answered, but not as the payment service: check the address.").format(url=url),
                         field="base_url") from None
    except ApiError as error:
        raise SetupError(_("The payment service answered with an error ({status}): try again in "
                           "a moment, or call support.").format(status=error.status_code)) from None
    except PaymentsError:
        raise SetupError(_("The payment service at {url} could not be asked: check the address.").format(url=url),
                         field="base_url") from None
    return list(listing.data)


def terminal_label(terminal: Terminal) -> str:
    """``Front desk — tb-2001 · serial B10-77``; ``Inactive: ...`` first when the service says so."""
    name = terminal.name or _("Terminal")
    if terminal.serial_number:
        text = _("{name} — {id} · serial {serial}").format(name=name, id=terminal.id, serial=terminal.serial_number)
    else:
        text = _("{name} — {id}").format(name=name, id=terminal.id)
    return _("Inactive: {terminal}").format(terminal=text) if terminal.is_active is False else text
