"""Client fixtures: one PaymentsClient per merchant against the sandbox."""

import pytest_asyncio

from pos_app.api.client import Identity, PaymentsClient, RetryPolicy

FAST_RETRY = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)


@pytest_asyncio.fixture
async def clients(sandbox):
    made = {m: PaymentsClient(sandbox.base_url, key, identity=Identity("s1", "lane-1", "c7"), retry=FAST_RETRY)
            for m, key in sandbox.keys.items()}
    yield made
    for client in made.values():
        await client.aclose()
