"""The store's membership plans (``[[memberships]]`` in store.toml): what the customer
dialog's Enroll offers, each one a subscription's custom schedule on the service.

A plan is a name, an amount in whole cents, a frequency (every N months on day D, or
every N days: exactly one) and a number of payments (0: until cancelled), within the
reference's limits (section 4.5: 1-24 months, day 1-31, 0-52 payments), so that a plan
the service would refuse is refused when the settings are read, naming the file, the
plan and the field. Kept apart from ``pos_app.config`` (which only declares the setting)
so that the settings module stays about settings.
"""

from __future__ import annotations

from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_PLAN_CENTS = 10_000_000
"""The most a plan may charge per payment (100,000.00 in cents): more is a typo."""
MAX_PAYMENTS = 52
MAX_EVERY_MONTHS = 24
MAX_DAY = 31

PlanCents = Annotated[int, Field(strict=True, gt=0, le=MAX_PLAN_CENTS)]


class MembershipPlan(BaseModel):
    """One plan: ``amount`` cents each payment, every ``every_months`` months on ``day``
    (a short month's last day for 29-31) or every ``every_days`` days, ``payments`` times
    (0: until cancelled)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    amount: PlanCents
    every_months: Annotated[int, Field(strict=True, ge=1, le=MAX_EVERY_MONTHS)] | None = None
    day: Annotated[int, Field(strict=True, ge=1, le=MAX_DAY)] | None = None
    every_days: Annotated[int, Field(strict=True, ge=1)] | None = None
    payments: Annotated[int, Field(strict=True, ge=0, le=MAX_PAYMENTS)] = 0

    @model_validator(mode="after")
    def _one_frequency(self) -> Self:
        if not self.name.strip():
            raise ValueError("name is blank")
        monthly = self.every_months is not None or self.day is not None
        if monthly and self.every_days is not None:
            raise ValueError("give every_months and day, or every_days, not both")
        if not monthly and self.every_days is None:
            raise ValueError("give how often: every_months and day (e.g. every_months = 1, day = 1), "
                             "or every_days (e.g. every_days = 7)")
        if monthly and (self.every_months is None or self.day is None):
            raise ValueError("every_months goes with day (the day of the month it is charged, 1 to 31)")
        return self


DEMO_PLANS = (
    MembershipPlan(name="Coffee club", amount=1500, every_months=1, day=1, payments=12),
    MembershipPlan(name="Weekly flowers", amount=999, every_days=7, payments=0),
)
"""The training store's plans (``pos-app --sandbox``; the demo store profile lists the same)."""

FIELD_RULES = {
    "name": "a name of 1 to 60 characters, e.g. name = \"Coffee club\"",
    "amount": f"a whole number of cents above 0 and at most {MAX_PLAN_CENTS}, e.g. amount = 2500 for 25.00",
    "every_months": f"a whole number of months from 1 to {MAX_EVERY_MONTHS}",
    "day": f"the day of the month it is charged, a whole number from 1 to {MAX_DAY}",
    "every_days": "a whole number of days from 1",
    "payments": f"the number of payments, a whole number from 0 to {MAX_PAYMENTS} (0: until cancelled)",
}


def plan_sentence(place: str, loc: list[str], problem: Any, given: object) -> str:
    """The sentence for one refused plan of ``[[memberships]]`` (``loc`` from pydantic:
    ``memberships``, the plan's index, the field), naming ``place`` (the file or env var),
    the plan (its number and name when it has one) and the field."""
    if len(loc) < 2 or not loc[1].isdigit():
        return (f"{place}: memberships must be a list of plans, each a [[memberships]] table with "
                f"{', '.join(FIELD_RULES)}")
    index = int(loc[1])
    entry = given[index] if isinstance(given, list | tuple) and index < len(given) else None
    name = entry.get("name") if isinstance(entry, dict) else None
    plan = f"[[memberships]] plan {index + 1}" + (f" “{name}”" if isinstance(name, str) and name.strip() else "")
    if len(loc) == 2:
        if problem["type"] == "value_error":
            return f"{place}: {plan}: {problem['ctx']['error']}"
        return f"{place}: {plan} must be a table with {', '.join(FIELD_RULES)}"
    field = loc[2]
    if problem["type"] == "extra_forbidden":
        return f"{place}: {plan}: unknown field {field}; known: {', '.join(FIELD_RULES)}"
    if problem["type"] == "missing":
        return f"{place}: {plan}: {field} is missing: it must be {FIELD_RULES.get(field, 'given')}"
    return f"{place}: {plan}: {field} must be {FIELD_RULES.get(field, 'valid')}, got {problem['input']!r}"


def unique_names(plans: tuple[MembershipPlan, ...]) -> tuple[MembershipPlan, ...]:
    """The plans, refused when two share a name (the cashier picks a plan by its name)."""
    seen: set[str] = set()
    for plan in plans:
        key = " ".join(plan.name.split()).casefold()
        if key in seen:
            raise ValueError(f"two plans are named “{plan.name}”: each plan needs a name of its own")
        seen.add(key)
    return plans
