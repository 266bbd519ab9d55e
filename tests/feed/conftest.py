"""Feed test set-up: small feeds, the real queue with a worker and short delays, captured
queues for the few tests about what is sent, fresh connection pools (the stack, the media folder
and the worker itself come from ``tests/conftest.py``).

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
from tests.feed.running import InFlight, RunningQueue

SMALL_FEED = {"CAP": 6, "SLACK": 4, "FANOUT_CHUNK": 3}
COUNT_DELAY_MS = 100


@pytest.fixture
def small_feed(settings: Settings) -> dict[str, Any]:
    """A feed cap of 6 with a slack of 4 (trims keep 8, every 2 writes), 3 followers a chunk."""
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, **SMALL_FEED}
    return SMALL_FEED


@pytest.fixture
def running(worker: dramatiq.Worker, settings: Settings) -> Iterator[RunningQueue]:
    """RabbitMQ and a worker, the messages of this process counted (``running.settle()``
    waits for all of them); a delivery's count waits 100 ms in its delay queue."""
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "COUNT_DELAY_MS": COUNT_DELAY_MS}
    in_flight = InFlight()
    broker = dramatiq.get_broker()
    broker.add_middleware(in_flight)
    try:
        yield RunningQueue(in_flight)
    finally:
        broker.middleware.remove(in_flight)


@pytest.fixture
def queue() -> Iterator[CapturedQueue]:
    """Every message sent during the test, captured instead of published to RabbitMQ: only
    for tests about what is sent (see :class:`CapturedQueue`)."""
    with CapturedQueue(dramatiq.get_broker()).capturing() as captured:
        yield captured


@pytest.fixture
def fresh_pools() -> Iterator[None]:
    """Connection pools made from the settings of this test, dropped afterwards."""
    pools.reset()
    yield
    pools.reset()

