"""Feed test set-up: small feeds, captured queues, fresh connection pools (the stack, the media
folder and the queue worker come from ``tests/conftest.py``).

Feeds are isolated by user: every test makes its own users, so rows never collide.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import dramatiq
import pytest
from pytest_django import Settings

from feed.store import pools
from tests.feed.helpers import CapturedQueue

SMALL_FEED = {"CAP": 6, "SLACK": 4, "FANOUT_CHUNK": 3}


@pytest.fixture
def small_feed(settings: Settings) -> dict[str, Any]:
    """A feed cap of 6 with a slack of 4 (trims keep 8, every 2 writes), 3 followers a chunk."""
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, **SMALL_FEED}
    return SMALL_FEED


@pytest.fixture
def queue() -> Iterator[CapturedQueue]:
    """Every message sent during the test, captured instead of published to RabbitMQ."""
    with CapturedQueue(dramatiq.get_broker()).capturing() as captured:
        yield captured


@pytest.fixture
def fresh_pools() -> Iterator[None]:
    """Connection pools made from the settings of this test, dropped afterwards."""
    pools.reset()
    yield
    pools.reset()

