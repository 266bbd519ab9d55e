"""Cross-shard mapping writes as events: recorded with the change they belong to, applied
right after the commit, queued through the outbox when the other shard's host fails.

>>> with atomic(shard_of(repin_id)):
...     ...                                    # the repin and its local mappings
...     write_after_commit(shard_of(repin_id), "add", PIN_HAS_REPINS, source_id, repin_id,
...                        sequence=created_us)
"""

from __future__ import annotations

import logging
from typing import Any

from dramatiq import Message

from events import marker, registry
from events.record import Event, publish, record
from sharding.exceptions import ShardingError
from sharding.hosts import after_commit
from sharding.mappings import MappingTable
from sharding.mappings import registry as tables
from sharding.tasks import Operation, apply_mapping, apply_write

log = logging.getLogger("pinsite.events")
EVENT = "mapping_write"


def write_after_commit(shard: int, operation: Operation, table: MappingTable, from_id: int,
                       to_id: int, sequence: int | None = None) -> Event:
    """Record the write on ``shard`` (in its open transaction); apply it once that commits."""
    event = record(shard, EVENT, publish_on_commit=False, operation=operation,
                   table=table.name, from_id=from_id, to_id=to_id, sequence=sequence)
    after_commit(event.alias, lambda: _write_now(event))
    return event


def _write_now(event: Event) -> None:
    """Apply the write; if its host fails, publish it for the queue to retry (and if the
    queue fails too, the relay publishes it later)."""
    p = event.payload
    try:
        apply_write(p["operation"], tables.by_name(p["table"]), p["from_id"], p["to_id"],
                    p["sequence"])
    except ShardingError as exc:
        log.warning("%s %s %d -> %d failed (%s); queued for retry", p["operation"], p["table"],
                    p["from_id"], p["to_id"], exc)
        publish([event])
        return
    marker.mark_sent([event])


def _messages(payload: dict[str, Any]) -> list[Message[Any]]:
    return [apply_mapping.message(payload["operation"], payload["table"], payload["from_id"],
                                  payload["to_id"], payload["sequence"])]


def connect() -> None:
    """Subscribe the mapping write's queue message (idempotent)."""
    registry.subscribe(EVENT, _messages, uid="events.mapping_write")
