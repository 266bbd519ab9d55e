"""Queue actors of the content domain: thin wrappers over its actions, idempotent, retried.

>>> release_image.send(image_pin_id, "pins/00012/ab/ab….jpg", "pins/00012/ab/ab…_236.jpg")
"""

from __future__ import annotations

from typing import Any

import dramatiq

from pins import related
from pins.actions import pins

QUEUE = "pins"
RETRIES: dict[str, Any] = {"max_retries": 100, "min_backoff": 500, "max_backoff": 600_000}


@dramatiq.actor(queue_name=QUEUE, actor_name="pins_release_image", **RETRIES)
def release_image(image_pin_id: int, image: str, thumbnail: str) -> None:
    """Delete an image's files if no pin shares them any more."""
    pins.release_image(image_pin_id, image, thumbnail)


@dramatiq.actor(queue_name=QUEUE, actor_name="pins_relate_repin", **RETRIES)
def relate_repin(repin_id: int) -> None:
    """Count a repin's board towards its source's related pins (once per repin)."""
    related.record_repin(repin_id)
