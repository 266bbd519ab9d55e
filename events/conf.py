"""Event settings: the ``PINSITE_EVENTS`` dict, resolved lazily with defaults in code.

>>> from events.conf import events_settings
>>> events_settings.RELAY_GRACE_MS
2000
"""

from __future__ import annotations

import logging
import time
from typing import Any

from toolkit.settings import Settings

log = logging.getLogger("pinsite.events")

DEFAULTS: dict[str, Any] = {
    # The relay: rows per batch, how often an idle relay looks, and how old a row must be
    # before the relay takes it (the committing process publishes it itself at once; the
    # grace keeps the relay from racing that fast path, which only costs duplicates).
    "RELAY_IN_WORKERS": True,
    "RELAY_BATCH": 200,
    "RELAY_POLL_MS": 500,
    "RELAY_GRACE_MS": 2000,
    # Sent rows are kept this long (for inspection), then purged by the relay.
    "RETENTION_HOURS": 24,
    "PURGE_INTERVAL_MS": 60_000,
    "PURGE_CHUNK": 5000,
    # The graph's fast path publishes from a background thread, at most this many events per
    # AMQP transaction (events.publisher).
    "PUBLISH_BATCH": 500,
    # ... and waits this long after the first event for more to join its batch.
    "PUBLISH_LINGER_MS": 5,
    # The fast path marks its rows sent in batches, this often, in the background.
    "MARK_INTERVAL_MS": 500,
    # An unsent row older than this is a warning in `events show` and the admin.
    "BACKLOG_WARNING_MS": 60_000,
    # Test hooks: pause the fast path after the commit, before publishing; pause the relay
    # after publishing a batch, before marking it sent. Zero in production.
    "HOLD_BEFORE_PUBLISH_MS": 0,
    "HOLD_BEFORE_MARK_MS": 0,
}

events_settings = Settings("PINSITE_EVENTS", DEFAULTS)


def hold(milliseconds: int) -> None:
    """Pause for a test hook's setting (``HOLD_…_MS``); nothing when it is zero."""
    if milliseconds > 0:
        log.warning("holding %d ms (a PINSITE_EVENTS test hook is set)", milliseconds)
        time.sleep(milliseconds / 1000)
