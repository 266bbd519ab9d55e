"""Domain events the smart feed subscribes to; each subscriber only turns IDs into queue
messages (subscribed by :class:`feed.smart.apps.SmartFeedConfig` when Django starts)."""

from __future__ import annotations

from typing import Any

from dramatiq import Message

from events.registry import Payload, subscribe
from feed.smart import tasks
from graph.events import FOLLOW_CHANGED, INTEREST_FOLLOW_CHANGED
from pins.events import PIN_CREATED, USER_DELETED

Messages = list[Message[Any]]


def on_pin_created(p: Payload) -> Messages:
    return [tasks.fan_out_pin.message(p["pin_id"])]


def on_follow_changed(p: Payload) -> Messages:
    return [tasks.follow.message(p["follower_id"], p["target_kind"], p["target_id"],
                                 p["action"])]


def on_interest_follow_changed(p: Payload) -> Messages:
    return [tasks.interest_follow.message(p["follower_id"], p["interest_id"], p["action"])]


def on_user_deleted(p: Payload) -> Messages:
    return tasks.forget_messages(p["user_id"])


def connect() -> None:
    """Subscribe the smart feed to the content's and the graph's events (idempotent)."""
    subscribe(PIN_CREATED, on_pin_created, uid="smartfeed.pin_created")
    subscribe(FOLLOW_CHANGED, on_follow_changed, uid="smartfeed.follow_changed")
    subscribe(INTEREST_FOLLOW_CHANGED, on_interest_follow_changed,
              uid="smartfeed.interest_follow_changed")
    subscribe(USER_DELETED, on_user_deleted, uid="smartfeed.user_deleted")
