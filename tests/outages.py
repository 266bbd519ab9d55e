"""Outages of the shared test stack's servers, for the tests marked ``alone``.

>>> with stopped("hbase1"):
...     assert feed_ids(user, "standby") == pins
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

from devstack import Stack

RESTART_SECONDS = 60


@contextmanager
def stopped(service: str) -> Iterator[Stack]:
    """``service`` of the test stack stopped for the block; started again, and healthy,
    after it."""
    stack = Stack(settings.PROFILE)
    stack.stop(service)
    try:
        yield stack
    finally:
        stack.start(service)
        stack.wait_healthy(service, RESTART_SECONDS)
