"""Subscribers: what queue messages an event becomes.

A subscriber receives an event's payload (IDs and times, as recorded) and returns the
messages to publish, built with ``actor.message(...)``. The same subscribers serve the fast
path and the relay, in every process (they are connected in ``AppConfig.ready``).

>>> subscribe("pin_created", lambda p: [fan_out_pin.message(p["pin_id"], p["board_id"],
...                                                         p["created_at_us"])])
>>> messages_for("pin_created", {"pin_id": 1, "board_id": 2, "created_at_us": 3})
[Message(actor_name='feed_fan_out_pin', ...)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from dramatiq import Message

Payload = dict[str, Any]
Subscriber = Callable[[Payload], Iterable[Message[Any]]]

_subscribers: dict[str, dict[str, Subscriber]] = {}


def subscribe(event: str, subscriber: Subscriber, uid: str | None = None) -> None:
    """Add ``subscriber`` to ``event`` (idempotent per ``uid``, by default its name)."""
    key = uid or f"{subscriber.__module__}.{subscriber.__qualname__}"
    _subscribers.setdefault(event, {})[key] = subscriber


def unsubscribe(event: str, uid: str) -> None:
    _subscribers.get(event, {}).pop(uid, None)


def messages_for(event: str, payload: Payload) -> list[Message[Any]]:
    """Every subscriber's messages for one event, in subscription order (the subscribers of
    the moment: the publisher thread may run this while another thread subscribes)."""
    return [message for subscriber in list(_subscribers.get(event, {}).values())
            for message in subscriber(payload)]
