"""Every way the journal refuses, as one exception tree rooted at ``JournalError``.

The terminal service and the UI branch on these (a busy terminal is shown to the cashier,
a corrupt file stops the app before any money moves), so they live apart from the store
and carry messages meant to be shown to a person as they are.
"""

from __future__ import annotations

from pos_app.i18n import _


class JournalError(Exception):
    """Base of every journal error."""


class TerminalBusy(JournalError):
    """The terminal already has an attempt without an outcome (one in flight per terminal),
    or, for a sale or pre-auth, a sale or pre-auth whose outcome is unknown (``unknown``)."""

    def __init__(self, terminal_id: str, attempt_id: str, *, unknown: bool = False) -> None:
        self.terminal_id = terminal_id
        self.attempt_id = attempt_id
        self.unknown = unknown
        if unknown:
            text = _(
                "terminal {terminal} holds attempt {attempt}, whose outcome is unknown (the "
                "customer may have been charged); resolve it first: `pos-app terminal resume`, or a "
                "manager's `pos-app terminal resolve {attempt}`"
            ).format(terminal=repr(terminal_id), attempt=attempt_id)
        else:
            text = _(
                "terminal {terminal} is busy: attempt {attempt} has no outcome yet; "
                "finish or resume that attempt before starting another on this terminal"
            ).format(terminal=repr(terminal_id), attempt=attempt_id)
        super().__init__(text)


class RefHasPendingFollowUp(JournalError):
    """An earlier capture, void or refund of the same transaction has no final outcome."""

    def __init__(self, ref: str, attempt_id: str) -> None:
        self.ref = ref
        self.attempt_id = attempt_id
        super().__init__(_(
            "transaction {ref} has a capture, void or refund (attempt {attempt}) whose outcome "
            "is not known yet; resolve it first (`pos-app terminal resume`, or a manager's "
            "`pos-app terminal resolve {attempt}`), so that the money never moves twice"
        ).format(ref=repr(ref), attempt=attempt_id))


class OrderHasUnknownAttempt(JournalError):
    """An earlier attempt for the order may have moved money and nobody knows yet."""

    def __init__(self, order_key: str, attempt_id: str, *, in_flight: bool = False) -> None:
        self.order_key = order_key
        self.attempt_id = attempt_id
        if in_flight:
            text = _(
                "order {order}: attempt {attempt} is still in flight; it must be resolved first "
                "(by the terminal service finding its answer, `pos-app terminal resume`, or by a "
                "manager, `pos-app terminal resolve {attempt}`) before the order can be charged again")
        else:
            text = _(
                "order {order}: attempt {attempt} has outcome 'unknown'; it must be resolved first "
                "(by the terminal service finding its answer, `pos-app terminal resume`, or by a "
                "manager, `pos-app terminal resolve {attempt}`) before the order can be charged again")
        super().__init__(text.format(order=repr(order_key), attempt=attempt_id))


class OrderAlreadyPaid(JournalError):
    """A sale or pre-auth for the order was already approved."""

    def __init__(self, order_key: str, attempt_id: str) -> None:
        self.order_key = order_key
        self.attempt_id = attempt_id
        super().__init__(_("order {order} is already paid: attempt {attempt} was approved").format(
            order=repr(order_key), attempt=attempt_id))


class AboveBalance(JournalError):
    """A charge above what is still due on the order (its recorded total less its charges and cash)."""

    def __init__(self, order_key: str, amount: int, due: int) -> None:
        self.order_key = order_key
        self.amount = amount
        self.due = due
        super().__init__(_("order {order} has {due} cents still due: a charge of {amount} cents is refused").format(
            order=repr(order_key), due=due, amount=amount))


class GivenBackAlready(JournalError):
    """A refund above what the charge's order still keeps: part of it was given back
    already, in cash or by a refund or void (one without an answer counts as done)."""

    def __init__(self, order_key: str, amount: int, kept: int) -> None:
        self.order_key = order_key
        self.amount = amount
        self.kept = kept
        super().__init__(_("order {order} keeps {kept} cents after what was given back already (in cash, or "
                           "by a refund or void): a refund of {amount} cents is refused").format(
            order=repr(order_key), kept=kept, amount=amount))


class AttemptNotFound(JournalError, KeyError):
    """No attempt with that id in this journal."""

    def __init__(self, attempt_id: str) -> None:
        self.attempt_id = attempt_id
        super().__init__(_("no attempt {attempt} in the journal").format(attempt=repr(attempt_id)))

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class JournalCorrupt(JournalError):
    """The file is not a journal SQLite can read; it is left exactly as it was."""


class JournalLocked(JournalError):
    """Another connection held a lock on the file longer than the busy timeout."""


class JournalTooNew(JournalError):
    """The file was written by a newer pos-app (higher schema version); left untouched."""


class InvalidResolution(JournalError):
    """An outcome that the attempt's current state does not allow (e.g. a final one changed)."""


class ChargeTaken(JournalError):
    """A manager's "paid" naming a charge the journal already accounts to another attempt:
    one charge never pays two orders."""

    def __init__(self, attempt_id: str, owner: str, reference: str) -> None:
        self.attempt_id = owner
        super().__init__(_("payment {payment} is already the charge of attempt {owner}: it cannot also pay "
                           "attempt {attempt}").format(payment=reference, owner=owner, attempt=attempt_id))


class InvalidTransition(JournalError):
    """An event that the attempt's state forbids (e.g. marking a request sent twice)."""


_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED
_CORRUPT_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB


def from_sqlite(exc: Exception, path: object, action: str) -> JournalError:
    """The journal error a ``sqlite3.Error`` raised while doing ``action`` on ``path`` means
    (``action``: a translated text, "reading attempt a-…")."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc)
    if primary in _BUSY_CODES or "locked" in text:
        return JournalLocked(_(
            "journal {path} is locked by another program or pos-app process ({error}) while "
            "{action}; close the other program or wait, then try again"
        ).format(path=path, error=text, action=action))
    if primary in _CORRUPT_CODES or "malformed" in text or "not a database" in text:
        return JournalCorrupt(_(
            "journal {path} is damaged ({error}) while {action}; the file was left as it is: "
            "keep a copy for support and start the app with a new journal path"
        ).format(path=path, error=text, action=action))
    return JournalError(_("journal {path}: {error} while {action}").format(path=path, error=text, action=action))
