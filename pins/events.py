"""Domain events of the content domain, recorded in the shard transaction of the change.

Payloads are IDs and times only (never objects), so subscribers can turn them straight into
queue messages (:mod:`events.registry`). They are published right after the commit, or by the
outbox relay if that fails:

>>> subscribe(PIN_CREATED, lambda p: [fan_out_pin.message(p["pin_id"], ...)])
"""

from __future__ import annotations

from events.record import record

PIN_CREATED = "pin_created"
"""A pin (or repin) was created: ``pin_id, board_id, pinner_id, created_at_us``."""

PIN_DELETED = "pin_deleted"
"""A pin was deleted: ``pin_id, board_id, pinner_id, created_at_us`` (``None`` if unknown)."""


def pin_created(shard: int, pin_id: int, board_id: int, pinner_id: int,
                created_at_us: int) -> None:
    record(shard, PIN_CREATED, pin_id=pin_id, board_id=board_id, pinner_id=pinner_id,
           created_at_us=created_at_us)


def pin_deleted(shard: int, pin_id: int, board_id: int, pinner_id: int,
                created_at_us: int | None) -> None:
    record(shard, PIN_DELETED, pin_id=pin_id, board_id=board_id, pinner_id=pinner_id,
           created_at_us=created_at_us)
