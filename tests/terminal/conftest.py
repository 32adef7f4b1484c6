"""Fixtures for the terminal service: a real client, a real journal file, the sandbox."""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest

from pos_app.api.client import Identity, PaymentsClient
from pos_app.journal import Journal
from pos_app.terminal import TerminalService


@dataclass
class Lane:
    """One merchant's view: its service, client, journal and terminal ids."""

    merchant: str
    service: TerminalService
    client: PaymentsClient
    journal: Journal
    active: list[str]
    inactive: str | None


@asynccontextmanager
async def open_lane(sandbox, merchant: str, journal_path, *, wait_limit: float = 20.0, gateway: str = "auto",
                    **service_options):
    client = PaymentsClient(sandbox.base_url, sandbox.keys[merchant], identity=Identity("s1", "lane-1", "c7"))
    journal = Journal.open(journal_path)
    try:
        listing = await client.list_terminals()
        active = [t.id for t in listing.data if t.is_active is not False]
        stats_inactive = [t["id"] for t in sandbox.stats().get("terminals", [])
                          if t.get("merchant") == merchant and not t.get("isActive", True)]
        inactive = next((t.id for t in listing.data if t.is_active is False), None) or (
            stats_inactive[0] if stats_inactive else None)
        service = TerminalService(client, journal, gateway=gateway, wait_limit=wait_limit, **service_options)
        yield Lane(merchant, service, client, journal, active, inactive)
    finally:
        await client.aclose()
        journal.close()


@pytest.fixture
def lane_factory(sandbox, tmp_path):
    def make(merchant: str, **kwargs):
        return open_lane(sandbox, merchant, tmp_path / f"journal-{merchant}.sqlite3", **kwargs)

    return make


def pay_requests(sandbox, merchant: str, route: str = "terminal.pay") -> int:
    return sandbox.stats()["requests"].get(merchant, {}).get(route, 0)
