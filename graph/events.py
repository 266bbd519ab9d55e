"""Domain events of the graph, recorded in the edge log's transaction (under the follower's
lock) and published once the change is applied to Redis.

Payloads are IDs and times only, so subscribers can turn them straight into queue messages
(the following feed subscribes to fan a followee's pins in or out):

>>> subscribe(FOLLOW_CHANGED, lambda p: [apply_follow.message(p["follower_id"], ...)])

``target_kind`` is ``"user"`` or ``"board"``, ``action`` is ``"follow"`` or ``"unfollow"``.
If publishing fails, or Redis stays unreachable, the outbox relay publishes the event later.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from events.record import Event, PendingEvent, record, record_if_changed, record_many
from sharding.hosts import Answer
from sharding.ids import shard_of

TargetKind = Literal["user", "board"]
Action = Literal["follow", "unfollow"]
Target = tuple[str, int]
"""A follow target: ``("user", user_id)`` or ``("board", board_id)``."""

FOLLOW_CHANGED = "follow_changed"
"""A follow edge changed: ``follower_id, target_id, target_kind, action, action_time_us``."""

INTEREST_FOLLOW_CHANGED = "interest_follow_changed"
"""A pinner followed or unfollowed an interest: ``follower_id, interest_id, action,
action_time_us`` (published right after the commit: interest follows have no Redis side)."""


def follow_changed(follower_id: int, target_id: int, target_kind: TargetKind, action: Action,
                   action_time_us: int) -> Event:
    """Record the change in the follower's edge-log transaction; the action publishes it."""
    return follows_changed([(follower_id, target_id, target_kind, action, action_time_us)])[0]


def follow_changed_if(change: Answer, follower_id: int, target_id: int,
                      target_kind: TargetKind, action: Action, action_time_us: int,
                      ) -> PendingEvent:
    """:func:`follow_changed`, recorded only if the edge-log statement of ``change``, sent
    ahead right before it, changed a row (no wait for either answer)."""
    return record_if_changed(change, shard_of(follower_id), FOLLOW_CHANGED,
                             **_payload(follower_id, target_id, target_kind, action,
                                        action_time_us))


def follows_changed(changes: Sequence[tuple[int, int, TargetKind, Action, int]]) -> list[Event]:
    """Many :func:`follow_changed`, ``(follower_id, target_id, target_kind, action,
    action_time_us)`` each, in the open transaction of their followers' one host (one outbox
    insert)."""
    if not changes:
        return []
    return record_many(FOLLOW_CHANGED, [
        (shard_of(follower), _payload(follower, target, kind, action, time_us))
        for follower, target, kind, action, time_us in changes], publish_on_commit=False)


def _payload(follower_id: int, target_id: int, target_kind: TargetKind, action: Action,
             action_time_us: int) -> dict[str, object]:
    return {"follower_id": follower_id, "target_id": target_id, "target_kind": target_kind,
            "action": action, "action_time_us": action_time_us}


def interest_follow_changed(follower_id: int, interest_id: int, action: Action,
                            action_time_us: int) -> Event:
    """Record the change in the follower's transaction; it is published after the commit."""
    return record(shard_of(follower_id), INTEREST_FOLLOW_CHANGED, follower_id=follower_id,
                  interest_id=interest_id, action=action, action_time_us=action_time_us)
