"""Orders parked on a payment link (phone orders), in the journal's file (``ParkedBook``, a
part of ``Journal``).

Why the journal and not a file of their own: a parked order is money on its way, and its
completion must happen once whoever sees the link paid (this app, a second process on the
same data folder, the same app after a kill -9). The journal's transactions make "paid"
a row that only one writer can insert (a unique index per order), in the same file that
holds the order's totals, so the order's link payment is one of its payment lines for the
shift figures.

Each parking is a row per stage, append-only, named by its ``parking_id``:

- ``parking``: written before the link is asked for (the order key, the amount, the
  contact, the cart as it was, the cashier); at most one parking of an order is live;
- ``parked``: the service made the link (its id and address); the watcher follows it;
- ``paid``: the link was seen paid for the amount asked (its payment id, the surcharge
  the customer paid); at most one per order, whoever inserts it completes the order;
- ``receipted``: the completed order's receipt was handed out;
- ``returned``: the link was deleted (the service confirmed) and the order came back to
  the lane; ``failed``: no link was made or sent (nothing can be paid), the order stayed.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from pos_app.i18n import N_, _
from pos_app.journal.cash import check_cents
from pos_app.journal.codec import dump_json, load_json, parse_time, time_text


class ParkStage(StrEnum):
    PARKING = "parking"
    PARKED = "parked"
    PAID = "paid"
    RECEIPTED = "receipted"
    RETURNED = "returned"
    FAILED = "failed"


STAGES = {
    ParkStage.PARKING: N_("parking"),
    ParkStage.PARKED: N_("parked"),
    ParkStage.PAID: N_("paid"),
    ParkStage.RECEIPTED: N_("receipted"),
    ParkStage.RETURNED: N_("returned"),
    ParkStage.FAILED: N_("failed"),
}
"""Each stage as the refusals name it ("parked order o-1 is paid: it cannot be returned now")."""

WAITING = (ParkStage.PARKING, ParkStage.PARKED)
"""A parking in one of these stages holds its order (its link may still be paid)."""
ENDED = (ParkStage.PAID, ParkStage.RECEIPTED, ParkStage.RETURNED, ParkStage.FAILED)


class ParkingRefused(ValueError):
    """A parking step the journal refuses (its sentence says why): a second live parking
    of an order, a stage out of turn."""


@dataclass(frozen=True)
class ParkedOrder:
    """One parking of an order on a payment link, as its rows so far tell it; cents."""

    parking_id: str
    order_key: str
    stage: ParkStage
    amount: int
    """What the link asks: the order's balance, its tax included."""
    contact: str
    """The phone number or email the link was sent to."""
    cart: str
    """The cart as it was parked (``pos_app.cart.store.encode``'s JSON)."""
    cashier: str | None
    parked_at: datetime
    link_id: str | None = None
    url: str | None = None
    payment_id: str | None = None
    surcharge: int = 0
    """What the customer paid above ``amount`` (the card surcharge), once paid."""
    paid_at: datetime | None = None
    detail: str | None = None
    """Why it failed or came back; what completed it."""

    @property
    def waiting(self) -> bool:
        return self.stage in WAITING

    @property
    def paid(self) -> bool:
        return self.stage in (ParkStage.PAID, ParkStage.RECEIPTED)


COLUMNS = "seq, parking_id, order_key, stage, recorded_at, data"  # not for people
ROWS_SQL = f"SELECT {COLUMNS} FROM parked_orders WHERE parking_id IN (SELECT value FROM json_each(?)) ORDER BY seq"
LIVE_SQL = ("SELECT parking_id FROM parked_orders WHERE order_key = ? GROUP BY parking_id "
            "HAVING sum(stage IN ('paid', 'receipted', 'returned', 'failed')) = 0")
SHOWN_SQL = ("SELECT parking_id FROM parked_orders GROUP BY parking_id "
             "HAVING sum(stage IN ('paid', 'receipted', 'returned', 'failed')) = 0 OR max(recorded_at) >= ?")


