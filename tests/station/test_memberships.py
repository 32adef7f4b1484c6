"""Memberships at the counter (issue 19), Qt-free over loopback: a customer with a card
enrolled in a store plan (a subscription on their default card, listed under the plan's
name with its next payment and status); a customer without a card refused with the way
out (Ctrl+U), nothing sent; a manager's pause, resume and cancel each in the audit trail
(who, which membership, why); a change the status does not allow refused before sending,
and one the service refuses said in its words with nothing audited."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from pos_app.api.subscription_models import CustomSchedule, SubscriptionDraft, SubscriptionStatus
from pos_app.cart import OrderCustomer
from pos_app.config import StoreConfig
from pos_app.membership_plans import MembershipPlan
from pos_app.sandbox.subscriptions import PAUSE_PAUSED
from pos_app.staff import AuditAction, StaffMember
from pos_app.station import Station
from pos_app.station.counter import Counter
from pos_app.station.memberships import (
    Membership,
    MembershipChange,
    NoPaymentMethod,
    change_membership,
    enroll,
    memberships_of,
)
from tests.counters import counter_for, manager_of
from tests.vault_customers import made_customer

COFFEE = MembershipPlan(name="Coffee club", amount=1500, every_months=1, day=1, payments=12)
WEEKLY = MembershipPlan(name="Weekly flowers", amount=999, every_days=7)


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data", memberships=(COFFEE, WEEKLY))


def subscription_requests(sandbox) -> int:
    return sum(n for route, n in sandbox.stats()["requests"].get("B", {}).items() if route.startswith("subscri"))


async def ada_in_the_coffee_club(station: Station) -> tuple[Counter, StaffMember, OrderCustomer, Membership]:
    """A counter, its demo manager, and Ada (with a card) enrolled in the Coffee club."""
    counter = await counter_for(station)
    ada = await made_customer(station.client, "Ada", "Lovelace", "ada@example.com")
    return (counter, await manager_of(counter), ada,
            await enroll(station.client, ada, COFFEE, station.config.memberships))


async def test_a_customer_with_a_card_is_enrolled_and_listed_by_plan_with_next_payment(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter = await counter_for(station)
        ada = await made_customer(station.client, "Ada", "Lovelace", "ada@example.com")
        made = await enroll(station.client, ada, COFFEE, config.memberships)
        assert (made.name, made.amount, made.status) == ("Coffee club", 1500, SubscriptionStatus.RUNNING)
        assert made.next_payment is not None and made.next_payment > date.today() and made.next_payment.day == 1
        await enroll(station.client, ada, WEEKLY, config.memberships)
        custom = await station.client.subscriptions.create(SubscriptionDraft(
            customerVaultId=ada.id, customSchedule=CustomSchedule(amount=4200, dayFrequency=30, payments=3)))
        other = await made_customer(station.client, "Bob", "Other", "bob@example.com")
        await enroll(station.client, other, WEEKLY, config.memberships)

        listed = await memberships_of(station.client, ada.id, config.memberships)
        assert sorted(m.name for m in listed) == ["Coffee club", "Custom", "Weekly flowers"]
        coffee = next(m for m in listed if m.id == made.id)
        assert coffee.schedule == "every month on day 1, 12 payments"
        line = coffee.line(counter.money)
        assert line.startswith("Coffee club  ·  $15.00 every month on day 1, 12 payments  ·  next payment ")
        assert line.endswith("active")
        assert next(m for m in listed if m.id == custom.id).line(counter.money).startswith(
            "Custom  ·  $42.00 every 30 days, 3 payments")
        assert next(m for m in listed if m.name == "Weekly flowers").schedule == "every 7 days, until cancelled"
        await counter.aclose()


async def test_a_customer_without_a_card_is_told_how_and_nothing_is_sent(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        cara = await made_customer(station.client, "Cara", "Nocard", "cara@example.com", card=False)
        before = subscription_requests(sandbox)
        with pytest.raises(NoPaymentMethod, match="Cara Nocard has no card on file.*Ctrl\\+U.*nothing was sent"):
            await enroll(station.client, cara, COFFEE, config.memberships)
        assert subscription_requests(sandbox) == before
        assert await memberships_of(station.client, cara.id, config.memberships) == []


async def test_a_manager_pauses_resumes_and_cancels_each_in_the_audit_trail(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter, manager, ada, membership = await ada_in_the_coffee_club(station)

        paused = await change_membership(counter, ada, membership, MembershipChange.PAUSE, manager, "travelling")
        assert paused.status is SubscriptionStatus.PAUSED and paused.next_payment is None
        before = subscription_requests(sandbox)
        with pytest.raises(ValueError, match="only a membership that is active can be paused; Coffee club is "
                                             "paused: nothing was sent"):
            await change_membership(counter, ada, paused, MembershipChange.PAUSE, manager, "again")
        assert subscription_requests(sandbox) == before
        resumed = await change_membership(counter, ada, paused, MembershipChange.RESUME, manager, "back home")
        assert resumed.status is SubscriptionStatus.RUNNING and resumed.next_payment is not None
        cancelled = await change_membership(counter, ada, resumed, MembershipChange.CANCEL, manager, "moved away")
        assert cancelled.status is SubscriptionStatus.INACTIVE
        [listed] = await memberships_of(station.client, ada.id, config.memberships)
        assert listed.status is SubscriptionStatus.INACTIVE and listed.line(counter.money).endswith("CANCELLED")

        audit = [e for e in reversed(await counter.disk(counter.staff.audit)) if e.action.startswith("membership_")]
        assert [(e.actor, e.action, e.reason) for e in audit] == [
            (manager.name, AuditAction.MEMBERSHIP_PAUSED, "travelling"),
            (manager.name, AuditAction.MEMBERSHIP_RESUMED, "back home"),
            (manager.name, AuditAction.MEMBERSHIP_CANCELLED, "moved away")]
        assert all(f"Coffee club ({membership.id}) of Ada Lovelace" in e.detail for e in audit)
        await counter.aclose()


async def test_a_change_the_service_refuses_is_said_in_its_words_and_not_audited(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        counter, manager, ada, membership = await ada_in_the_coffee_club(station)
        await station.client.subscriptions.pause(membership.id)  # paused elsewhere: the list shown is stale
        stale = dataclasses.replace(membership, status=SubscriptionStatus.RUNNING)
        with pytest.raises(ValueError, match=f"the service refused to pause it: {PAUSE_PAUSED}"):
            await change_membership(counter, ada, stale, MembershipChange.PAUSE, manager, "travelling")
        assert not [e for e in await counter.disk(counter.staff.audit) if e.action.startswith("membership_")]
        await counter.aclose()
