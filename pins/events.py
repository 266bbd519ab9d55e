"""Domain events of the content domain, sent once the shard transaction has committed.

Receivers get IDs and times only (never objects), so they can hand them straight to a queue:

>>> @receiver(pin_created)
... def fan_out(sender, pin_id, board_id, pinner_id, created_at_us, **kwargs): ...

Events go out with ``send_robust``: a failing receiver is logged and never undoes or fails the
write that already committed.
"""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import Signal

from sharding.hosts import after_commit

logger = logging.getLogger("pinsite.pins.events")

pin_created = Signal()
"""A pin (or repin) was created: ``pin_id, board_id, pinner_id, created_at_us``."""

pin_deleted = Signal()
"""A pin was deleted: ``pin_id, board_id, pinner_id, created_at_us`` (``None`` if unknown)."""


def send_after_commit(alias: str, signal: Signal, **payload: Any) -> None:
    """Send ``signal`` with ``payload`` when the transaction on ``alias`` commits."""
    after_commit(alias, lambda: _send(signal, payload))


def _send(signal: Signal, payload: dict[str, Any]) -> None:
    for receiver, result in signal.send_robust(sender="pins", **payload):
        if isinstance(result, Exception):
            logger.error("receiver %r of a pins event failed for %s", receiver, payload,
                         exc_info=result)
