"""``CartStore``: the cart in progress on disk, so a crash or a killed process loses no line.

``save`` is atomic: the JSON goes to a temporary file in the same folder, is fsynced, then
renamed over the cart file (and the folder is fsynced on POSIX), so the file on disk is
always a whole cart: the previous one until the rename, the new one after. It is cheap
enough to call on every change (one small write and two fsyncs; see ``make bench``).

The file is JSON with integers only (money in cents, no floats; a tax rate is a decimal
string): ``{"format": "pos-app cart", "version": 2, "order_key": "cart-…", "next_line_id": 3,
"taxes": [{"id": "…", "name": "…", "rate": "6.25"}, …], "lines": [{"line_id": 1,
"item_id": "…", "name": "…", "sku": "…" | null, "unit_cents": 450, "quantity": 2,
"tax_ids": ["…"]}, …]}``. ``taxes`` are the cart's ``known_rates``: the rates its lines
were rung up with, kept should the merchant stop listing one. Version 3 adds ``customer``
(``{"id", "name", "email", "phone"}`` or null: the customer attached with F6). Versions 1
(no ``taxes``, written before pos-app remembered them) and 2 (no ``customer``) still load.

``load`` checks every field. A file that is not such a cart (``CartCorrupt``) or has an
unknown version (``CartVersionUnknown``) is moved aside as ``<name>.corrupt-<UTC time>``
(never deleted, never overwritten) and the error says where; the next ``load`` then
finds no cart. ``keep_aside`` moves a cart that loads but cannot be used the same way.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pos_app.cart.cart import Cart, CartSnapshot
from pos_app.cart.errors import CartCorrupt, CartError, CartLoadError, CartSaveError, CartVersionUnknown
from pos_app.cart.models import CartLine, OrderCustomer
from pos_app.catalog.models import TaxRate
from pos_app.i18n import _

FORMAT = "pos-app cart"  # not for people
VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
MAX_FILE_BYTES = 4 * 1024 * 1024
"""A cart file larger than this is refused as corrupt (a real cart is a few kilobytes)."""

_TOP_KEYS = {1: {"format", "version", "order_key", "next_line_id", "lines"},
             2: {"format", "version", "order_key", "next_line_id", "taxes", "lines"},
             3: {"format", "version", "order_key", "next_line_id", "taxes", "customer", "lines"}}
_LINE_KEYS = {"line_id", "item_id", "name", "sku", "unit_cents", "quantity", "tax_ids"}
_TAX_KEYS = {"id", "name", "rate"}
_CUSTOMER_KEYS = {"id", "name", "email", "phone"}


def encode(cart: Cart | CartSnapshot) -> bytes:
    """The cart as the file's JSON bytes, from one snapshot of it (safe while the cart changes)."""
    state = cart.snapshot() if isinstance(cart, Cart) else cart
    document = {
        "format": FORMAT,
        "version": VERSION,
        "order_key": state.order_key,
        "next_line_id": state.next_line_id,
        "taxes": [{"id": rate.id, "name": rate.name, "rate": str(rate.rate)} for rate in state.known_rates.values()],
        "customer": None if state.customer is None else {
            "id": state.customer.id, "name": state.customer.name, "email": state.customer.email,
            "phone": state.customer.phone},
        "lines": [
            {
                "line_id": line.line_id,
                "item_id": line.item_id,
                "name": line.name,
                "sku": line.sku,
                "unit_cents": line.unit_cents,
                "quantity": line.quantity,
                "tax_ids": list(line.tax_ids),
            }
            for line in state.lines
        ],
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class _Invalid(ValueError):
    pass


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Invalid(f"{where} must be an integer, got {value!r}")  # not for people
    return value


def _text(value: Any, where: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        raise _Invalid(f"{where} must be a non-empty string, got {value!r}")  # not for people
    return value


def _reject_float(text: str) -> Any:
    raise _Invalid(f"a cart holds no fractional numbers, found {text}")  # not for people


def _reject_constant(text: str) -> Any:
    raise _Invalid(f"a cart holds no {text}")  # not for people


def decode(data: bytes) -> Cart:
    """A cart from the file's bytes; ``CartVersionUnknown`` or ``CartCorrupt`` (``kept_at`` None)."""
    try:
        document = json.loads(
            data.decode("utf-8"), parse_float=_reject_float, parse_constant=_reject_constant
        )
    except (UnicodeDecodeError, json.JSONDecodeError, _Invalid, RecursionError) as exc:
        raise CartCorrupt(_("the saved cart is not valid JSON ({detail})").format(detail=exc), None) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise CartCorrupt(_("the saved cart file is not a pos-app cart"), None)
    version = document.get("version")
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        raise CartVersionUnknown(
            _("the saved cart has format version {version}; this pos-app reads versions "
              "{versions} (was it written by a newer pos-app?)").format(
                version=repr(version), versions=", ".join(map(str, READABLE_VERSIONS))), None,
        )
    try:
        keys = _TOP_KEYS[version]
        if set(document) != keys:
            raise _Invalid(f"fields must be {sorted(keys)}, got {sorted(document)}")  # not for people
        lines_data = document["lines"]
        if not isinstance(lines_data, list):
            raise _Invalid("lines must be a list")  # not for people
        lines = []
        for index, raw in enumerate(lines_data):
            where = f"lines[{index}]"
            if not isinstance(raw, dict) or set(raw) != _LINE_KEYS:
                raise _Invalid(f"{where} must be an object with fields {sorted(_LINE_KEYS)}")  # not for people
            tax_ids = raw["tax_ids"]
            if not isinstance(tax_ids, list) or not all(isinstance(t, str) and t for t in tax_ids):
                raise _Invalid(f"{where}.tax_ids must be a list of ids")  # not for people
            lines.append(
                CartLine(
                    line_id=_int(raw["line_id"], f"{where}.line_id"),
                    item_id=str(_text(raw["item_id"], f"{where}.item_id")),
                    name=str(_text(raw["name"], f"{where}.name")),
                    sku=_text(raw["sku"], f"{where}.sku", optional=True),
                    unit_cents=_int(raw["unit_cents"], f"{where}.unit_cents"),
                    quantity=_int(raw["quantity"], f"{where}.quantity"),
                    tax_ids=tuple(tax_ids),
                )
            )
        return Cart(
            order_key=_text(document["order_key"], "order_key"),
            lines=lines,
            next_line_id=_int(document["next_line_id"], "next_line_id"),
            known_rates=_taxes(document.get("taxes", [])),
            customer=_customer(document.get("customer")),
        )
    except ValueError as exc:  # _Invalid, and the rules CartLine and Cart enforce
        raise CartCorrupt(_("the saved cart breaks the cart format: {detail}").format(detail=exc), None) from None


def _customer(data: Any) -> OrderCustomer | None:
    """The ``customer`` of a version 3 file (null: none attached), checked by ``OrderCustomer``."""
    if data is None:
        return None
    if not isinstance(data, dict) or set(data) != _CUSTOMER_KEYS:
        raise _Invalid(f"customer must be null or an object with fields {sorted(_CUSTOMER_KEYS)}")  # not for people
    return OrderCustomer(str(_text(data["id"], "customer.id")), str(_text(data["name"], "customer.name")),
                         _text(data["email"], "customer.email", optional=True),
                         _text(data["phone"], "customer.phone", optional=True))


def _taxes(data: Any) -> list[TaxRate]:
    """The ``taxes`` of a version 2 file: rates as decimal strings, each checked by ``TaxRate``."""
    if not isinstance(data, list):
        raise _Invalid("taxes must be a list")  # not for people
    rates = []
    for index, raw in enumerate(data):
        where = f"taxes[{index}]"
        if not isinstance(raw, dict) or set(raw) != _TAX_KEYS:
            raise _Invalid(f"{where} must be an object with fields {sorted(_TAX_KEYS)}")  # not for people
        rate = raw["rate"]
        try:
            exact = Decimal(rate) if isinstance(rate, str) else None
        except InvalidOperation:
            exact = None
        if exact is None:
            raise _Invalid(f"{where}.rate must be a decimal number as a string, got {rate!r}")  # not for people
        rates.append(TaxRate(str(_text(raw["id"], f"{where}.id")), str(_text(raw["name"], f"{where}.name")), exact))
    return rates


def _fsync_folder(folder: Path) -> None:
    if os.name != "posix":
        return  # Windows: os.replace is atomic; a folder cannot be opened to fsync
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class CartStore:
    """The cart file at ``path`` (e.g. ``<data dir>/cart.json``); its folder is created on save.

    Thread-safe: saves are serialised by a lock. One process per cart file.
    """

    def __init__(self, path: str | os.PathLike[str], *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)):
        self._path = Path(path)
        self._clock = clock
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self._path

    def _temp_path(self) -> Path:
        return self._path.with_name(f".{self._path.name}.tmp-{os.getpid()}-{threading.get_ident()}")

    def save(self, cart: Cart | CartSnapshot) -> None:
        """Write ``cart`` atomically (temp file, fsync, rename, folder fsync).

        ``CartSaveError`` when it cannot be written: the previous file is untouched and
        the temporary file removed. Usable as ``cart.on_change``, or from a disk thread
        while the cart keeps changing (one ``snapshot()`` is written).
        """
        data = encode(cart)
        with self._lock:
            temp = self._temp_path()
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view):]
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(temp, self._path)
                _fsync_folder(self._path.parent)
            except OSError as exc:
                try:
                    temp.unlink(missing_ok=True)
                except OSError:
                    pass
                raise CartSaveError(
                    _("the cart could not be saved to {path} ({detail}); the previously saved cart is kept").format(
                        path=self._path, detail=exc)
                ) from None

    def load(self) -> Cart | None:
        """The saved cart, or None when there is none.

        ``CartCorrupt`` / ``CartVersionUnknown`` (both ``CartLoadError``) for a file that
        cannot be used: it was moved aside first, and ``kept_at`` says where. Leftover
        temporary files of an interrupted save are removed.
        """
        with self._lock:
            self._remove_leftovers()
            try:
                with self._path.open("rb") as handle:
                    data = handle.read(MAX_FILE_BYTES + 1)
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise CartError(_("the saved cart {path} cannot be read: {detail}").format(
                    path=self._path, detail=exc)) from None
            try:
                if len(data) > MAX_FILE_BYTES:
                    raise CartCorrupt(_("the saved cart is larger than {most} bytes").format(most=MAX_FILE_BYTES),
                                      None)
                return decode(data)
            except CartLoadError as error:
                kept = self._keep_aside()
                if kept:
                    said = f"{self._path}: {error}"
                else:
                    said = _("{path}: {error}; it could not be moved aside and stays where it is").format(
                        path=self._path, error=error)
                raise type(error)(said, kept) from None

    def keep_aside(self) -> Path | None:
        """Move the saved cart aside as ``<name>.unusable-<UTC time>`` (a cart that loads but
        cannot be used: the counter starts a new sale); where it went, or None when there
        was no file or it could not be moved."""
        with self._lock:
            if not self._path.exists():
                return None
            return self._keep_aside("unusable")

    def _keep_aside(self, why: str = "corrupt") -> Path | None:
        stamp = self._clock().astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
        for attempt in range(1000):
            suffix = f".{why}-{stamp}" + (f"-{attempt}" if attempt else "")
            target = self._path.with_name(self._path.name + suffix)
            if target.exists():
                continue
            try:
                os.replace(self._path, target)
            except OSError:
                return None
            return target
        return None

    def _remove_leftovers(self) -> None:
        for leftover in self._path.parent.glob(f".{self._path.name}.tmp-*"):
            try:
                leftover.unlink()
            except OSError:
                pass
