"""Where the app's settings, secrets and files come from: the typed ``StoreConfig``.

``StoreConfig``'s fields are the settings, declared once: their types, defaults and
limits, and the sentence a refused value gets. ``load_config`` fills them with
pydantic-settings from the layers ``pos_app.profile`` reads (light: the app's first
screen reads how to start from it), highest first:

- Env vars: ``POS_<SETTING>`` for any setting (``POS_BASE_URL``, ``POS_GATEWAY``,
  ``POS_READ_TIMEOUT``...; ``POS_TERMINAL`` also names ``terminal_id``), and
  ``POS_DATA_DIR`` (journal, config and logs go under it).
- The station's ``<data dir>/store.toml``.
- The station's entry in the ``[stations]`` table (by ``station_id``): its terminal and
  printer.
- The store profile an installer was built with (``store-profile.toml`` next to the
  executable; ``POS_PROFILE`` or ``pos-app --profile FILE`` name another); ``mode =
  "training"`` starts the app on the built-in sandbox (the demo store).

Tables (``[routes]``, ``[stations]``) merge entry by entry across the layers. A value that
cannot be used is refused with the file (or env var) and the setting to fix, never
half-used: an unknown setting, a wrong type, a timeout that is not a number of seconds
more than 0 (``nan`` and ``inf`` included). A table pos-app does not know is another
tool's and left alone, unless its name is a near miss of one it knows (``[route]``).

Key-hash: the OS keyring (service ``pos-app``, user ``<store>@<base url>``), or the
``POS_KEY_HASH`` env var for automation; it is not a setting (never in the model, its
dumps or reprs), never in a file, a log or an error message.
"""

from __future__ import annotations

import difflib
import os
from abc import abstractmethod
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
)
from pydantic_settings.sources.utils import parse_env_vars

from pos_app.i18n import N_, _
from pos_app.membership_plans import MembershipPlan, plan_sentence, unique_names
from pos_app.profile import (
    ENV_PREFIX,
    ConfigError,
    ConfigProblem,
    Layer,
    Layers,
    Mode,
    Theme,
    env_name,
    layered,
    profile_path,
    read_layers,
    read_profile,
)

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

    from pos_app.api.routes import RouteTable

KEYRING_SERVICE = "pos-app"
TRAINING_BASE_URL = "http://127.0.0.1"
"""Stands for the built-in sandbox in a training profile (its port is picked at start)."""
MAX_SECONDS = 86_400.0
"""The longest timeout a setting may give (a day): longer is a typo, and a wait the
event loop's timers cannot hold."""
MAX_CASH_CENTS = 10_000_000
"""The most a cash setting may give (100,000.00 in cents): more is a typo (a float of dollars
typed with its cents twice, say)."""
CASH_DRAWER_PRINTER = "printer"
"""The ``cash_drawer`` value of a drawer plugged into the receipt printer (opened by a pulse
sent to ``printer``); any other value is the path of the drawer's device."""
ENV_ALIASES = {"POS_TERMINAL": env_name("terminal_id")}
"""Env vars older than ``POS_<SETTING>``, kept for the scripts that set them."""


class Gateway(StrEnum):
    """How a sale's outcome is learnt: ``s`` (asynchronous, polled), ``b`` (synchronous),
    or ``auto`` (by the merchant's type)."""

    AUTO = "auto"
    S = "s"
    B = "b"


GATEWAYS = tuple(Gateway)

Seconds = Annotated[float, Field(strict=True, gt=0, le=MAX_SECONDS, allow_inf_nan=False,
                                 description=N_("a number of seconds, more than 0 and at most {max_seconds}"))]
"""A timeout: ``strict`` refuses text and true/false (a TOML ``"30"`` is a typo, not 30)."""

Cents = Annotated[int, Field(strict=True, ge=0, le=MAX_CASH_CENTS,
                             description=N_("a whole number of cents (minor units), from 0 to {max_cents}, "
                                            "e.g. 15000 for 150.00"))]