def new_parking_id() -> str:
    """``p-`` and 16 URL-safe characters: a parking's id."""
    return "p-" + secrets.token_urlsafe(12)


def fold(rows: Iterable[Any]) -> list[ParkedOrder]:
    """Parkings from their rows (oldest first), in the order they began."""
    found: dict[str, ParkedOrder] = {}
    for _seq, parking_id, order_key, stage_text, at, data_text in rows:
        stage, data, when = ParkStage(stage_text), load_json(data_text), parse_time(at)
        if stage is ParkStage.PARKING:
            found[parking_id] = ParkedOrder(parking_id, order_key, stage, data["amount"], data["contact"],
                                            data["cart"], data.get("cashier"), when)
            continue
        order = found.get(parking_id)
        if order is None:
            continue
        if stage is ParkStage.PARKED:
            order = replace(order, link_id=data["link_id"], url=data.get("url"))
        elif stage is ParkStage.PAID:
            order = replace(order, payment_id=data.get("payment_id"), surcharge=data.get("surcharge", 0), paid_at=when,
                            detail=data.get("detail"))
        elif stage in (ParkStage.RETURNED, ParkStage.FAILED):
            order = replace(order, detail=data.get("detail"))
        if stage is not ParkStage.RECEIPTED or order.stage is ParkStage.PAID:
            order = replace(order, stage=stage)
        found[parking_id] = order
    return list(found.values())


