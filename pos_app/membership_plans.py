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

from pos_app.i18n import N_, _

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
            raise ValueError(_("name is blank"))
        monthly = self.every_months is not None or self.day is not None
        if monthly and self.every_days is not None:
            raise ValueError(_("give every_months and day, or every_days, not both"))
        if not monthly and self.every_days is None:
            raise ValueError(_("give how often: every_months and day (e.g. every_months = 1, day = 1), "
                               "or every_days (e.g. every_days = 7)"))
        if monthly and (self.every_months is None or self.day is None):
            raise ValueError(_("every_months goes with day (the day of the month it is charged, 1 to 31)"))
        return self


DEMO_PLANS = (  # the plans' names are the training store's data, sent to the service as they are
    MembershipPlan(name="Coffee club", amount=1500, every_months=1, day=1, payments=12),  # not for people
    MembershipPlan(name="Weekly flowers", amount=999, every_days=7, payments=0),  # not for people
)
"""The training store's plans (``pos-app --sandbox``; the demo store profile lists the same)."""

FIELD_RULES = {
    "name": N_("a name of 1 to 60 characters, e.g. name = \"Coffee club\""),
    "amount": N_("a whole number of cents above 0 and at most {most}, e.g. amount = 2500 for 25.00"),
    "every_months": N_("a whole number of months from 1 to {most}"),
    "day": N_("the day of the month it is charged, a whole number from 1 to {most}"),
    "every_days": N_("a whole number of days from 1"),
    "payments": N_("the number of payments, a whole number from 0 to {most} (0: until cancelled)"),
}
"""What each field of a plan must be (``rule`` shows one, translated, with its ``{most}``)."""
_MOST = {"amount": MAX_PLAN_CENTS, "every_months": MAX_EVERY_MONTHS, "day": MAX_DAY, "payments": MAX_PAYMENTS}


def rule(field: str, otherwise: str) -> str:
    """What ``field`` must be, in the language in force; ``otherwise`` (marked ``N_``) for a field with no rule."""
    return _(FIELD_RULES.get(field, otherwise)).format(most=_MOST.get(field, ""))


def plan_sentence(place: str, loc: list[str], problem: Any, given: object) -> str:
    """The sentence for one refused plan of ``[[memberships]]`` (``loc`` from pydantic:
    ``memberships``, the plan's index, the field), naming ``place`` (the file or env var),
    the plan (its number and name when it has one) and the field."""
    if len(loc) < 2 or not loc[1].isdigit():
        return _("{place}: memberships must be a list of plans, each a [[memberships]] table with "
                 "{fields}").format(place=place, fields=", ".join(FIELD_RULES))
    index = int(loc[1])
    entry = given[index] if isinstance(given, list | tuple) and index < len(given) else None
    name = entry.get("name") if isinstance(entry, dict) else None
    if isinstance(name, str) and name.strip():
        plan = _("[[memberships]] plan {number} “{name}”").format(number=index + 1, name=name)
    else:
        plan = _("[[memberships]] plan {number}").format(number=index + 1)
    if len(loc) == 2:
        if problem["type"] == "value_error":
            return f"{place}: {plan}: {problem['ctx']['error']}"
        return _("{place}: {plan} must be a table with {fields}").format(
            place=place, plan=plan, fields=", ".join(FIELD_RULES))
    field = loc[2]
    if problem["type"] == "extra_forbidden":
        return _("{place}: {plan}: unknown field {field}; known: {fields}").format(
            place=place, plan=plan, field=field, fields=", ".join(FIELD_RULES))
    if problem["type"] == "missing":
        return _("{place}: {plan}: {field} is missing: it must be {rule}").format(
            place=place, plan=plan, field=field, rule=rule(field, N_("given")))
    return _("{place}: {plan}: {field} must be {rule}, got {given}").format(
        place=place, plan=plan, field=field, rule=rule(field, N_("valid")), given=repr(problem["input"]))


def unique_names(plans: tuple[MembershipPlan, ...]) -> tuple[MembershipPlan, ...]:
    """The plans, refused when two share a name (the cashier picks a plan by its name)."""
    seen: set[str] = set()
    for plan in plans:
        key = " ".join(plan.name.split()).casefold()
        if key in seen:
            raise ValueError(_("two plans are named “{name}”: each plan needs a name of its own").format(
                name=plan.name))
        seen.add(key)
    return plans
