"""The outbox at a glance, per shard host: what waits, how old the oldest row is, what went out
in the last minute. Read by ``manage.py events show`` and the admin's queues page.

>>> [(h.alias, h.unsent, h.warning) for h in backlog()]
[('mysql001a', 0, False), ('mysql002a', 3, False)]
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from django.db import connections

from events.conf import events_settings
from sharding import outbox
from sharding.exceptions import ShardingError
from sharding.topology import current_map
from toolkit.clock import now_us

MINUTE_US = 60 * 1_000_000


@dataclass(frozen=True)
class HostBacklog:
    """One shard master's outbox; ``warning`` when its oldest unsent row is over the limit."""

    alias: str
    unsent: int | None
    oldest_unsent_seconds: float | None
    sent_last_minute: int | None
    warning: bool
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def host_backlog(alias: str) -> HostBacklog:
    now = now_us()
    try:
        counts = outbox.counts(alias, now - MINUTE_US)
    except ShardingError as exc:
        return HostBacklog(alias, None, None, None, True, str(exc))
    finally:
        connections[alias].close()
    age = None if counts.oldest_unsent_us is None else (now - counts.oldest_unsent_us) / 1e6
    late = age is not None and age * 1000 > events_settings.BACKLOG_WARNING_MS
    return HostBacklog(alias, counts.unsent, None if age is None else round(age, 1),
                       counts.sent_since, late)


def backlog() -> list[HostBacklog]:
    """Every shard master's outbox, asked in parallel."""
    masters = current_map().masters()
    with ThreadPoolExecutor(max_workers=max(1, len(masters))) as pool:
        return list(pool.map(host_backlog, masters))
