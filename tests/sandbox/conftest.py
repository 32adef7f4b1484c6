"""Plain httpx clients for each sandbox merchant (not the app's client)."""

from __future__ import annotations

import httpx
import pytest

from tests.sandbox.helpers import USER_AGENT


def _client(sandbox, merchant: str) -> httpx.Client:
    headers = {"key-hash": sandbox.keys[merchant], "user-agent": USER_AGENT}
    return httpx.Client(base_url=sandbox.base_url, headers=headers, timeout=5.0)


@pytest.fixture
def s_client(sandbox):
    with _client(sandbox, "S") as client:
        yield client


@pytest.fixture
def b_client(sandbox):
    with _client(sandbox, "B") as client:
        yield client


@pytest.fixture
def admin(sandbox):
    with httpx.Client(base_url=sandbox.base_url + "/_sandbox", timeout=5.0) as client:
        yield client
