"""Queue actors of the sharding layer: cross-shard mapping writes that must not be lost.

A write that spans shards (a repin listed on its source pin's shard) cannot share the
transaction of the object it belongs to. It is tried at once; if the other shard's host fails,
the write is queued and retried with backoff until it succeeds (or lands in the dead-letter
queue for an operator). Both operations are idempotent, so a retry is always safe.

>>> write_or_enqueue("add", PIN_HAS_REPINS, source_pin_id, repin_id, sequence=created_us)
"""

from __future__ import annotations

import logging
from typing import Literal

import dramatiq

from sharding import mappings
from sharding.exceptions import ShardingError
from sharding.mappings import MappingTable

log = logging.getLogger("pinsite.sharding")
Operation = Literal["add", "remove"]


@dramatiq.actor(queue_name="mappings", max_retries=30, min_backoff=500, max_backoff=600_000)
def apply_mapping(operation: str, table: str, from_id: int, to_id: int,
                  sequence: int | None = None) -> None:
    """Add or remove one mapping edge (idempotent)."""
    _apply(operation, mappings.registry.by_name(table), from_id, to_id, sequence)


def _apply(operation: str, table: MappingTable, from_id: int, to_id: int,
           sequence: int | None) -> None:
    if operation == "add":
        mappings.add(table, from_id, to_id, sequence=sequence)
    elif operation == "remove":
        mappings.remove(table, from_id, to_id)
    else:
        raise ValueError(f"unknown mapping operation {operation!r}")


def write_or_enqueue(operation: Operation, table: MappingTable, from_id: int, to_id: int,
                     sequence: int | None = None) -> bool:
    """Apply the write now; if the shard host fails, queue it for retries. True if applied."""
    try:
        _apply(operation, table, from_id, to_id, sequence)
        return True
    except ShardingError as exc:
        log.warning("%s %s %d -> %d failed (%s); queued for retry", operation, table.name,
                    from_id, to_id, exc)
    apply_mapping.send(operation, table.name, from_id, to_id, sequence)
    return False
