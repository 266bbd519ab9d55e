"""Queue actors of the feed: thin wrappers over the feed's actions.

Planning actors (queue ``feed``) read the graph and send one message per cluster; cluster
actors (queues ``feed_primary`` and ``feed_standby``) write one HBase cluster each, so a
cluster that is down only delays its own queue. Every actor takes IDs and times, is
idempotent and can run twice or out of order; failures retry with exponential backoff (about
15 hours in all) and then land in the queue's dead-letter queue (``manage.py feed
deadletters``).

>>> fan_out_pin.send(pin_id, board_id, created_us)
>>> cluster_messages(apply_follow, follower_id, "user", followee_id, action_time_us)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from itertools import islice
from typing import Any

import dramatiq

from feed import delivery, fanout, follows, observe, pulled, rebuild, sources, storage, trim
from feed.conf import cap, count_delay_ms
from feed.store.pools import CLUSTERS, Cluster
from toolkit.clock import now_us
from toolkit.metrics import FANOUT_LAG
from toolkit.queue import BATCH, QueueDepth, declared_queues, queue_depths, send_all

PLANNING_QUEUE = "feed"
RETRIES: dict[str, Any] = {"max_retries": 100, "min_backoff": 500, "max_backoff": 600_000}
ClusterActors = dict[Cluster, dramatiq.Actor[..., None]]
STANDBY_LAG = 1
DRAIN_TIME_LIMIT_MS = 24 * 3600 * 1000
"""A drain writes a board's newest pins to all its followers: far longer than a message."""


def cluster_queue(cluster: Cluster) -> str:
    return f"feed_{cluster}"


def every_queue() -> list[str]:
    """Every queue this process's actors use: those declared with the broker (the actors
    imported) and the feed's."""
    return sorted({*declared_queues(), *queues()})


def every_queue_depth() -> list[QueueDepth]:
    """Ready, delayed and dead messages of every queue (:func:`every_queue`)."""
    return queue_depths(every_queue())


def queues() -> list[str]:
    """Every queue the feed's actors consume."""
    return [PLANNING_QUEUE, *(cluster_queue(cluster) for cluster in CLUSTERS)]


def cluster_messages(actors: ClusterActors, *args: Any) -> list[dramatiq.Message[Any]]:
    """The same message for each cluster's actor (each on its own queue)."""
    return [actors[cluster].message(*args) for cluster in CLUSTERS]


def _per_cluster(name: str, apply: Callable[..., None], priority: int = 0) -> ClusterActors:
    """One actor per cluster on that cluster's queue. A worker runs its lowest priority
    numbers first: ``priority`` above 0 yields to writes that readers wait for, and the
    standby's actors yield to the primary's (it serves the reads)."""
    return {cluster: dramatiq.actor(partial(apply, cluster), actor_name=f"feed_{name}_{cluster}",
                                    queue_name=cluster_queue(cluster),
                                    priority=priority + STANDBY_LAG * (cluster != "primary"),
                                    **RETRIES)
            for cluster in CLUSTERS}


# Cluster actors.

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


MAINTENANCE = 10

deliver_pin = _per_cluster("deliver_pin", _deliver)
retract_pin = _per_cluster("retract_pin", _retract)
apply_follow = _per_cluster("follow", _follow)
apply_unfollow = _per_cluster("unfollow", _unfollow)
count_writes = _per_cluster("count", _count, MAINTENANCE)
trim_feed = _per_cluster("trim", _trim, MAINTENANCE)
refill_feed = _per_cluster("refill", _refill, MAINTENANCE)
rebuild_cluster_feed = _per_cluster("rebuild", _rebuild, MAINTENANCE)
forget_user = _per_cluster("forget_user", _forget_user, MAINTENANCE)


# Planning actors.

@dramatiq.actor(queue_name=PLANNING_QUEUE, actor_name="feed_fan_out_pin", **RETRIES)
def fan_out_pin(pin_id: int, board_id: int, created_us: int) -> None:
    """Send a new pin (or repin) to every follower of its board, a chunk per message and
    cluster; nothing for a pulled (celebrity) board, whose pins readers pull."""
    decision = pulled.decide(board_id, created_us)
    if decision.drain:
        drain_board.send(board_id)
    if decision.push:
        _send_chunks(deliver_pin, fanout.follower_chunks(board_id), pin_id, board_id,
                     created_us, tracking=observe.FanoutTracking(pin_id, created_us))


@dramatiq.actor(queue_name=PLANNING_QUEUE, actor_name="feed_drain_board",
                time_limit=DRAIN_TIME_LIMIT_MS, **RETRIES)
def drain_board(board_id: int) -> None:
    """A pulled board is pushed again: write its newest pins into every follower's feed on
    both clusters, then take it off the pulled boards (readers merge it until then)."""
    entries = sources.board_entries(board_id, cap())
    for chunk in fanout.follower_chunks(board_id):
        backlog = delivery.check_backlog(board_id, entries, chunk)
        for cluster in CLUSTERS:
            send_all(trim_feed[cluster].message(user)
                     for user in delivery.write_backlog(cluster, backlog))
    pulled.finish_drain(board_id)


@dramatiq.actor(queue_name=PLANNING_QUEUE, actor_name="feed_fan_out_removal", **RETRIES)
def fan_out_removal(pin_id: int, board_id: int, created_us: int, deleted_us: int) -> None:
    """Take a deleted pin out of the feeds of its board's followers."""
    _send_chunks(retract_pin, fanout.follower_chunks(board_id), pin_id, created_us, deleted_us)


@dramatiq.actor(queue_name=PLANNING_QUEUE, actor_name="feed_forget_board", **RETRIES)
def forget_board(board_id: int, owner_id: int, deleted_us: int) -> None:
    """Sweep a deleted board's pins out of the feeds of its owner's followers (its explicit
    followers are swept by the unfollows the graph announces as it drops their follows); a
    pulled board leaves the pulled boards."""
    pulled.forget(board_id)
    for chunk in fanout.owner_follower_chunks(owner_id):
        send_all(message for follower in chunk
                 for message in cluster_messages(apply_unfollow, follower, "board", board_id,
                                                 deleted_us))


def _send_chunks(actors: ClusterActors, chunks: Iterator[list[int]], *args: Any,
                 tracking: observe.FanoutTracking | None = None) -> None:
    """``actors[cluster](*args, chunk)`` for every chunk and cluster, ``BATCH`` chunks at a
    time: the primary's messages of a batch go out together first (it serves the reads), then
    the standby's (whose actors a worker takes after the primary's); the followers are read
    once for both. With ``tracking`` (a pin's deliveries), each message also carries its
    chunk's number, registered for the fanout's lag (:mod:`feed.observe`) before it is sent."""
    numbered = enumerate(chunks)
    while batch := list(islice(numbered, BATCH)):
        if tracking is not None:
            tracking.register([number for number, _ in batch])
        for cluster in CLUSTERS:
            send_all(actors[cluster].message(*args, chunk, *(() if tracking is None else (n,)))
                     for n, chunk in batch)
    if tracking is not None:
        tracking.close()
