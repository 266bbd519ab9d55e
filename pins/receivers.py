"""Domain events the content domain subscribes to: a pin that shared an image went.

Subscribed by :class:`pins.apps.PinsConfig` when Django starts.
"""

from __future__ import annotations

from typing import Any

from dramatiq import Message

from events.registry import Payload, subscribe
from pins import tasks
from pins.events import IMAGE_RELEASED


def on_image_released(p: Payload) -> list[Message[Any]]:
    return [tasks.release_image.message(p["image_pin_id"], p["image"], p["thumbnail"])]


def connect() -> None:
    """Subscribe (idempotent)."""
    subscribe(IMAGE_RELEASED, on_image_released, uid="pins.image_released")
