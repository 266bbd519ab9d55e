"""The feed's writing actors: one per HBase cluster for each kind of write, on that
cluster's queue (:mod:`feed.queues`), so a cluster that is down only delays its own writes.
Each takes IDs and times, is idempotent and can run twice or out of order; the planning
(:mod:`feed.planning`) sends them.

>>> cluster_messages(apply_follow, follower_id, "user", followee_id, action_time_us)
>>> deliver_pin["primary"].send(pin_id, board_id, created_us, followers)
"""

from __future__ import annotations

from typing import Any

import dramatiq

from auditlog.operations import operation
from feed import delivery, follows, observe, rebuild, storage, trim
from feed.conf import count_delay_ms
from feed.exceptions import FeedUnavailable
from feed.queues import ClusterActors, per_cluster
from feed.store.pools import CLUSTERS, Cluster
from toolkit.clock import now_us
from toolkit.metrics import FANOUT_LAG
from toolkit.queue import send_all

MAINTENANCE = 10


def cluster_messages(actors: ClusterActors, *args: Any) -> list[dramatiq.Message[Any]]:
    """The same message for each cluster's actor (each on its own queue)."""
    return [actors[cluster].message(*args) for cluster in CLUSTERS]


def _deliver(cluster: Cluster, pin_id: int, board_id: int, created_us: int,
             followers: list[int], chunk: int | None = None) -> None:
    """``chunk``: the chunk's number in its fanout, for the lag of its last delivery
    (:mod:`feed.observe`); None (messages queued before it was sent) is not tracked."""
    receiving = delivery.deliver(cluster, pin_id, board_id, created_us, followers)
    lag = observe.lag_of(created_us)
    FANOUT_LAG.labels(cluster).observe(lag)
    observe.delivered(cluster, pin_id, created_us, len(receiving), chunk, lag)
    if receiving:
        count_writes[cluster].send_with_options(args=(receiving,), delay=count_delay_ms())


def _count(cluster: Cluster, user_ids: list[int]) -> None:
    send_all(trim_feed[cluster].message(user_id)
             for user_id in trim.count_writes(cluster, user_ids))


def _retract(cluster: Cluster, pin_id: int, created_us: int, deleted_us: int,
             followers: list[int]) -> None:
    send_all(refill_feed[cluster].message(user_id)
             for user_id in delivery.retract(cluster, pin_id, created_us, deleted_us, followers))


def _follow(cluster: Cluster, follower_id: int, target_kind: str, target_id: int,
            action_time_us: int) -> None:
    if follows.follow(cluster, follower_id, target_kind, target_id, action_time_us):
        trim_feed[cluster].send(follower_id)


def _unfollow(cluster: Cluster, follower_id: int, target_kind: str, target_id: int,
              action_time_us: int) -> None:
    if follows.unfollow(cluster, follower_id, target_kind, target_id, action_time_us):
        rebuild_cluster_feed[cluster].send(follower_id)


def _forget_user(cluster: Cluster, user_id: int, again: bool = True) -> None:
    """Delete a deleted user's feed row; once more after the delayed write counting, which
    may still add a counter for deliveries that were under way."""
    storage.delete_feed(cluster, user_id, now_us())
    if again:
        forget_user[cluster].send_with_options(args=(user_id, False),
                                               delay=2 * (count_delay_ms() or 0) + 1000)


def _trim(cluster: Cluster, user_id: int) -> None:
    trim.trim(cluster, user_id)


def _refill(cluster: Cluster, user_id: int) -> None:
    rebuild.refill(cluster, user_id)


def _rebuild(cluster: Cluster, user_id: int) -> None:
    rebuild.rebuild(cluster, user_id)


deliver_pin = per_cluster("feed_deliver_pin", _deliver)
retract_pin = per_cluster("feed_retract_pin", _retract)
apply_follow = per_cluster("feed_follow", _follow)
apply_unfollow = per_cluster("feed_unfollow", _unfollow)
count_writes = per_cluster("feed_count", _count, MAINTENANCE)
trim_feed = per_cluster("feed_trim", _trim, MAINTENANCE)
refill_feed = per_cluster("feed_refill", _refill, MAINTENANCE)
rebuild_cluster_feed = per_cluster("feed_rebuild", _rebuild, MAINTENANCE)
forget_user = per_cluster("feed_forget_user", _forget_user, MAINTENANCE)


def rebuild_everywhere(user_id: int) -> dict[str, Any]:
    """Rebuild ``user_id``'s feed on each cluster now; a cluster that cannot be reached gets
    the rebuild queued for when it is back. Per cluster: ``entries`` written and ``removed``,
    or ``queued`` and the ``error``. Recorded in the operator audit log as ``feed.rebuild``."""
    outcome: dict[str, Any] = {}
    with operation("feed.rebuild", f"user {user_id}") as recorded:
        for name in CLUSTERS:
            try:
                done = rebuild.rebuild(name, user_id)
                outcome[name] = {"entries": done.entries, "removed": done.removed}
            except FeedUnavailable as exc:
                rebuild_cluster_feed[name].send(user_id)
                outcome[name] = {"queued": True, "error": str(exc)}
        recorded.result = outcome
    return outcome
