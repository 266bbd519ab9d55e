"""The queues page: a dashboard of the last hour's fanouts (lag, deliveries, queue depths,
standby reads, dead letters; :mod:`pinsite.admin.dashboard`), then messages waiting, delayed,
held by workers (retries waiting for their time, from the last sample) and dead per queue, the
event outbox of every shard host, the feed's dead letters, and the health of the feed's two
HBase clusters. It reloads itself every 10 s (``dashboard.REFRESH_SECONDS``)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse

from events.conf import events_settings
from events.status import backlog
from feed import observe
from feed import queues as feed_queues
from feed.selectors import feed_head
from feed.speculative import answers
from feed.store.pools import CLUSTERS, Cluster, address
from pins.types import USER
from pinsite.admin import dashboard
from pinsite.admin.pages import attempt, render_page
from sharding import ids
from toolkit.queue import DeadLetter, QueueDepth, dead_letters

SHOWN_LETTERS = 50
PROBE_USER = ids.compose(0, USER.type_id, 1)
"""The feed row read to probe a cluster (a read of one row, present or not)."""


@dataclass(frozen=True)
class ClusterHealth:
    cluster: str
    address: str
    up: bool
    milliseconds: float | None
    answered_here: int
    error: str | None


def queue_depths() -> list[QueueDepth]:
    """Ready, delayed and dead messages of every queue."""
    return feed_queues.every_queue_depth()


def cluster_health(cluster: Cluster) -> ClusterHealth:
    """Read one feed row from ``cluster`` and time it."""
    host, port = address(cluster)
    started = time.perf_counter()
    _, error = attempt(lambda: feed_head(PROBE_USER, cluster))
    elapsed = (time.perf_counter() - started) * 1000
    return ClusterHealth(cluster, f"{host}:{port}", error is None,
                         None if error else round(elapsed, 1), answers.answered.get(cluster, 0),
                         error)


def letters() -> list[DeadLetter]:
    return dead_letters(feed_queues.every_queue(), limit=SHOWN_LETTERS)


def queues(request: HttpRequest) -> HttpResponse:
    """Queue depths, the event outbox, dead letters and the feed clusters."""
    depths, depth_error = attempt(queue_depths)
    if depths is not None:
        observe.sample_depths(lambda: depths)
    figures, figures_error = attempt(observe.figures)
    held = figures["summary"]["held_retries"] if figures else {}
    hosts, outbox_error = attempt(backlog)
    dead, dead_error = attempt(letters)
    return render_page(request, "queues.html", "Queues", {
        "charts": dashboard.charts(figures) if figures else [],
        "lag_rows": dashboard.lag_rows(figures) if figures else [],
        "summary": figures["summary"] if figures else None, "figures_error": figures_error,
        "refresh_seconds": dashboard.REFRESH_SECONDS,
        "depths": [{"name": depth.name, "ready": depth.ready, "delayed": depth.delayed,
                    "held": held.get(depth.name, 0), "dead": depth.dead}
                   for depth in depths or []],
        "depth_error": depth_error, "outbox": hosts,
        "outbox_error": outbox_error,
        "outbox_warning_seconds": events_settings.BACKLOG_WARNING_MS // 1000, "letters": dead,
        "letters_error": dead_error, "shown_letters": SHOWN_LETTERS,
        "clusters": [cluster_health(cluster) for cluster in CLUSTERS]})
