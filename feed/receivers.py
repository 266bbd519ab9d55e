"""Domain events the feed listens to; each receiver only enqueues IDs and times.

Connected by :class:`feed.apps.FeedConfig` when Django starts. The events are sent after the
content's or the graph's transaction commits, so the queued work always finds the change made.
"""

from __future__ import annotations

import logging
from typing import Any

from feed import tasks
from sharding.mappings import now_sequence

log = logging.getLogger("pinsite.feed")


def on_pin_created(sender: Any, pin_id: int, board_id: int, created_at_us: int,
                   **_: Any) -> None:
    tasks.fan_out_pin.send(pin_id, board_id, created_at_us)


def on_pin_deleted(sender: Any, pin_id: int, board_id: int, created_at_us: int | None = None,
                   **_: Any) -> None:
    """The deletion time is taken now, after the commit, so it is later than any follow that
    could still have seen the pin."""
    if created_at_us is None:
        log.error("pin_deleted for pin %d came without created_at_us; its feed entries cannot "
                  "be addressed and stay until trimmed (reads skip them)", pin_id)
        return
    tasks.fan_out_removal.send(pin_id, board_id, created_at_us, now_sequence())


def on_follow_changed(sender: Any, follower_id: int, target_id: int, target_kind: str,
                      action: str, action_time_us: int, **_: Any) -> None:
    actors = tasks.apply_follow if action == "follow" else tasks.apply_unfollow
    tasks.send_to_clusters(actors, follower_id, target_kind, target_id, action_time_us)


def connect() -> None:
    """Connect the receivers (idempotent)."""
    from graph.events import follow_changed
    from pins.events import pin_created, pin_deleted

    pin_created.connect(on_pin_created, dispatch_uid="feed.pin_created")
    pin_deleted.connect(on_pin_deleted, dispatch_uid="feed.pin_deleted")
    follow_changed.connect(on_follow_changed, dispatch_uid="feed.follow_changed")
