"""A customer of one's own in the sandbox's vaults, made through the client as the back
office would (``customers.create``, then a card added with its token): the member tests
make theirs rather than rely on any seeded customer."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import date

from pos_app.api.client import PaymentsClient
from pos_app.api.customer_models import CustomerDraft, VaultCard
from pos_app.cart import OrderCustomer

EXP = f"12{date.today().year + 1 - 2000:02d}"
"""A card expiry a year ahead (MMYY)."""


async def made_customer(client: PaymentsClient, first: str, last: str, email: str, phone: str | None = None, *,
                        card: bool = True) -> OrderCustomer:
    """A new vault (with a Visa 4242 as its default card unless ``card`` is False)."""
    vault = await client.customers.create(CustomerDraft(firstName=first, lastName=last, email=email,
                                                        phoneNumber=phone))
    if card:
        await client.customers.add_card(vault.id, VaultCard(number="424242******4242", paymentToken=f"tok-{first}",
                                                            exp=EXP))
    return OrderCustomer(vault.id, vault.name, vault.email, vault.phone_number)


def customer_now(base_url: str, key_hash: str, first: str, last: str, email: str, phone: str | None = None, *,
                 card: bool = True) -> OrderCustomer:
    """``made_customer`` from a test that holds no running event loop (a Qt test): on a
    thread of its own, with a client of its own."""
    async def make() -> OrderCustomer:
        async with PaymentsClient(base_url, key_hash) as client:
            return await made_customer(client, first, last, email, phone, card=card)

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, make()).result(timeout=30)
