"""The journal's cash ledger and Z reports as ``Journal`` methods (``CashLedger``, a part of
``Journal``): each movement and each Z is one committed ``BEGIN IMMEDIATE`` transaction, and
an order's cash line is judged against its balance (``balance``) in that transaction. The
rows and their SQL are ``cash``'s."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

from pos_app.i18n import _
from pos_app.journal import balance, queries
from pos_app.journal.cash import (
    ALL_Z_SQL,
    CASH_COLUMNS,
    LAST_Z_SQL,
    ONE_Z_SQL,
    ORDER_CASH_NET_SQL,
    ORDER_CASH_SQL,
    SINCE_SQL,
    CashEntry,
    CashKind,
    ZReport,
    check_cents,
    entries,
    insert,
    insert_z,
    z_report,
)
from pos_app.journal.errors import InvalidTransition, OrderAlreadyPaid, OrderHasUnknownAttempt


def new_cash_id() -> str:
    """``c-`` and 20 URL-safe characters: a cash movement's id."""
    return "c-" + secrets.token_urlsafe(15)


class CashLedger:
    """The ledger's and the Z reports' part of ``Journal`` (its transactions, its clock)."""

    def _write(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _read(self, action: str) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def _now(self) -> str:
        raise NotImplementedError

    def record_cash_sale(self, order_key: str, tendered: int, *, station_id: str | None = None,
                         cashier: str | None = None) -> CashEntry:
        """Cash handed over for the order, durably, before the drawer opens: it pays what is
        due (the order's latest recorded total less its charges and cash), the rest is
        change. Judged in one transaction with the order guard, so a card charge and a cash
        line never both pay the same cents. ``OrderHasUnknownAttempt`` while a card payment
        of the order has no known result, ``OrderAlreadyPaid`` when nothing is due, and
        ``ValueError`` for a bad amount or an order whose total was never recorded."""
        check_cents(tendered, "the cash received", positive=True)  # not for people
        entry_id = new_cash_id()
        with self._write(_("recording cash for order {order}").format(order=order_key)) as conn:
            unresolved = conn.execute(queries.ORDER_OPEN_SQL, (order_key,)).fetchone()
            if unresolved:
                raise OrderHasUnknownAttempt(order_key, unresolved[0], in_flight=unresolved[1] is None)
            due = balance.order_due(conn, order_key)
            if due is None:
                raise ValueError(
                    f"order {order_key!r} has no recorded total: record it before taking cash")  # not for people
            if due[0] <= 0:
                raise OrderAlreadyPaid(order_key, due[1] or "-")
            kept = min(tendered, due[0])
            seq = insert(conn, entry_id, CashKind.SALE, kept, self._now(), order_key=order_key,
                              tendered=tendered, change=tendered - kept, station_id=station_id, cashier=cashier)
            return entries(conn, f"SELECT {CASH_COLUMNS} FROM cash WHERE seq = ?", (seq,))[0]

    def record_cash(self, kind: CashKind, amount: int, *, reason: str, order_key: str | None = None,
                    station_id: str | None = None, cashier: str | None = None,
                    for_card: bool = False) -> CashEntry:
        """A movement of the drawer's cash other than an order's cash line (cash in or out,
        no sale, cash given back for an order), durably, before the drawer opens. Cash given
        back for an order is at most the cash it kept (``ValueError`` otherwise); with
        ``for_card`` (a manager's refund in cash of what a card paid) at most what the order
        keeps in cash and card together, counting a card refund or void without an answer as
        done (``balance.order_kept_for_giving_back``)."""
        kind = CashKind(kind)
        if kind is CashKind.SALE:
            raise ValueError("an order's cash is recorded by record_cash_sale")  # not for people
        check_cents(amount, f"the {kind} amount", positive=kind is not CashKind.NO_SALE)  # not for people
        if (kind is CashKind.RETURN) != (order_key is not None):
            raise ValueError("cash is given back for an order, and only then names one")  # not for people
        if not reason.strip():
            raise ValueError(_("a {kind} needs a reason").format(kind=kind))
        entry_id = new_cash_id()
        with self._write(_("recording a {kind}").format(kind=kind)) as conn:
            if order_key is not None:
                if for_card:  # a card refund or void without an answer yet may have given some back
                    kept = balance.order_kept_for_giving_back(conn, order_key)
                else:
                    kept = conn.execute(ORDER_CASH_NET_SQL, (order_key,)).fetchone()[0]
                if amount > kept:
                    text = (_("order {order} kept {kept} cents in all: {amount} cannot be given back") if for_card
                            else _("order {order} kept {kept} cents in cash: {amount} cannot be given back"))
                    raise ValueError(text.format(order=order_key, kept=kept, amount=amount))
            seq = insert(conn, entry_id, kind, amount, self._now(), order_key=order_key, station_id=station_id,
                              cashier=cashier, reason=reason.strip())
            return entries(conn, f"SELECT {CASH_COLUMNS} FROM cash WHERE seq = ?", (seq,))[0]

    def order_cash(self, order_key: str) -> list[CashEntry]:
        """The order's cash lines and the cash given back for it, oldest first."""
        with self._read(_("reading an order's cash")) as conn:
            return entries(conn, ORDER_CASH_SQL, (order_key,))

    def shift_cash(self) -> tuple[ZReport | None, list[CashEntry]]:
        """The last Z report (None before the first) and every cash movement since it."""
        with self._read(_("reading the shift's cash")) as conn:
            row = conn.execute(LAST_Z_SQL).fetchone()
            last = None if row is None else z_report(row)
            return last, entries(conn, SINCE_SQL, (0 if last is None else last.last_seq,))

    def close_z(self, *, station_id: str, terminal_id: str | None, opening_float: int, expected: int,
                counted: int, left_in_drawer: int, by: str, last_seq: int, after: int | None,
                reason: str | None = None, figures: Mapping[str, Any] | None = None) -> ZReport:
        """Number and keep a shift's cash count. ``last_seq``: the last movement counted;
        ``after``: the number of the Z the shift began after (both from ``shift_cash``);
        ``InvalidTransition`` when another Z was closed since (two closes raced)."""
        for value, what in ((counted, "the counted cash"),  # not for people
                            (left_in_drawer, "the cash left in the drawer")):  # not for people
            check_cents(value, what)
        if not by.strip():
            raise ValueError(_("a Z report names who closed the shift"))
        with self._write(_("closing the shift's cash (Z)")) as conn:
            row = conn.execute(LAST_Z_SQL).fetchone()
            latest = None if row is None else z_report(row)
            if (None if latest is None else latest.number) != after:
                assert latest is not None
                raise InvalidTransition(_("this shift's cash was closed meanwhile ({z}): count it again").format(
                    z=latest.label))
            number = insert_z(conn, self._now(), station_id=station_id, terminal_id=terminal_id,
                                   opening_float=opening_float, expected=expected, counted=counted,
                                   left_in_drawer=left_in_drawer, by=by.strip(), last_seq=last_seq, reason=reason,
                                   figures=figures or {})
            return z_report(conn.execute(ONE_Z_SQL, (number,)).fetchone())

    def z_reports(self) -> list[ZReport]:
        """Every Z report, oldest first."""
        with self._read(_("listing Z reports")) as conn:
            return [z_report(row) for row in conn.execute(ALL_Z_SQL)]
