"""The outbox read as a journal: every event of a kind recorded since a moment, sent or not,
on every shard master, for as long as the relay keeps sent rows (``RETENTION_HOURS``).

A store that can lose its recent writes (a promoted Redis replica) asks it what changed since
the last moment it is known to hold, instead of reading everything again.

>>> [row.payload["follower_id"] for row in recorded_since("follow_changed", since_us)]
[1153, 2305]
"""

from __future__ import annotations

from collections.abc import Iterator

from events.conf import events_settings
from sharding import outbox
from sharding.hosts import alias_for_shard
from sharding.topology import current_map
from toolkit.clock import now_us

BATCH = 1000
HOUR_US = 3600 * 1_000_000


def kept_since() -> int:
    """Sent rows older than this (µs) are purged: ``RETENTION_HOURS`` ago."""
    return now_us() - events_settings.number("RETENTION_HOURS") * HOUR_US


def covers(since_us: int) -> bool:
    """Whether every event recorded since ``since_us`` is still kept."""
    return since_us > kept_since()


def recorded_since(name: str, since_us: int, until_us: int | None = None,
                   shard: int | None = None) -> Iterator[outbox.Row]:
    """Every event ``name`` recorded at or after ``since_us`` (and at or before ``until_us``),
    host by host, oldest first; with ``shard``, only on the master that serves it (where the
    events of its objects are recorded)."""
    shard_map = current_map()
    masters = shard_map.masters() if shard is None else [alias_for_shard(shard, shard_map)]
    for alias in masters:
        after = (since_us, 0)
        while rows := outbox.recorded_since(alias, name, after, BATCH):
            if until_us is not None and rows[-1].created_us > until_us:
                yield from (row for row in rows if row.created_us <= until_us)
                break
            yield from rows
            after = (rows[-1].created_us, rows[-1].id)
