"""``/metrics`` (Prometheus text format) and the middleware that times every request.

The samples come from :mod:`toolkit.metrics` (requests per view, store calls per MySQL
alias, Redis instance and HBase cluster, fanout lag, speculative feed reads, and the queue
workers' ``dramatiq_*`` metrics), summed over every process of the site when it runs under
``manage.py runsite``. Three sources are read at scrape time: queue depths (RabbitMQ), the
event outbox's backlog (each shard master) and the feed auditor's newest round
(:mod:`feed.audit_rounds`); if one cannot be read, its ``pinsite_metrics_source_up`` is 0 and
the rest of the scrape still answers.

``/metrics`` answers only the networks (and token) of :mod:`pinsite.serving.access`:
loopback unless ``PINSITE_STATUS_ALLOW`` says otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from events.status import backlog
from feed import audit_rounds
from pinsite.admin.queues import queue_depths
from pinsite.serving.access import status_endpoint
from toolkit.metrics import CONTENT_TYPE, REQUEST_SECONDS, exposition

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class RequestMetrics:
    """Time each request under its view's name (``unmatched`` for 404s no route matched)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = request.resolver_match
        view = match.view_name if match is not None else "unmatched"
        method = request.method if request.method in METHODS else "other"
        REQUEST_SECONDS.labels(view, method, f"{response.status_code // 100}xx").observe(
            time.perf_counter() - started)
        return response


@require_GET
@never_cache
@status_endpoint
def metrics(request: HttpRequest) -> HttpResponse:
    return HttpResponse(exposition([StoresNow()]), content_type=CONTENT_TYPE)


class StoresNow(Collector):
    """Queue depths and the outbox backlog, read when scraped."""

    def collect(self) -> Iterable[Metric]:
        up = GaugeMetricFamily("pinsite_metrics_source_up",
                               "Whether a scrape-time source could be read.", labels=["source"])
        for source, read in (("queues", _queues), ("outbox", _outbox),
                             ("feed_audit", _feed_audit)):
            try:
                families = read()
            except Exception:
                up.add_metric([source], 0)
                continue
            up.add_metric([source], 1)
            yield from families
        yield up


def _queues() -> list[Metric]:
    messages = GaugeMetricFamily("pinsite_queue_messages",
                              "Messages waiting in a queue: ready, delayed or dead.",
                              labels=["queue", "state"])
    for depth in queue_depths():
        for state in ("ready", "delayed", "dead"):
            messages.add_metric([depth.name, state], _number(getattr(depth, state)))
    return [messages]


def _outbox() -> list[Metric]:
    unsent = GaugeMetricFamily("pinsite_outbox_unsent_events",
                               "Outbox rows not yet published, per shard master.", labels=["host"])
    oldest = GaugeMetricFamily("pinsite_outbox_oldest_unsent_seconds",
                               "Age of the oldest unpublished outbox row, per shard master "
                               "(0 when none waits).", labels=["host"])
    for host in backlog():
        if host.error is not None:
            raise RuntimeError(host.error)
        unsent.add_metric([host.alias], _number(host.unsent))
        oldest.add_metric([host.alias], _number(host.oldest_unsent_seconds))
    return [unsent, oldest]


AUDIT_GAUGES = (
    ("recall", "Share of the expected feed entries present, in the newest audit round."),
    ("precision", "Share of the stored feed entries that belong there, in the newest audit "
                  "round."),
    ("order_violations", "Entries stored under another time than their pin's, in the newest "
                         "audit round."),
    ("missing", "Expected entries missing past the fanout window, in the newest audit round."),
)


def _feed_audit() -> list[Metric]:
    """The newest round of the feed auditor (:mod:`feed.audit_rounds`), per cluster."""
    point = audit_rounds.latest()
    if point is None:
        return []
    families = []
    for name, help_text in AUDIT_GAUGES:
        family = GaugeMetricFamily(f"pinsite_feed_audit_{name}", help_text, labels=["cluster"])
        for cluster, figures in point["clusters"].items():
            family.add_metric([cluster], _number(figures[name]))
        families.append(family)
    stale = GaugeMetricFamily("pinsite_feed_audit_staleness_seconds",
                              "How long the longest-missing expected entry has been due, in the "
                              "newest audit round.", labels=["cluster"])
    for cluster, figures in point["clusters"].items():
        stale.add_metric([cluster], _number(figures["staleness_seconds"]["max"]))
    age = GaugeMetricFamily("pinsite_feed_audit_age_seconds",
                            "Seconds since the newest audit round.")
    age.add_metric([], max(0.0, time.time() - point["at_us"] / 1e6))
    users = GaugeMetricFamily("pinsite_feed_audit_users", "Pinners in the newest audit round.")
    users.add_metric([], _number(point["users"]))
    return [*families, stale, age, users]


def _number(value: Any) -> float:
    return float(value or 0)
