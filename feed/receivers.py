"""Domain events the feed subscribes to; each subscriber only turns IDs and times into queue
messages.

Subscribed by :class:`feed.apps.FeedConfig` when Django starts. Events are published after the
content's or the graph's transaction commits (by the committing process, or by the outbox
relay), so the queued work always finds the change made.
"""

from __future__ import annotations

import logging
from typing import Any

from dramatiq import Message

from events.registry import Payload, subscribe
from feed import tasks, writers
from graph.events import FOLLOW_CHANGED
from pins.events import BOARD_DELETED, PIN_CREATED, PIN_DELETED, USER_DELETED
from toolkit.clock import now_us

log = logging.getLogger("pinsite.feed")
Messages = list[Message[Any]]


def on_pin_created(p: Payload) -> Messages:
    return [tasks.fan_out_pin.message(p["pin_id"], p["board_id"], p["created_at_us"])]


def on_pin_deleted(p: Payload) -> Messages:
    """The deletion time is taken when the message is built, after the commit, so it is later
    than any follow that could still have seen the pin."""
    if p.get("created_at_us") is None:
        log.error("pin_deleted for pin %d came without created_at_us; its feed entries cannot "
                  "be addressed and stay until trimmed (reads skip them)", p["pin_id"])
        return []
    return [tasks.fan_out_removal.message(p["pin_id"], p["board_id"], p["created_at_us"],
                                          now_us())]


def on_follow_changed(p: Payload) -> Messages:
    actors = writers.apply_follow if p["action"] == "follow" else writers.apply_unfollow
    return writers.cluster_messages(actors, p["follower_id"], p["target_kind"], p["target_id"],
                                  p["action_time_us"])


def on_board_deleted(p: Payload) -> Messages:
    return [tasks.forget_board.message(p["board_id"], p["owner_id"], now_us())]


def on_user_deleted(p: Payload) -> Messages:
    return writers.cluster_messages(writers.forget_user, p["user_id"])


def connect() -> None:
    """Subscribe the feed to the content's and the graph's events (idempotent)."""
    subscribe(PIN_CREATED, on_pin_created, uid="feed.pin_created")
    subscribe(PIN_DELETED, on_pin_deleted, uid="feed.pin_deleted")
    subscribe(FOLLOW_CHANGED, on_follow_changed, uid="feed.follow_changed")
    subscribe(BOARD_DELETED, on_board_deleted, uid="feed.board_deleted")
    subscribe(USER_DELETED, on_user_deleted, uid="feed.user_deleted")
