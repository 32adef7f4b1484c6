"""Reading the service's transaction list: to find an attempt whose answer was lost, and
to reconcile a day of the journal.

Every money-moving request names its attempt in the user-agent (and a charge through the
service's routes in its ``order.externalId`` too); the service records it as ``userAgent``
on the transaction (one entry per gateway transaction: a sale, a
capture, a void, a refund). Nothing about the list is assumed beyond that:

- its order: the first page tells whether it runs newest first (read forwards) or oldest
  first (read backwards from the last page); paging stops only once a whole page lies
  before the window. A list in no order is read to the end (at most ``MAX_PAGES``);
- the clocks: the window opens ``CLOCK_SLACK`` before the attempt, so a station or a
  service clock off by tens of minutes still finds it;
- the entries: each is read field by field by the client (an odd field is kept raw, an
  entry that is not an object is skipped), so one strange entry never sinks a page;
- uniqueness: every entry naming the attempt is returned, not the first;
- our user-agent: a service that records its own agent instead of ours cannot name the
  attempt, so a same-terminal, same-amount entry inside the attempt's window is returned
  as a *possible match* for a manager, never as proof.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from pos_app.api.client import PaymentsClient
from pos_app.api.identity import attempt_in
from pos_app.api.models import TransactionEntry
from pos_app.journal import Attempt, Operation

ATTEMPT_PREFIX = "a-"
"""How the journal's attempt ids begin (``pos_app.journal.store.new_attempt_id``)."""
PAGE_SIZE = 50
MAX_PAGES = 200
CLOCK_SLACK = timedelta(minutes=60)
ENTRY_TYPES = {
    Operation.SALE: {"sale"}, Operation.PREAUTH: {"auth", "preauth", "pre-auth"},
    Operation.CAPTURE: {"capture"}, Operation.VOID: {"void"}, Operation.REFUND: {"refund"},
}
"""The entry ``type`` of each operation; an entry without a type may be any."""
FOLLOW_UP_TYPES = frozenset(ENTRY_TYPES[Operation.CAPTURE] | ENTRY_TYPES[Operation.VOID]
                            | ENTRY_TYPES[Operation.REFUND])
"""Entry types of a follow-up of a payment (not the charge that made it)."""


@dataclass(frozen=True)
class Window:
    """Entries from ``start`` on, and whether every page that could hold one was read."""

    entries: tuple[TransactionEntry, ...]
    complete: bool


@dataclass(frozen=True)
class Found:
    """What the list says of one attempt."""

    matches: tuple[TransactionEntry, ...]
    """Entries whose user-agent names the attempt (two or more: a manager must look)."""
    possible: tuple[TransactionEntry, ...]
    """Entries without an attempt id, same terminal and amount, inside the attempt's window."""
    complete: bool


def entry_time(entry: TransactionEntry) -> datetime | None:
    return service_time(entry.created_at)


def service_time(text: object) -> datetime | None:
    """A ``createdAt`` of the service as an aware time; None when it does not read as one."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


async def read_window(client: PaymentsClient, start: datetime) -> Window:
    """Every list entry created at or after ``start`` (and those without a readable time)."""
    first = await client.list_transactions(page=1, limit=PAGE_SIZE)
    total = first.meta.total_pages
    kept: dict[str, TransactionEntry] = {}
    _keep(kept, first.data, start)
    order = list_order(first.data)
    if not first.data or total == 1:
        return Window(tuple(kept.values()), True)
    if order == "oldest" and total is not None:
        pages: Iterable[int] = range(total, 1, -1)
    else:
        pages = range(2, (total if total is not None else MAX_PAGES) + 1)
    read = 1
    for page in pages:
        if read >= MAX_PAGES:
            return Window(tuple(kept.values()), False)
        listing = await client.list_transactions(page=page, limit=PAGE_SIZE)
        read += 1
        _keep(kept, listing.data, start)
        if not listing.data:
            break
        if order is not None and _all_before(listing.data, start):
            break
    return Window(tuple(kept.values()), True)


async def find_attempt(client: PaymentsClient, attempt: Attempt, *, waited: float) -> Found:
    """The entries that name ``attempt``, and the possible matches of a foreign user-agent.

    ``waited`` is how long the attempt may have been processed after it was created (its
    wait limit): a possible match lies within it, give or take the clock slack."""
    window = await read_window(client, attempt.created_at - CLOCK_SLACK)
    latest = attempt.created_at + timedelta(seconds=waited) + CLOCK_SLACK
    types = ENTRY_TYPES.get(attempt.operation, set())
    matches, possible = [], []
    for entry in window.entries:
        named = attempt_of(entry)
        if named == attempt.id:
            matches.append(entry)
        elif named is None and _could_be(entry, attempt, types, latest):
            possible.append(entry)
    return Found(tuple(matches), tuple(possible), window.complete)


def attempt_of(entry: TransactionEntry) -> str | None:
    """The attempt an entry names: a charge's ``order.externalId`` when that is an attempt id
    (a charge through the service's routes carries its own there; the rows of a bulk charge
    share one request, so one user-agent), else the one its user-agent carries. A capture,
    void or refund is listed with its payment's ``order`` (the charge's attempt id): only
    its own user-agent names the attempt that made it."""
    order = (entry.model_extra or {}).get("order")
    external = order.get("externalId") if isinstance(order, dict) else None
    follow_up = (entry.type or "").casefold() in FOLLOW_UP_TYPES
    if isinstance(external, str) and external.startswith(ATTEMPT_PREFIX) and not follow_up:
        return external
    return attempt_in(entry.user_agent)


def _could_be(entry: TransactionEntry, attempt: Attempt, types: set[str], latest: datetime) -> bool:
    if entry.type is not None and entry.type.lower() not in types:
        return False
    terminal = entry.terminal_id
    if terminal is not None and terminal != attempt.terminal_id:
        return False
    base = entry.base_amount if entry.base_amount is not None else entry.amount
    if base != attempt.amount:
        return False
    moment = entry_time(entry)
    return moment is None or moment <= latest


def _keep(kept: dict[str, TransactionEntry], entries: Iterable[TransactionEntry], start: datetime) -> None:
    for entry in entries:
        moment = entry_time(entry)
        if moment is not None and moment < start:
            continue
        key = entry.id or f"{entry.transaction_id}|{entry.created_at}|{entry.user_agent}|{len(kept)}"
        kept.setdefault(key, entry)


def list_order(entries: list[TransactionEntry]) -> str | None:
    """``newest`` or ``oldest`` when the page's readable times run one way, else None."""
    times = [moment for moment in map(entry_time, entries) if moment is not None]
    if len(times) < 2 or times[0] == times[-1]:
        return None
    if all(a >= b for a, b in zip(times, times[1:], strict=False)):
        return "newest"
    if all(a <= b for a, b in zip(times, times[1:], strict=False)):
        return "oldest"
    return None


def _all_before(entries: list[TransactionEntry], start: datetime) -> bool:
    times = [entry_time(entry) for entry in entries]
    return all(moment is not None and moment < start for moment in times)
