"""Smart feed settings: the ``PINSITE_SMARTFEED`` dict, resolved lazily with defaults in code.

The pools cluster's address is the feed's ``PINSITE_FEED["POOLS"]`` (``PINSITE_HBASE_POOLS``).

>>> from feed.smart.conf import smart_settings
>>> smart_settings.BUDGET_MS
100
"""

from __future__ import annotations

from typing import Any

from feed.conf import feed_settings
from toolkit.settings import Settings

DEFAULTS: dict[str, Any] = {
    # The generator's time budget per visit; past it the service answers without a chunk.
    "BUDGET_MS": 100,
    # The budget when earlier visits showed nothing (a first visit, or the materialized feed
    # unreadable): with nothing to answer instead, an empty page is worse than a slower one.
    "FIRST_BUDGET_MS": 1000,
    "GENERATOR_THREADS": 16,
    # A visit's messages are sent by a background thread with those of the visits made within
    # this long (one transaction, one disk sync for all of them).
    "VISIT_LINGER_MS": 5,
    # Pools: each user's pool per source keeps its best POOL_CAP entries, trimmed once it
    # holds POOL_CAP + POOL_SLACK.
    "POOL_CAP": 500,
    "POOL_SLACK": 100,
    # Chunks: at least CHUNK_MIN new pins per visit, CHUNK_PER_HOUR more for each hour since
    # the last delivered chunk, at most CHUNK_MAX.
    "CHUNK_MIN": 10,
    "CHUNK_MAX": 40,
    "CHUNK_PER_HOUR": 4,
    # The materialized feed keeps the newest HOME_CAP entries shown.
    "HOME_CAP": 1000,
    # Scoring (docs/smartfeed.md): the source weights, the share of a chunk each source gets,
    # the half-life of recency, and the threshold under which a pin is dropped from a pool.
    "SOURCE_WEIGHTS": {"following": 1.0, "repins": 0.8, "interests": 0.6, "related": 0.5},
    "SOURCE_RATES": {"following": 0.4, "repins": 0.25, "interests": 0.2, "related": 0.15},
    "HALF_LIFE_HOURS": 24,
    "QUALITY_THRESHOLD": 0.05,
    # Pins written into a pool when a follow starts (per followed board or interest), and
    # related pins per saved pin.
    "BACKFILL_PINS": 20,
    "RELATED_PINS": 10,
}

smart_settings = Settings("PINSITE_SMARTFEED", DEFAULTS)


def budget_seconds(shown_before: bool = True) -> float:
    """How long a first page waits for the generator's chunk: ``BUDGET_MS``, or, when earlier
    visits showed nothing to answer with instead, ``FIRST_BUDGET_MS`` (if longer)."""
    budget = smart_settings.number("BUDGET_MS")
    if not shown_before:
        budget = max(budget, smart_settings.number("FIRST_BUDGET_MS"))
    return budget / 1000


def pool_cap() -> int:
    return smart_settings.number("POOL_CAP")


def pool_slack() -> int:
    return smart_settings.number("POOL_SLACK")


def home_cap() -> int:
    return smart_settings.number("HOME_CAP")


def table(kind: str) -> str:
    """``<prefix>_pools`` (pools cluster) and ``<prefix>_home`` (primary and standby), with the
    feed's table prefix."""
    return f"{feed_settings.TABLE_PREFIX}_{kind}"