"""An amount of cash: integer minor units as everywhere inside the app (never a float of
dollars: ``150.0`` and ``"150"`` are refused, not guessed)."""


class StationProfile(BaseModel):
    """One station (lane) of a store profile's ``[stations]`` table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, description=N_('a name, e.g. name = "Lane 1"'))
    terminal_id: str | None = Field(default=None, description=N_("the lane's payment terminal id"))
    printer: str | None = Field(default=None, description=N_("the lane's receipt printer (its OS print system name)"))

    @field_validator("name")
    @classmethod
    def _named(cls, name: str) -> str:
        if not name.strip():
            raise ValueError("blank")
        return name


class StoreConfig(BaseSettings):
    """A station's settings, checked. Built in code it takes only what it is given (the
    tests, the training store); ``load_config`` builds it from the settings' layers."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_ignore_empty=True, frozen=True, extra="forbid",
                                      validate_default=True)

    base_url: str = Field(description=N_("the payment service's address, e.g. https://payments.example.com"))
    gateway: Gateway = Field(default=Gateway.AUTO, description=N_("one of {gateways}"))
    store_id: str = Field(default="-", description=N_("the store's id"))
    store_name: str = Field(default="", description=N_("the store's name, as receipts print it"))
    station_id: str = Field(default="-", description=N_("this station's id (its entry in [stations])"))
    cashier_id: str = Field(default="-", description=N_("the cashier id sent with each payment"))
    connect_timeout: Seconds = 5.0
    read_timeout: Seconds = 30.0
    poll_wait_limit: Seconds = 180.0
    terminal_id: str | None = Field(default=None, description=N_("this station's payment terminal id"))
    printer: str | None = Field(default=None, description=N_("the receipt printer's name in the OS print system"))
    cash_drawer: str | None = Field(
        default=None,
        description=N_('"{printer}" (a drawer plugged into the receipt printer) or the absolute path of the '
                       "drawer's own device, e.g. /dev/usb/lp0; unset: no drawer (it is opened with its key)"))
    theme: Theme = Field(default=Theme.LIGHT, description=N_("one of {themes}"))
    currency: str = Field(default="USD", description=N_("a three-letter ISO 4217 code like USD, EUR or JPY"))
    locale: str | None = Field(default=None,
                               description=N_("how money is written and typed (en_US, de_DE...); unset: the OS's"))
    language: str | None = Field(
        default=None, description=N_("the store's language (en, es, fr): receipts, reports, the customer's screen, "
                                     "and the screens of a cashier without a language of their own; unset: the OS's"))
    routes: Mapping[str, str] = Field(default_factory=dict,
                                      description=N_("a table of route names to 'METHOD /path' overrides"))
    mode: Mode = Field(default=Mode.STORE, description=N_("one of {modes}"))
    stations: Mapping[str, StationProfile] = Field(default_factory=dict, description=N_("the store's stations"))
    opening_float: Cents = 0
    """The cash in the drawer when the first shift starts (before any Z report: after one, the
    float is what that Z left in the drawer)."""
    cash_difference_limit: Cents = 500
    """How far the counted cash may be over or short of the expected cash before a Z needs a
    reason (and in the app a manager's PIN)."""
    memberships: tuple[MembershipPlan, ...] = Field(
        default=(), description=N_("a list of [[memberships]] tables, each with name, amount (cents), every_months "
                                   "and day or every_days, payments"))
    data_dir: Path = Field(default=Path("."), description=N_("the data folder (POS_DATA_DIR)"))

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)  # the layers are load_config's: a config built in code reads no env, no file

    @field_validator("gateway", mode="before")
    @classmethod
    def _gateway_any_case(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("base_url")
    @classmethod
    def _address(cls, url: str) -> str:
        from pos_app.api.address import check_base_url  # the client's package: imported when a config is made

        return check_base_url(url)

    @field_validator("currency")
    @classmethod
    def _currency(cls, code: str) -> str:
        from pos_app.money import check_currency

        return check_currency(code)

    @field_validator("locale")
    @classmethod
    def _locale(cls, name: str | None) -> str | None:
        from pos_app.money import check_locale

        return check_locale(name) if name else None

    @field_validator("language")
    @classmethod
    def _language(cls, name: str | None) -> str | None:
        from pos_app.i18n import check_language

        return check_language(name) if name else None

    @field_validator("cash_drawer")
    @classmethod
    def _cash_drawer(cls, value: str | None, info: ValidationInfo) -> str | None:
        """``printer`` (any case) with a printer set, or an absolute path; None: no drawer."""
        if value is None:
            return None
        if value.strip().lower() == CASH_DRAWER_PRINTER:
            if "printer" in info.data and not info.data["printer"]:
                raise ValueError(_('"{printer}" opens the drawer through the receipt printer, but no '
                                   "printer is set: set printer (POS_PRINTER) to the printer the drawer is plugged "
                                   "into, or give the drawer's own device path, e.g. /dev/usb/lp0").format(
                                       printer=CASH_DRAWER_PRINTER))
            return CASH_DRAWER_PRINTER
        if not Path(value).is_absolute():
            raise ValueError(_('{value} is neither "{printer}" (a drawer plugged into the receipt '
                               "printer) nor an absolute path of the drawer's device (e.g. /dev/usb/lp0, or "
                               "{com_port} on Windows); leave it out for a station without a drawer").format(
                                   value=repr(value), printer=CASH_DRAWER_PRINTER, com_port="\\\\.\\COM3"))
        return value

    @field_validator("memberships")
    @classmethod
    def _plans(cls, plans: tuple[MembershipPlan, ...]) -> tuple[MembershipPlan, ...]:
        return unique_names(plans)

    @model_validator(mode="after")
    def _routes(self) -> StoreConfig:
        self.route_table()
        return self

    def replace(self, **changes: Any) -> StoreConfig:
        """A copy with ``changes``, checked as this one was."""
        return type(self)(**{**dict(self), **changes})

    @property
    def journal_path(self) -> Path:
        return self.data_dir / "journal.sqlite3"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite3"

    @property
    def cart_path(self) -> Path:
        return self.data_dir / "cart.json"

    @property
    def staff_path(self) -> Path:
        return self.data_dir / "staff.sqlite3"

    def route_table(self) -> RouteTable:
        from pos_app.api.routes import RouteTable

        return RouteTable(self.routes)

    @property
    def keyring_user(self) -> str:
        return f"{self.store_id}@{self.base_url}"


SETTINGS = tuple(name for name in StoreConfig.model_fields if name != "data_dir")
"""Every setting's name, in the model's order (the data folder is where the files are:
``POS_DATA_DIR``, never a file's setting)."""
TABLES = tuple(name for name in SETTINGS
               if get_origin(StoreConfig.model_fields[name].annotation) in (Mapping, tuple))
"""The settings that are tables (``[routes]``, ``[stations]``, ``[[memberships]]``)."""


# -- the layers, as pydantic-settings sources ------------------------------------------------


class Source(PydanticBaseSettingsSource):
    """A layer of settings: its entries, and where each came from (for the sentence that
    names what to fix)."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        super().__init__(StoreConfig)
        self.values = dict(values)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.values.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self.values)

    @abstractmethod
    def where(self, setting: str) -> str:
        """The file or env var that gave ``setting``, for the sentence that names it."""


class FileSource(Source):
    """A settings file (``store.toml``, an installer's profile); the tables it holds that
    are not pos-app's are left out (another tool's), a near miss of one is refused."""

    def __init__(self, layer: Layer) -> None:
        self.path = layer.path
        super().__init__({name: value for name, value in layer.values.items() if not self._foreign(name, value)})

    def _foreign(self, name: str, value: object) -> bool:
        if name == "data_dir":
            raise ConfigError(_("{file}: data_dir is not a setting of a file: the data folder is the one that "
                                "holds store.toml (POS_DATA_DIR names another)").format(file=self.path))
        if name in SETTINGS or not (isinstance(value, dict) or (isinstance(value, list) and value
                                                                 and all(isinstance(v, dict) for v in value))):
            return False
        near = difflib.get_close_matches(name, TABLES, n=1, cutoff=0.8)
        if near:
            raise ConfigError(_("{file}: [{table}] is not a table pos-app knows: did you mean [{near}]?").format(
                file=self.path, table=name, near=near[0]))
        return True

    def where(self, setting: str) -> str:
        return str(self.path)


class StationEntrySource(Source):
    """This station's entry of ``[stations]`` (by ``station_id``): its terminal and printer,
    under the station's own file and the env vars, over the profile's top level."""

    def __init__(self, profile: Layer | None) -> None:
        super().__init__({})
        self.profile = profile.values if profile is not None else {}
        self.station = "-"

    def __call__(self) -> dict[str, Any]:
        above = self.current_state  # the env vars and the station's file
        self.station = str(above.get("station_id", self.profile.get("station_id", "-")))
        entry = {**_table(self.profile.get("stations")).get(self.station, {}),
                 **_table(above.get("stations")).get(self.station, {})}
        self.values = {key: entry[key] for key in ("terminal_id", "printer") if key in entry}
        return dict(self.values)

    def where(self, setting: str) -> str:
        return f"[stations.{self.station}]"


def _table(value: object) -> dict[str, dict[str, Any]]:
    return {name: entry for name, entry in value.items() if isinstance(entry, dict)} if isinstance(value, dict) else {}


class EnvSource(EnvSettingsSource):
    """The ``POS_*`` env vars of ``env``. Env values are text: a number setting's is read
    as a number here (seconds as a float, cents as an integer: ``POS_OPENING_FLOAT=150.00``
    is refused, not read as 150 cents), then checked by the model as a file's would be."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.given = env
        self.env = {**{new: env[old] for old, new in ENV_ALIASES.items() if old in env and new not in env}, **env}
        super().__init__(StoreConfig)
        self.values: dict[str, Any] = {}

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(self.env, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)

    def prepare_field_value(self, field_name: str, field: FieldInfo, value: Any, value_is_complex: bool) -> Any:
        if isinstance(value, str) and field.annotation in (float, int):
            try:
                return float(value) if field.annotation is float else int(value)
            except ValueError:
                return value  # refused by the model, with the variable named
        return super().prepare_field_value(field_name, field, value, value_is_complex)

    def __call__(self) -> dict[str, Any]:
        self.values = super().__call__()
        return self.values

    def where(self, setting: str) -> str:
        aliases = [old for old, new in ENV_ALIASES.items() if new == env_name(setting) and old in self.given]
        return aliases[0] if aliases and env_name(setting) not in self.given else env_name(setting)


class AppSource(Source):
    """What the app itself sets (the data folder it found)."""

    def where(self, setting: str) -> str:
        return "POS_DATA_DIR"


# -- loading -------------------------------------------------------------------------------


def load_config(env: Mapping[str, str] = os.environ) -> StoreConfig:
    """The station's settings from their layers (see the module docstring), checked as a
    whole; ``ConfigError`` naming the file or env var and the setting to fix."""
    layers = read_layers(env)
    if layered(layers, env, "base_url") is None:
        if layered(layers, env, "mode") == Mode.TRAINING:
            raise ConfigError(_(
                "this station's profile is for training (mode = \"training\"): the app opens it on the built-in "
                "sandbox; the terminal commands need a service: `pos-app sandbox serve`, then set POS_BASE_URL"
            ))
        raise ConfigError(_(
            "no service address: run `pos-app setup` (or the app's setup screen), or set POS_BASE_URL "
            "or base_url in {file}"
        ).format(file=profile_path(layers.directory)), ConfigProblem.NO_SERVICE_ADDRESS)
    return _build(_sources(layers, env))


def check_store_profile(path: Path) -> StoreConfig:
    """A store profile (``packaging/stores/*.toml``, an installer's ``store-profile.toml``)
    checked as the app loads it; a training profile stands on the built-in sandbox."""
    values = read_profile(path)
    if "base_url" not in values:
        if values.get("mode", Mode.STORE) != Mode.TRAINING:
            raise ConfigError(_("{file}: base_url is missing (the service's address, e.g. https://payments.example"
                                '.com); a profile for training says mode = "training"').format(file=path))
        values["base_url"] = TRAINING_BASE_URL
    return _build(_sources(Layers(path.parent, Layer(path, values), None), {}))


def check_profile_values(values: Mapping[str, Any], path: Path) -> StoreConfig:
    """A station's ``store.toml`` entries (``values``, to be written at ``path``) checked
    alone as the app loads them; ``pos_app.provisioning`` checks what it writes with it."""
    return _build(_sources(Layers(path.parent, None, Layer(path, dict(values))), {}))


def _sources(layers: Layers, env: Mapping[str, str]) -> tuple[Source | EnvSource, ...]:
    """The layers, highest first."""
    return tuple(source for source in (
        AppSource({"data_dir": layers.directory}),
        EnvSource(env),
        FileSource(layers.station) if layers.station is not None else None,
        StationEntrySource(layers.profile),
        FileSource(layers.profile) if layers.profile is not None else None,
    ) if source is not None)


def _build(sources: tuple[Source | EnvSource, ...]) -> StoreConfig:
    try:
        # pydantic-settings' argument: the sources to build from (mypy sees only the fields' __init__)
        return StoreConfig(_build_sources=(sources, {}))  # type: ignore[call-arg]
    except SettingsError as error:  # an env var's table that is not JSON
        raise ConfigError(_("{error}: an env var of a table is JSON, e.g. {example}").format(
            error=error, example="""POS_ROUTES='{"terminal.void": "POST /public/terminal/void"}'""")) from error
    except ValidationError as error:
        raise ConfigError(_sentences(error, lambda setting: _where(sources, setting),
                                     lambda setting: _given(sources, setting))) from error


def _where(sources: tuple[Source | EnvSource, ...], setting: str) -> str:
    """The layer a setting's value came from: the highest that has it."""
    for source in sources:
        if setting in source.values:
            return source.where(setting)
    return _("the settings")


def _given(sources: tuple[Source | EnvSource, ...], setting: str) -> object:
    """The value a setting was given, by the highest layer that has it."""
    return next((source.values[setting] for source in sources if setting in source.values), None)


def _sentences(error: ValidationError, where: Callable[[str], str], given: Callable[[str], object]) -> str:
    """One sentence per setting to fix, each naming its file (or env var) and the setting."""
    unknown: dict[str, list[str]] = {}
    sentences: list[str] = []
    for problem in error.errors():
        loc = [str(part) for part in problem["loc"]]
        if not loc:  # the whole model's check: the route table
            sentences.append(f"{where('routes')}: {problem['ctx']['error'] if 'ctx' in problem else problem['msg']}")
        elif problem["type"] == "extra_forbidden" and len(loc) == 1:
            unknown.setdefault(where(loc[0]), []).append(loc[0])
        elif loc[0] == "stations" and len(loc) > 1:
            sentences.append(_station_sentence(where("stations"), loc, problem))
        elif loc[0] == "memberships" and len(loc) > 1:
            sentences.append(plan_sentence(where("memberships"), loc, problem, given("memberships")))
        elif loc[0] == "routes" and len(loc) > 1:
            sentences.append(_("{place}: every [routes] entry must be a string like "
                               "'POST /public/terminal/pay'").format(place=where("routes")))
        else:
            sentences.append(f"{where(loc[0])}: {_value_sentence(loc[0], problem, StoreConfig.model_fields[loc[0]])}")
    for place, names in unknown.items():
        sentences.insert(0, _("{place}: unknown setting(s) {names}; known: {known}").format(
            place=place, names=", ".join(sorted(names)), known=", ".join(SETTINGS)))
    return "; ".join(dict.fromkeys(sentences))


def _value_sentence(setting: str, problem: Any, field: FieldInfo) -> str:
    if problem["type"] == "value_error":
        return f"{setting}: {problem['ctx']['error']}"
    if problem["type"] in {"float_type", "string_type", "dict_type", "mapping_type", "model_type"}:
        return _("{setting} has the wrong type ({type}): it must be {description}").format(
            setting=setting, type=type(problem["input"]).__name__, description=described(field))
    return _("{setting} must be {description}, got {value}").format(
        setting=setting, description=described(field), value=repr(problem["input"]))


def described(field: FieldInfo) -> str:
    """A setting's description (its ``Field``'s, marked ``N_``) in the language in force."""
    if not field.description:
        return ""
    return _(field.description).format(
        max_seconds=f"{MAX_SECONDS:.0f}", max_cents=MAX_CASH_CENTS, printer=CASH_DRAWER_PRINTER,
        gateways=", ".join(Gateway), themes=", ".join(Theme), modes=", ".join(Mode))


def _station_sentence(place: str, loc: list[str], problem: Any) -> str:
    station = f"{place}: [stations.{loc[1]}]"
    known = ", ".join(StationProfile.model_fields)
    if len(loc) == 2:
        return _("{station} must be a table with {known}").format(station=station, known=known)
    if problem["type"] == "extra_forbidden":
        return _("{place}: unknown setting(s) {names}; known: {known}").format(place=station, names=loc[2],
                                                                               known=known)
    if loc[2] == "name":
        return _('{station} needs a name, e.g. name = "Lane 1"').format(station=station)
    return _("{station}: {setting} must be a string").format(station=station, setting=loc[2])


def key_hash(config: StoreConfig, env: Mapping[str, str] = os.environ) -> str:
    """The key-hash from ``POS_KEY_HASH`` or the OS keyring; never logged, never stored in files.
    A value that cannot be sent as a header (a space, a line break, not printable ASCII) is
    refused here, before any request, with a sentence that says where, never the value."""
    if env.get("POS_KEY_HASH"):
        return _usable(env["POS_KEY_HASH"], _("the key-hash in POS_KEY_HASH"), ConfigProblem.ENV_KEY_HASH_UNUSABLE)
    try:
        import keyring

        secret = keyring.get_password(KEYRING_SERVICE, config.keyring_user)
    except Exception as error:  # noqa: BLE001 - any backend's failure (D-Bus, locked, none) means the same
        raise ConfigError(_(
            "cannot read the OS keyring ({error}); set POS_KEY_HASH instead"
        ).format(error=type(error).__name__), ConfigProblem.KEYRING_UNREADABLE) from error
    if not secret:
        raise ConfigError(_(
            "no key-hash for {user} in the OS keyring; store it with `pos-app setup` "
            "or set POS_KEY_HASH"
        ).format(user=config.keyring_user), ConfigProblem.NO_KEY_HASH)
    return _usable(secret, _("the key-hash in the OS keyring (user {user})").format(user=config.keyring_user),
                   ConfigProblem.KEYRING_KEY_HASH_UNUSABLE)


def _usable(secret: str, source: str, kind: ConfigProblem) -> str:
    from pos_app.api.errors import InvalidKeyHash
    from pos_app.api.secrets import check_key_hash

    try:
        return check_key_hash(secret, source=source)
    except InvalidKeyHash as error:
        raise ConfigError(str(error), kind) from error
