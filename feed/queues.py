"""The feed's queues: planning on ``feed``, writing on one queue per HBase cluster
(``feed_primary``, ``feed_standby``), so a cluster that is down only delays its own queue.
Every actor of the feeds retries with the same backoff (about 15 hours in all) before its
message lands in the queue's dead-letter queue (``manage.py feed deadletters``).

>>> names()
['feed', 'feed_primary', 'feed_standby']
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import dramatiq

from feed.store.pools import CLUSTERS, Cluster
from toolkit.queue import QueueDepth, declared_queues, queue_depths

PLANNING_QUEUE = "feed"
RETRIES: dict[str, Any] = {"max_retries": 100, "min_backoff": 500, "max_backoff": 600_000}
STANDBY_LAG = 1
ClusterActors = dict[Cluster, dramatiq.Actor[..., None]]


def cluster_queue(cluster: Cluster) -> str:
    return f"feed_{cluster}"


def per_cluster(name: str, apply: Callable[..., None], priority: int = 0) -> ClusterActors:
    """One actor per cluster, ``<name>_<cluster>``, on that cluster's queue, calling
    ``apply(cluster, *args)``. A worker runs its lowest priority numbers first: ``priority``
    above 0 yields to writes that readers wait for, and the standby's actors yield to the
    primary's (it serves the reads)."""
    return {cluster: dramatiq.actor(partial(apply, cluster), actor_name=f"{name}_{cluster}",
                                    queue_name=cluster_queue(cluster),
                                    priority=priority + STANDBY_LAG * (cluster != "primary"),
                                    **RETRIES)
            for cluster in CLUSTERS}


def names() -> list[str]:
    """Every queue the feed's actors consume."""
    return [PLANNING_QUEUE, *(cluster_queue(cluster) for cluster in CLUSTERS)]


def every_queue() -> list[str]:
    """Every queue this process's actors use: those declared with the broker (the actors
    imported) and the feed's."""
    return sorted({*declared_queues(), *names()})


def every_queue_depth() -> list[QueueDepth]:
    """Ready, delayed and dead messages of every queue (:func:`every_queue`)."""
    return queue_depths(every_queue())
