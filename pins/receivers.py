"""Domain events the content domain subscribes to: a pin that shared an image went, a repin
relates pins.

Subscribed by :class:`pins.apps.PinsConfig` when Django starts.
"""

from __future__ import annotations

from typing import Any

from dramatiq import Message

from events.registry import Payload, subscribe
from pins import tasks
from pins.events import IMAGE_RELEASED, PIN_CREATED


def on_image_released(p: Payload) -> list[Message[Any]]:
    return [tasks.release_image.message(p["image_pin_id"], p["image"], p["thumbnail"])]


def on_pin_created(p: Payload) -> list[Message[Any]]:
    """A repin makes its source related to the pins on the board it lands on."""
    if p.get("source_pin_id") is None:
        return []
    return [tasks.relate_repin.message(p["pin_id"])]


def connect() -> None:
    """Subscribe (idempotent)."""
    subscribe(IMAGE_RELEASED, on_image_released, uid="pins.image_released")
    subscribe(PIN_CREATED, on_pin_created, uid="pins.pin_created")
