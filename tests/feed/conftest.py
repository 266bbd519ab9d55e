"""Feed test set-up: graph map and feed tables on the running stack, captured queues, workers.

Feeds are isolated by user: every test makes its own users, so rows never collide.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dramatiq
import pytest
from django.core.management import call_command
from pytest_django import Settings

from feed import tasks
from feed.store import pools
from tests.feed.helpers import CapturedQueue, flush_feed_queues

SMALL_FEED = {"CAP": 6, "SLACK": 4, "FANOUT_CHUNK": 3}


@pytest.fixture(autouse=True, scope="session")
def _feed_stack(django_db_setup: None) -> None:
    call_command("graph", "init", verbosity=0)
    call_command("feed", "init", verbosity=0)


@pytest.fixture(autouse=True)
def _media(settings: Settings, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"


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


@pytest.fixture
def worker() -> Iterator[dramatiq.Worker]:
    """A Dramatiq worker on the real RabbitMQ broker consuming the feed's queues (emptied
    first of what other tests left)."""
    flush_feed_queues()
    running = dramatiq.Worker(dramatiq.get_broker(), queues=set(tasks.queues()),
                              worker_threads=4, worker_timeout=100)
    running.start()
    yield running
    running.stop()