class ParkedBook:
    """The parked orders' part of ``Journal`` (its transactions, its clock)."""

    def _write(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _read(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _now(self) -> str:
        raise NotImplementedError

    def begin_parking(self, order_key: str, amount: int, *, contact: str, cart: str,
                      cashier: str | None) -> ParkedOrder:
        """The order about to be parked on a link of ``amount`` cents sent to ``contact``,
        durably, before the link is asked for. ``ParkingRefused`` while another parking of
        the order is live (never two links for one order) or once the order was paid by one."""
        check_cents(amount, "a payment link's amount", positive=True)  # not for people
        if not order_key.strip() or not contact.strip() or not cart.strip():
            raise ValueError("a parking names its order, its contact and its cart")  # not for people
        parking_id = new_parking_id()
        with self._write(_("parking order {order}").format(order=order_key)) as conn:
            live = conn.execute(LIVE_SQL, (order_key,)).fetchone()
            if live is not None:
                raise ParkingRefused(_("order {order} is already waiting on a payment link ({parking})").format(
                    order=order_key, parking=live[0]))
            if conn.execute("SELECT 1 FROM parked_orders WHERE order_key = ? AND stage = 'paid'",
                            (order_key,)).fetchone():
                raise ParkingRefused(_("order {order} was paid by its payment link already").format(order=order_key))
            self._insert_stage(conn, parking_id, order_key, ParkStage.PARKING,
                         {"amount": amount, "contact": contact, "cart": cart, "cashier": cashier})
            return self._parking(conn, parking_id)

    def record_link(self, parking: ParkedOrder, link_id: str, url: str | None) -> ParkedOrder:
        """The service made the parking's link."""
        return self._step(parking, ParkStage.PARKED, {"link_id": link_id, "url": url}, after=(ParkStage.PARKING,))

    def end_parking(self, parking: ParkedOrder, stage: ParkStage, detail: str) -> ParkedOrder:
        """``returned`` (the link deleted, the order back at the lane) or ``failed`` (no link
        was made or sent), with why."""
        if stage not in (ParkStage.RETURNED, ParkStage.FAILED):
            raise ValueError(f"a parking ends returned or failed here, not {stage}")  # not for people
        return self._step(parking, stage, {"detail": detail}, after=WAITING)

    def record_link_paid(self, parking: ParkedOrder, *, payment_id: str | None, surcharge: int,
                         detail: str) -> ParkedOrder | None:
        """The parking's link was seen paid: the order is complete. The parking as paid when
        this call completed it; None when it was complete already (a second sighting, another
        process): its completion happens once."""
        check_cents(surcharge, "a link's surcharge")  # not for people
        with self._write(_("completing parked order {order}").format(order=parking.order_key)) as conn:
            current = self._parking(conn, parking.parking_id)
            if current.paid:
                return None
            if current.stage is not ParkStage.PARKED:
                raise ParkingRefused(_("parked order {order} is {stage}: it cannot be paid now").format(
                    order=parking.order_key, stage=_(STAGES[current.stage])))
            try:
                self._insert_stage(conn, parking.parking_id, parking.order_key, ParkStage.PAID,
                             {"payment_id": payment_id, "surcharge": surcharge, "detail": detail})
            except sqlite3.IntegrityError:
                return None  # another parking of the order was paid (unique per order)
            return self._parking(conn, parking.parking_id)

    def record_receipt(self, parking: ParkedOrder) -> ParkedOrder | None:
        """The completed order's receipt was handed out; None when it was already."""
        with self._write(_("recording the receipt of parked order {order}").format(order=parking.order_key)) as conn:
            current = self._parking(conn, parking.parking_id)
            if current.stage is not ParkStage.PAID:
                return None
            self._insert_stage(conn, parking.parking_id, parking.order_key, ParkStage.RECEIPTED, {})
            return self._parking(conn, parking.parking_id)

    def parked_orders(self, *, since: datetime | None = None) -> list[ParkedOrder]:
        """Every parking still waiting, and (with ``since``) every one that moved since then
        (paid, came back, failed), in the order they began."""
        floor = time_text(since) if since is not None else "9999"
        with self._read(_("reading the parked orders")) as conn:
            ids = [row[0] for row in conn.execute(SHOWN_SQL, (floor,))]
            return fold(conn.execute(ROWS_SQL, (json.dumps(ids),)))

    def paid_parking(self, *, order_key: str | None = None, payment_id: str | None = None) -> ParkedOrder | None:
        """The parking whose link paid the order ``order_key`` (or whose payment is
        ``payment_id``); None when none did."""
        with self._read(_("reading the paid parking of {order}").format(order=order_key or payment_id)) as conn:
            row = conn.execute("SELECT parking_id FROM parked_orders WHERE stage = 'paid' AND (order_key = ? "
                               "OR json_extract(data, '$.payment_id') = ?)", (order_key, payment_id)).fetchone()
            return None if row is None else self._parking(conn, row[0])

    def parking(self, parking_id: str) -> ParkedOrder:
        with self._read(_("reading parking {parking}").format(parking=parking_id)) as conn:
            return self._parking(conn, parking_id)

    def _step(self, parking: ParkedOrder, stage: ParkStage, data: dict[str, Any],
              after: tuple[ParkStage, ...]) -> ParkedOrder:
        with self._write(_("recording parked order {order} {stage}").format(order=parking.order_key,
                                                                              stage=_(STAGES[stage]))) as conn:
            current = self._parking(conn, parking.parking_id)
            if current.stage not in after:
                raise ParkingRefused(_("parked order {order} is {stage}: it cannot be {next} now").format(
                    order=parking.order_key, stage=_(STAGES[current.stage]), next=_(STAGES[stage])))
            self._insert_stage(conn, parking.parking_id, parking.order_key, stage, data)
            return self._parking(conn, parking.parking_id)

    def _insert_stage(self, conn: sqlite3.Connection, parking_id: str, order_key: str, stage: ParkStage,
                data: dict[str, Any]) -> None:
        conn.execute("INSERT INTO parked_orders (parking_id, order_key, stage, recorded_at, data) "
                     "VALUES (?, ?, ?, ?, ?)",
                     (parking_id, order_key, stage.value, self._now(), dump_json(data, what="a parked order")))

    @staticmethod
    def _parking(conn: sqlite3.Connection, parking_id: str) -> ParkedOrder:
        found = fold(conn.execute(ROWS_SQL, (json.dumps([parking_id]),)))
        if not found:
            raise ParkingRefused(_("no parked order {parking} in the journal").format(parking=parking_id))
        return found[0]
