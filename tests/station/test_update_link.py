"""Ctrl+U's Qt-free part (issue 19) over loopback: the attached customer's vault read for
its email and phone; the update request (never an invitation) queued to the one contact
picked, the other never sent; the sentence says queued, never delivered; a contact that
is not the vault's refused with nothing sent."""

from __future__ import annotations

import pytest

from pos_app.config import StoreConfig
from pos_app.station import Station
from pos_app.station.update_link import Contact, ContactKind, link_target, send_update_link
from tests.vault_customers import made_customer


@pytest.fixture
def config(sandbox, tmp_path):
    return StoreConfig(base_url=sandbox.base_url, store_id="s1", station_id="lane-9", terminal_id="tb-2001",
                       poll_wait_limit=20.0, data_dir=tmp_path / "data")


def queued(sandbox):
    return sandbox.sandbox.books["B"].vaults.links


async def test_the_link_goes_to_the_contact_picked_only_and_is_said_queued(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        ada = await made_customer(station.client, "Ada", "Lovelace", "ada@example.com", "(555) 987-6543",
                                  card=False)
        target = await link_target(station.client, ada)
        assert target.contacts == (Contact(ContactKind.EMAIL, "ada@example.com"),
                                   Contact(ContactKind.PHONE, "(555) 987-6543"))
        assert not target.has_card
        said = await send_update_link(station.client, target, target.contacts[1])
        assert said.startswith("Link queued for (555) 987-6543: Ada Lovelace can add a card with it")
        assert "delivered" not in said.replace("not confirmed", "")
        [link] = queued(sandbox)
        assert (link.kind, link.customer_id, link.email, link.phone_number) == ("update_request", ada.id, None,
                                                                      "(555) 987-6543")

        carded = await made_customer(station.client, "Bob", "Card", "bob@example.com")
        target = await link_target(station.client, carded)
        assert target.contacts == (Contact(ContactKind.EMAIL, "bob@example.com"),) and target.has_card
        said = await send_update_link(station.client, target, target.contacts[0])
        assert said.startswith("Link queued for bob@example.com: Bob Card can update the card on file with it")
        assert [(q.kind, q.email, q.phone_number) for q in queued(sandbox)][1:] == [
            ("update_request", "bob@example.com", None)]


async def test_a_contact_not_on_file_is_refused_and_nothing_is_sent(sandbox, config):
    async with await Station.open(config, sandbox.keys["B"], training=True) as station:
        ada = await made_customer(station.client, "Ada", "Lovelace", "ada@example.com", card=False)
        target = await link_target(station.client, ada)
        with pytest.raises(ValueError, match="not one of Ada Lovelace's contacts: nothing was sent"):
            await send_update_link(station.client, target, Contact(ContactKind.EMAIL, "eve@example.com"))
        assert queued(sandbox) == []
