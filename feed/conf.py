"""Feed settings: the ``PINSITE_FEED`` dict, resolved lazily with defaults in code.

>>> from feed.conf import feed_settings
>>> feed_settings.CAP, feed_settings.SLACK
(1000, 100)
"""

from __future__ import annotations

from typing import Any

from toolkit.settings import Settings

DEFAULTS: dict[str, Any] = {
    # The two HBase clusters (Thrift servers) and the table name prefix.
    "PRIMARY": ("127.0.0.1", 9090),
    "STANDBY": ("127.0.0.1", 9091),
    "POOLS": ("127.0.0.1", 9092),
    "TABLE_PREFIX": "pinsite",
    # Connections: one pool per cluster per process.
    "POOL_SIZE": 12,
    "POOL_WAIT_SECONDS": 5.0,
    "TIMEOUT_MS": 5000,
    # Size: a feed keeps its newest CAP entries exact and never holds more than CAP + SLACK.
    "CAP": 1000,
    "SLACK": 100,
    # Pins of a followee written on a follow (per board); None means CAP.
    "BACKFILL_PINS": None,
    # Fanout: followers per delivery message.
    "FANOUT_CHUNK": 1000,
    # Celebrities: a board with more followers than this is not fanned out; readers pull its
    # pins (feed.pulled). None: every board is pushed.
    "PULL_ABOVE": 100_000,
    # Upkeep: how long after a delivery its writes are counted (trim accounting), so that a
    # fanout's deliveries on every worker go out before the counting of its first chunks.
    "COUNT_DELAY_MS": 1000,
    # Reads: ask the standby too when the primary has not answered within the cutoff.
    "SPECULATIVE_CUTOFF_MS": 50,
    "STANDBY_READ_SHARE": 0.01,
    "READ_THREADS": 16,
    "PAGE_SIZE": 50,
    "MAX_PAGE": 200,
    # The auditor (feed.audit): a change younger than the window is not counted yet; the
    # window is the larger of the floor and the factor times the recent fanout-lag p99.
    "AUDIT_WINDOW_SECONDS": 30,
    "AUDIT_LAG_FACTOR": 3,
    # The queue workers audit AUDIT_SAMPLE random pinners every AUDIT_EVERY_SECONDS (one
    # process across the site does each round; 0 turns it off) and keep a day of rounds.
    "AUDIT_SAMPLE": 5,
    "AUDIT_EVERY_SECONDS": 60,
    "AUDIT_KEEP_HOURS": 24,
}

feed_settings = Settings("PINSITE_FEED", DEFAULTS)


def cap() -> int:
    return feed_settings.number("CAP")


def slack() -> int:
    return feed_settings.number("SLACK")


def count_delay_ms() -> int | None:
    """How long a delivery's count waits in the queue; None when it does not wait."""
    delay = feed_settings.number("COUNT_DELAY_MS")
    return delay if delay > 0 else None


def pull_above() -> int | None:
    """The follower count above which a board's pins are pulled (None: never)."""
    value = feed_settings.PULL_ABOVE
    return None if value is None else int(value)


def backfill_pins() -> int:
    """How many of a followed board's newest pins a follow writes (at least 1)."""
    configured = feed_settings.BACKFILL_PINS
    return max(1, cap() if configured is None else int(configured))
