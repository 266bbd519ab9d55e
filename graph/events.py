"""Domain events of the graph, sent once a change is in the edge log and applied to Redis.

Receivers get IDs and times only, so they can hand them straight to a queue (the following
feed subscribes to fan a followee's pins in or out):

>>> @receiver(follow_changed)
... def on_follow(sender, follower_id, target_id, target_kind, action, action_time_us, **kw):
...     ...

``target_kind`` is ``"user"`` or ``"board"``, ``action`` is ``"follow"`` or ``"unfollow"``.
Events go out with ``send_robust``: a failing receiver is logged and never undoes the write.
"""

from __future__ import annotations

import logging
from typing import Literal

from django.dispatch import Signal

logger = logging.getLogger("pinsite.graph.events")

TargetKind = Literal["user", "board"]
Action = Literal["follow", "unfollow"]

follow_changed = Signal()
"""A follow edge changed: ``follower_id, target_id, target_kind, action, action_time_us``."""


def announce(follower_id: int, target_id: int, target_kind: TargetKind, action: Action,
             action_time_us: int) -> None:
    """Send :data:`follow_changed`, once the change is in the edge log and applied to Redis."""
    payload = {"follower_id": follower_id, "target_id": target_id, "target_kind": target_kind,
               "action": action, "action_time_us": action_time_us}
    for receiver, result in follow_changed.send_robust(sender="graph", **payload):
        if isinstance(result, Exception):
            logger.error("receiver %r of follow_changed failed for %s", receiver, payload,
                         exc_info=result)
