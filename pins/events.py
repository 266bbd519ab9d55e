"""Domain events of the content domain, recorded in the shard transaction of the change.

Payloads are IDs and times only (never objects), so subscribers can turn them straight into
queue messages (:mod:`events.registry`). They are published right after the commit, or by the
outbox relay if that fails:

>>> subscribe(PIN_CREATED, lambda p: [fan_out_pin.message(p["pin_id"], ...)])
"""

from __future__ import annotations

from typing import Any

from events.record import Event, record, record_many

PIN_CREATED = "pin_created"
"""A pin (or repin) was created: ``pin_id, board_id, pinner_id, created_at_us,
source_pin_id`` (``None`` for a new upload)."""

PIN_DELETED = "pin_deleted"
"""A pin was deleted: ``pin_id, board_id, pinner_id, created_at_us`` (``None`` if unknown)."""

BOARD_DELETED = "board_deleted"
"""A board and its pins were deleted: ``board_id, owner_id``."""

IMAGE_RELEASED = "image_released"
"""A pin sharing an image went: ``image_pin_id, image, thumbnail`` (the files go if no pin is
left)."""

ACCOUNT_DELETION_REQUESTED = "account_deletion_requested"
"""A pinner asked to delete their account: ``user_id``."""

USER_DELETED = "user_deleted"
"""A pinner's account is gone (the last step of its deletion): ``user_id``."""


def pin_created(pin_id: int, board_id: int, pinner_id: int, created_at_us: int,
                source_pin_id: int | None) -> dict[str, Any]:
    """The payload of one pin's ``pin_created`` (recorded by :func:`pins_created`)."""
    return {"pin_id": pin_id, "board_id": board_id, "pinner_id": pinner_id,
            "created_at_us": created_at_us, "source_pin_id": source_pin_id}


def pins_created(rows: list[tuple[int, dict[str, Any]]],
                 publish_on_commit: bool = True) -> list[Event]:
    """``pin_created`` of several pins, ``(shard, payload of pin_created)`` each, in their
    shards' open transaction."""
    return record_many(PIN_CREATED, rows, publish_on_commit=publish_on_commit)


def pin_deleted(shard: int, pin_id: int, board_id: int, pinner_id: int,
                created_at_us: int | None) -> None:
    record(shard, PIN_DELETED, pin_id=pin_id, board_id=board_id, pinner_id=pinner_id,
           created_at_us=created_at_us)


def board_deleted(shard: int, board_id: int, owner_id: int) -> None:
    record(shard, BOARD_DELETED, board_id=board_id, owner_id=owner_id)


def image_released(shard: int, image_pin_id: int, image: str, thumbnail: str) -> None:
    record(shard, IMAGE_RELEASED, image_pin_id=image_pin_id, image=image, thumbnail=thumbnail)


def account_deletion_requested(shard: int, user_id: int) -> None:
    record(shard, ACCOUNT_DELETION_REQUESTED, user_id=user_id)


def user_deleted(shard: int, user_id: int) -> None:
    record(shard, USER_DELETED, user_id=user_id)
