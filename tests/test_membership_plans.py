"""The store's membership plans in store.toml (``[[memberships]]``, issue 19): read in
the file's order as typed plans; a bad plan refused with a sentence naming the file, the
plan (its number and name) and the field, never half-used."""

from __future__ import annotations

import pytest

from pos_app.config import load_config
from pos_app.membership_plans import MembershipPlan
from pos_app.profile import ConfigError

BASE = 'base_url = "https://a.example.com"\n'
COFFEE = '[[memberships]]\nname = "Coffee club"\namount = 1500\nevery_months = 1\nday = 1\npayments = 12\n'


def load(tmp_path, text: str):
    (tmp_path / "store.toml").write_text(BASE + text)
    return load_config({"POS_DATA_DIR": str(tmp_path)})


def test_plans_are_read_in_order_and_default_to_none(tmp_path):
    config = load(tmp_path, COFFEE + '[[memberships]]\nname = "Weekly flowers"\namount = 999\nevery_days = 7\n')
    assert config.memberships == (
        MembershipPlan(name="Coffee club", amount=1500, every_months=1, day=1, payments=12),
        MembershipPlan(name="Weekly flowers", amount=999, every_days=7, payments=0))
    assert load(tmp_path, "").memberships == ()


@pytest.mark.parametrize("plan,expected", [
    (COFFEE.replace("1500", "15.00"), "plan 1 “Coffee club”: amount must be a whole number of cents above 0"),
    (COFFEE.replace("1500", "0"), "plan 1 “Coffee club”: amount must be a whole number of cents above 0"),
    (COFFEE.replace("day = 1\n", ""), "plan 1 “Coffee club”: every_months goes with day"),
    (COFFEE + "every_days = 7\n", "plan 1 “Coffee club”: give every_months and day, or every_days, not both"),
    (COFFEE.replace("every_months = 1\nday = 1\n", ""), "plan 1 “Coffee club”: give how often"),
    (COFFEE.replace("day = 1", "day = 32"), "plan 1 “Coffee club”: day must be the day of the month"),
    (COFFEE.replace("payments = 12", "payments = 53"), "plan 1 “Coffee club”: payments must be the number of "
                                                       "payments, a whole number from 0 to 52"),
    (COFFEE.replace('name = "Coffee club"\n', ""), "plan 1: name is missing"),
    (COFFEE + "colour = 1\n", "plan 1 “Coffee club”: unknown field colour"),
    (COFFEE + COFFEE.replace("1500", "1600"), "two plans are named “Coffee club”"),
    (COFFEE.replace("[[memberships]]", "[[membership]]"), r"did you mean \[memberships\]"),
])
def test_a_bad_plan_is_refused_naming_the_file_the_plan_and_the_field(tmp_path, plan, expected):
    with pytest.raises(ConfigError, match=expected) as refused:
        load(tmp_path, plan)
    assert str(refused.value).startswith(f"{tmp_path / 'store.toml'}: ")


def test_training_and_the_demo_store_offer_the_same_two_plans():
    from pathlib import Path

    from pos_app.config import check_store_profile
    from pos_app.membership_plans import DEMO_PLANS
    from pos_app.ui.app import training_config

    demo = Path(__file__).parent.parent / "packaging" / "stores" / "demo.toml"
    assert len(DEMO_PLANS) == 2
    assert check_store_profile(demo).memberships == DEMO_PLANS == training_config().memberships
