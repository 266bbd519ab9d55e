"""Queue actors of the sharding layer: cross-shard mapping writes that must not be lost.

A write that spans shards (a repin listed on its source pin's shard) cannot share the
transaction of the object it belongs to. It is recorded as a ``mapping_write`` event in that
transaction (:func:`events.mappings.write_after_commit`) and tried right after the commit; if
the other shard's host fails, the event's message reaches :func:`apply_mapping`, which retries
with backoff until it succeeds (or lands in the dead-letter queue for an operator). Both
operations are idempotent, so a retry is always safe.
"""

from __future__ import annotations

from typing import Literal

import dramatiq

from sharding import mappings
from sharding.mappings import MappingTable

Operation = Literal["add", "remove"]


@dramatiq.actor(queue_name="mappings", max_retries=30, min_backoff=500, max_backoff=600_000)
def apply_mapping(operation: str, table: str, from_id: int, to_id: int,
                  sequence: int | None = None) -> None:
    """Add or remove one mapping edge (idempotent)."""
    apply_write(operation, mappings.registry.by_name(table), from_id, to_id, sequence)


def apply_write(operation: str, table: MappingTable, from_id: int, to_id: int,
                sequence: int | None) -> None:
    """Add or remove one mapping edge now."""
    if operation == "add":
        mappings.add(table, from_id, to_id, sequence=sequence)
    elif operation == "remove":
        mappings.remove(table, from_id, to_id)
    else:
        raise ValueError(f"unknown mapping operation {operation!r}")
