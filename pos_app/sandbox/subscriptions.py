"""The subscription routes (reference 4.5 and 3.2) over a merchant's ``SubscriptionBook``
(``pos_app.sandbox.subscription_book``, which says what the sandbox decides where the
reference is silent), with the service's rules:

- Create: a vault id (``customerId`` wins over ``customerVaultId``) of a customer with an
  email and a default payment method; ``planId`` or ``customSchedule`` (the plan wins);
  ``payments`` 0-52; exactly one frequency mode; a ``startDate`` in the future (omitted:
  tomorrow). Answers 201 ``{data: <subscription>}``.
- List: ``{meta, data}`` without schedules or counters; inactive ones hidden unless
  ``status`` names them; the ``amount`` filter is in **dollars**, exact (``12.50`` finds a
  subscription of 1250 cents).
- Pause only a running subscription without a future paid entry; resume only a paused
  one; delete (cancel, to inactive) anything but a completed or incomplete one. A refused
  transition is 400 (code 101) with one of the sentences below: the reference names the
  rules but not the service's words, so these are the sandbox's.
- Retry (``GET …/retry/{scheduleId}``) charges an unpaid entry to the customer's default
  method (or the subscription's override), whatever the subscription's state. The answer
  is the subscription with ``schedule`` as the single entry. Test amounts, as for a
  terminal sale (``pos_app.sandbox.faults``): below 100 the charge is declined inside a
  200 (``error: "DECLINED"``, the entry failed); 9906 charges, then drops the answer;
  9908 answers 503 before charging. The fault knobs ``drop_next``, ``reset_next`` and
  ``error_5xx_next`` apply to it as to every money-moving route.

Not in the service's table: ``POST /_sandbox/subscription-fail {scheduleId, error?}``
fails a pending entry as the gateway would on its date, so a retry has something to act
on (registered in ``pos_app.sandbox.app``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pos_app.sandbox.faults import DECLINE_BELOW, DROP_ANSWER, UNAVAILABLE
from pos_app.sandbox.protocol import DROPPED, Call, Reply, StatusFailure, invalid, not_found, refused
from pos_app.sandbox.subscription_book import (
    OPEN_ENDED_WINDOW,
    Charge,
    Entry,
    EntryStatus,
    Frequency,
    Status,
    Subscription,
)
from pos_app.sandbox.validation import Fields, page_meta, page_query, page_slice

if TYPE_CHECKING:
    from pos_app.sandbox.state import Book, Sandbox

OBJECT_ID = re.compile(r"^[0-9a-fA-F]{24}$")
DOLLARS = re.compile(r"^[0-9]+(\.[0-9]{1,2})?$")

PAUSE_PAUSED = "Subscription is already paused"
PAUSE_NOT_RUNNING = "Only running subscriptions can be paused"
PAUSE_PAID = "Subscription cannot be paused: future payments are already paid"
RESUME_NOT_PAUSED = "Only paused subscriptions can be resumed"
DELETE_FINISHED = "Subscriptions in completed or incomplete status cannot be deleted"
AMOUNT_NOT_CUSTOM = "amount is only updatable for a subscription with a custom plan"
SCHEDULE_NOT_CUSTOM = "customSchedule applies only to subscriptions created with a custom schedule"
SCHEDULE_PAID = "customSchedule cannot replace a schedule whose future payments are already paid"
ENTRY_PAID = "Schedule payment is already paid"
NO_EMAIL = "Customer must have an email"
NO_METHOD = "Customer has no default payment method"


# ---------------------------------------------------------------- reading bodies


def _today(sandbox: Sandbox) -> date:
    return datetime.fromtimestamp(sandbox.clock(), UTC).date()


def _start(f: Fields, sandbox: Sandbox) -> date | None:
    """``startDate`` (ISO 8601) in the future, as a day; None when absent or refused."""
    raw = f.body.get("startDate")
    if raw is None:
        return None
    try:
        moment = datetime.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        moment = None
    if moment is None:
        f.fail("startDate must be a valid ISO 8601 date string")
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if moment.timestamp() <= sandbox.clock():
        f.fail("startDate must be a future date")
        return None
    return moment.astimezone(UTC).date()


def _whole(f: Fields, body: dict[str, Any], name: str, low: int, high: int | None) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"greater than {low - 1}" if high is None else f"from {low} to {high}"
        f.fail(f"{name} must be an integer {bound}")
        return None
    return value


def _schedule(f: Fields, body: Any) -> tuple[int, int, Frequency] | None:
    """``customSchedule``: (amount, payments, frequency), or None with its fields failed."""
    if not isinstance(body, dict):
        f.fail("customSchedule must be an object")
        return None
    amount = body.get("amount")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        f.fail("customSchedule.amount must be a positive integer (cents)")
    payments = _whole(f, body, "payments", 0, 52)
    days = _whole(f, body, "dayFrequency", 1, None)
    months = _whole(f, body, "monthFrequency", 1, 24)
    day_of_month = _whole(f, body, "dayOfMonth", 1, 31)
    given = {name for name in ("dayFrequency", "monthFrequency", "dayOfMonth") if body.get(name) is not None}
    if given not in ({"dayFrequency"}, {"monthFrequency", "dayOfMonth"}):
        f.fail("customSchedule must have exactly one frequency mode: dayFrequency alone, or monthFrequency "
               "with dayOfMonth")
        return None
    if f.messages:
        return None
    assert isinstance(amount, int)
    return amount, payments or 0, Frequency(days=days, months=months, day_of_month=day_of_month)


def _optional_cents(f: Fields, body: dict[str, Any], *names: str) -> None:
    for name in names:
        value = body.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            f.fail(f"{name} must be a non-negative integer (cents)")


def _vault_with_method(sandbox: Sandbox, book: Book, vault_id: str, override: str | None) -> str:
    """The method a subscription on ``vault_id`` charges; 400 when the customer cannot pay."""
    vault = book.vaults.find(vault_id)
    if not vault.fields.get("email"):
        raise refused(NO_EMAIL)
    if override is not None:
        return vault.method(override).id
    if vault.default_id is None:
        raise refused(NO_METHOD)
    return vault.default_id


def _build_schedule(sandbox: Sandbox, amount: int, payments: int, frequency: Frequency, start: date,
                    first_amount: int | None = None) -> list[Entry]:
    count = payments or OPEN_ENDED_WINDOW
    entries = [Entry(id=sandbox.new_id(), when=day, amount=amount) for day in frequency.dates(start, count)]
    if first_amount is not None and entries:
        entries[0].amount = first_amount
    return entries


# ---------------------------------------------------------------- handlers


def _create(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    body = call.json_object()
    f = Fields(body)
    vault_id = body.get("customerId") if body.get("customerId") is not None else body.get("customerVaultId")
    if vault_id is None:
        f.fail("customerId or customerVaultId should not be empty")
    elif not isinstance(vault_id, str) or not OBJECT_ID.fullmatch(vault_id):
        f.fail("customerVaultId must be a mongodb id")
    plan_id = f.text("planId", required=False)
    plans = book.subscriptions.plans
    schedule = None
    if plan_id is None:
        if body.get("customSchedule") is None:
            f.fail("planId or customSchedule should not be empty")
        else:
            schedule = _schedule(f, body["customSchedule"])
    start = _start(f, sandbox)
    _optional_cents(f, body, "firstAmount", "surchargeFirstAmount", "cardFeeFirstAmount")
    auto_renew = f.boolean("autoRenew", required=False)
    notification_mail = f.boolean("notificationMail", required=False)
    override = f.text("overrideDefaultPaymentMethod", required=False)
    f.check()
    assert isinstance(vault_id, str)
    plan = None
    if plan_id is not None:  # the plan wins over a custom schedule sent with it
        plan = plans.get(plan_id)
        if plan is None:
            raise refused(f"Plan with id: {plan_id} not found")
        amount, payments, frequency = plan.amount, plan.payments, plan.frequency
    else:
        assert schedule is not None
        amount, payments, frequency = schedule
    method_id = _vault_with_method(sandbox, book, vault_id, override)
    begins = start or _today(sandbox) + timedelta(days=1)
    now = sandbox.clock()
    subscription = Subscription(
        id=sandbox.new_id(), vault_id=vault_id, amount=amount, payments=payments, frequency=frequency, start=begins,
        created_at=now, updated_at=now, plan=plan, first_amount=body.get("firstAmount"),
        auto_renew=bool(auto_renew), notification_mail=notification_mail is not False, override_method=override)
    subscription.schedule = _build_schedule(sandbox, amount, payments, frequency, begins, body.get("firstAmount"))
    book.subscriptions.by_id[subscription.id] = subscription
    book.subscriptions.hold(book.vaults, subscription, method_id)
    return Reply(201, _answer(sandbox, book, subscription))


def _answer(sandbox: Sandbox, book: Book, subscription: Subscription) -> dict[str, Any]:
    return {"data": subscription.as_json(book.merchant.client_id, _today(sandbox))}


def _find(book: Book, call: Call, param: str = "id") -> Subscription:
    subscription_id = call.params[param]
    subscription = book.subscriptions.by_id.get(subscription_id)
    if subscription is None:
        raise not_found(f"Subscription with id: {subscription_id} not found")
    return subscription


def _get(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    return Reply(200, _answer(sandbox, book, _find(book, call)))


def _list(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    q = call.query
    page, limit = page_query(q)
    messages = []
    statuses = [s for s in q.get("status", "").split(",") if s]
    if any(s not in Status._value2member_map_ for s in statuses):
        messages.append(f"status must be one of {', '.join(Status)} (comma-separated for several)")
    amount = None
    if "amount" in q:
        if not DOLLARS.fullmatch(q["amount"]):
            messages.append("amount must be a number of dollars with at most 2 decimals")
        else:
            amount = int(Decimal(q["amount"]) * 100)
    sort = q.get("sort", "-updatedAt")
    keys: dict[str, Callable[[Subscription], Any]] = {
        "updatedAt": lambda s: s.updated_at, "createdAt": lambda s: s.created_at, "amount": lambda s: s.amount}
    key = keys.get(sort.removeprefix("-"))
    if key is None:
        messages.append(f"sort must be one of {', '.join(keys)} (- descends)")
    if messages:
        raise invalid(messages)
    assert key is not None
    rows = [s for s in book.subscriptions.by_id.values() if _matches(book, s, q, statuses, amount)]
    rows.sort(key=lambda s: (key(s), s.id), reverse=sort.startswith("-"))
    today = _today(sandbox)
    data = [s.as_json(book.merchant.client_id, today, listed=True) for s in page_slice(rows, page, limit)]
    return Reply(200, {"meta": page_meta(len(rows), page, limit), "data": data})


def _matches(book: Book, subscription: Subscription, q: Mapping[str, str], statuses: list[str],
             amount: int | None) -> bool:
    if statuses and subscription.status.value not in statuses:
        return False
    if not statuses and subscription.status is Status.INACTIVE:  # hidden unless asked for
        return False
    if amount is not None and subscription.amount != amount:
        return False
    if q.get("customerId") not in (None, subscription.vault_id):
        return False
    plan = subscription.plan
    if q.get("planId") not in (None, plan.id if plan else None):
        return False
    if "plan" in q and (plan is None or q["plan"].lower() not in plan.name.lower()):
        return False
    fields = book.vaults.by_id[subscription.vault_id].fields
    name = f"{fields.get('firstName', '')} {fields.get('lastName', '')}"
    for query_name, value in (("email", fields.get("email")), ("companyName", fields.get("companyName")),
                              ("phone", fields.get("phoneNumber")), ("customerName", name)):
        if query_name in q and q[query_name].lower() not in str(value or "").lower():
            return False
    return True


def _update(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    subscription = _find(book, call)
    body = call.json_object()
    f = Fields(body)
    amount = body.get("amount")
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0):
        f.fail("amount must be a positive integer (cents)")
    schedule = _schedule(f, body["customSchedule"]) if body.get("customSchedule") is not None else None
    start = _start(f, sandbox)
    if start is not None and body.get("customSchedule") is None:
        f.fail("startDate is only allowed together with customSchedule")
    vault_id = body.get("customerVaultId") if body.get("customerVaultId") is not None else body.get("customerId")
    if vault_id is not None and (not isinstance(vault_id, str) or not OBJECT_ID.fullmatch(vault_id)):
        f.fail("customerVaultId must be a mongodb id")
    auto_renew = f.boolean("autoRenew", required=False)
    notification_mail = f.boolean("notificationMail", required=False)
    if schedule is not None and amount is not None and schedule[0] != amount:
        f.fail("amount must match customSchedule.amount")
    f.check()
    today = _today(sandbox)
    if (amount is not None or schedule is not None) and subscription.plan is not None:
        raise refused(AMOUNT_NOT_CUSTOM if schedule is None else SCHEDULE_NOT_CUSTOM)
    if schedule is not None and any(e.status is EntryStatus.PAID for e in subscription.future(today)):
        raise refused(SCHEDULE_PAID)
    method_id = None if vault_id is None else _vault_with_method(sandbox, book, vault_id, None)
    if schedule is not None:
        new_amount, payments, frequency = schedule
        kept = [e for e in subscription.schedule if e.status is not EntryStatus.PENDING]
        begins = start or today + timedelta(days=1)
        subscription.amount, subscription.payments, subscription.frequency = new_amount, payments, frequency
        subscription.start = begins
        subscription.schedule = kept + _build_schedule(sandbox, new_amount, payments, frequency, begins)
    elif amount is not None:
        subscription.amount = amount
        for entry in subscription.schedule:
            if entry.status is EntryStatus.PENDING:
                entry.amount = amount
    if vault_id is not None:
        assert isinstance(vault_id, str)
        subscription.vault_id = vault_id
        if subscription.status in (Status.RUNNING, Status.PAUSED, Status.INCOMPLETE):
            book.subscriptions.hold(book.vaults, subscription, method_id)
    if auto_renew is not None:
        subscription.auto_renew = auto_renew
    if notification_mail is not None:
        subscription.notification_mail = notification_mail
    subscription.updated_at = sandbox.clock()
    return Reply(200, _answer(sandbox, book, subscription))


def _delete(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    subscription = _find(book, call)
    if subscription.status in (Status.COMPLETED, Status.INCOMPLETE):
        raise refused(DELETE_FINISHED)
    today = _today(sandbox)
    subscription.schedule = [e for e in subscription.schedule if e.when <= today]  # future removed, past kept
    subscription.status = Status.INACTIVE
    book.subscriptions.release(book.vaults, subscription)
    subscription.updated_at = sandbox.clock()
    return Reply(200, _answer(sandbox, book, subscription))


def _pause(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    subscription = _find(book, call, "subscriptionId")
    if subscription.status is Status.PAUSED:
        raise refused(PAUSE_PAUSED)
    if subscription.status is not Status.RUNNING:
        raise refused(PAUSE_NOT_RUNNING)
    today = _today(sandbox)
    future = subscription.future(today)
    if any(e.status is EntryStatus.PAID for e in future):
        raise refused(PAUSE_PAID)
    subscription.schedule = [e for e in subscription.schedule if e not in future or e.status is not
                             EntryStatus.PENDING]
    subscription.status = Status.PAUSED
    subscription.updated_at = sandbox.clock()
    return Reply(200, _answer(sandbox, book, subscription))


def _resume(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    subscription = _find(book, call, "subscriptionId")
    if subscription.status is not Status.PAUSED:
        raise refused(RESUME_NOT_PAUSED)
    today = _today(sandbox)
    left = OPEN_ENDED_WINDOW if subscription.payments == 0 else subscription.payments - len(subscription.schedule)
    fresh = subscription.frequency.dates(today + timedelta(days=1), max(left, 0))
    subscription.schedule += [Entry(id=sandbox.new_id(), when=day, amount=subscription.amount) for day in fresh]
    subscription.status = Status.RUNNING
    subscription.settle_status()
    subscription.updated_at = sandbox.clock()
    return Reply(200, _answer(sandbox, book, subscription))


def _retry(sandbox: Sandbox, book: Book, call: Call) -> Reply:
    schedule_id = call.params["scheduleId"]
    found = book.subscriptions.entry(schedule_id)
    if found is None:
        raise not_found(f"Schedule payment with id: {schedule_id} not found")
    subscription, entry = found
    if entry.status is EntryStatus.PAID:
        raise refused(ENTRY_PAID)
    _vault_with_method(sandbox, book, subscription.vault_id, subscription.override_method)  # can it pay?
    if entry.amount == UNAVAILABLE:
        raise StatusFailure(503, "service unavailable (sandbox test amount 9908: nothing was charged)")
    approved = entry.amount >= DECLINE_BELOW
    entry.attempts += 1
    entry.status = EntryStatus.PAID if approved else EntryStatus.FAILED
    entry.error = None if approved else "DECLINED"
    if approved:
        entry.payment_id, entry.transaction_id = sandbox.new_id(), sandbox.new_transaction_id()
    book.subscriptions.charges.append(Charge(schedule_id, subscription.id, entry.amount, approved,
                                             sandbox.recorded_agent(call), sandbox.clock()))
    subscription.settle_status()
    if subscription.status is Status.COMPLETED:
        book.subscriptions.release(book.vaults, subscription)
    subscription.updated_at = sandbox.clock()
    if entry.amount == DROP_ANSWER:
        return DROPPED
    data = subscription.as_json(book.merchant.client_id, _today(sandbox))
    data["schedule"] = entry.as_json()  # the single charged entry, not an array
    if not approved:
        data["error"] = "DECLINED"
    return Reply(200, {"data": data})


# ---------------------------------------------------------------- admin


def fail_entry(sandbox: Sandbox, call: Call) -> dict[str, Any]:
    """``POST /_sandbox/subscription-fail {scheduleId, error?}``: the pending entry fails as
    the gateway would fail it on its date; answers the subscription."""
    body = call.json_object()
    f = Fields(body)
    schedule_id = f.text("scheduleId")
    error = f.text("error", required=False) or "DECLINED"
    f.check()
    assert schedule_id is not None
    for book in sandbox.books.values():
        found = book.subscriptions.entry(schedule_id)
        if found is None:
            continue
        subscription, entry = found
        if entry.status is not EntryStatus.PENDING:
            raise refused(f"Schedule payment {schedule_id} is {entry.status.value}, not pending")
        entry.status, entry.error = EntryStatus.FAILED, error
        entry.attempts += 1
        subscription.settle_status()
        subscription.updated_at = sandbox.clock()
        return _answer(sandbox, book, subscription)
    raise not_found(f"Schedule payment with id: {schedule_id} not found")


HANDLERS: dict[str, Callable[[Sandbox, Book, Call], Reply]] = {
    "subscription.list": _list,
    "subscription.create": _create,
    "subscription.get": _get,
    "subscription.update": _update,
    "subscription.delete": _delete,
    "subscription.pause": _pause,
    "subscription.resume": _resume,
    "subscription.retry": _retry,
}
