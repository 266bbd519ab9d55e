"""Prometheus metrics of every pinsite process, and their exposition.

Each layer records into the metrics declared here (one place, so names and labels stay
consistent); the site's ``/metrics`` view (:mod:`pinsite.metrics`) exposes them.

Under ``manage.py runsite`` (or any server started with ``PROMETHEUS_MULTIPROC_DIR`` set),
every process (each web worker, each queue worker) writes its samples to files in that
directory and ``/metrics`` sums them, so one scrape sees the whole site. Without it, a process
exposes its own samples (tests, ``manage.py shell``).

>>> with store_call("redis", "redis001a"):
...     client.zadd(key, {member: score})
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST
# Store calls are sub-millisecond to tens of milliseconds; requests up to seconds.
STORE_BUCKETS = (.0002, .0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5)
REQUEST_BUCKETS = (.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10)
LAG_BUCKETS = (.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300)

REQUEST_SECONDS = Histogram(
    "pinsite_request_seconds", "Time to answer an HTTP request, by view, method and status class.",
    ["view", "method", "status"], buckets=REQUEST_BUCKETS)
STORE_SECONDS = Histogram(
    "pinsite_store_call_seconds",
    "Time of one call to a store: backend (mysql, redis, hbase) and instance (MySQL alias, "
    "Redis instance, HBase cluster).", ["backend", "instance"], buckets=STORE_BUCKETS)
STORE_ERRORS = Counter(
    "pinsite_store_call_errors_total", "Store calls that raised, by backend and instance.",
    ["backend", "instance"])
FANOUT_LAG = Histogram(
    "pinsite_feed_fanout_lag_seconds",
    "From a pin's creation to its delivery into followers' feeds, by HBase cluster.",
    ["cluster"], buckets=LAG_BUCKETS)
FEED_READS = Counter(
    "pinsite_feed_reads_total",
    "Speculative feed reads answered, by the cluster that answered and whether it was asked "
    "first or second (second: the other cluster was late or failed).", ["cluster", "asked"])

FEED_AUDIT_ENTRIES = Counter(
    "pinsite_feed_audit_entries_total",
    "Feed entries the auditor checked, by HBase cluster and outcome: present, missing, wrong "
    "(should not be there), misordered, pending (inside the fanout window).",
    ["cluster", "outcome"])
FEED_AUDIT_ROUNDS = Counter(
    "pinsite_feed_audit_rounds_total", "Audit rounds run, by source (schedule or command).",
    ["source"])


def store_call(backend: str, instance: str) -> _StoreCall:
    """Time one call to a store (errors are counted as well)."""
    timer = _store_timers.get((backend, instance))
    if timer is None:
        timer = _store_timers[backend, instance] = STORE_SECONDS.labels(backend, instance)
    return _StoreCall(timer, backend, instance)


# (backend, instance) → its STORE_SECONDS child: a store call is timed on every round trip,
# and ``labels()`` is a lookup under a lock.
_store_timers: dict[tuple[str, str], Any] = {}


class _StoreCall:
    __slots__ = ("backend", "instance", "started", "timer")

    def __init__(self, timer: Any, backend: str, instance: str) -> None:
        self.timer, self.backend, self.instance = timer, backend, instance

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.timer.observe(time.perf_counter() - self.started)
        if kind is not None:
            STORE_ERRORS.labels(self.backend, self.instance).inc()


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def exposition(collectors: Iterable[Collector] = ()) -> bytes:
    """The text exposition of this site's metrics (every process's, under a multiprocess
    directory), plus ``collectors`` read now (queue depths, outbox backlog)."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Default())
    for collector in collectors:
        registry.register(collector)
    return bytes(generate_latest(registry))


class _Default(Collector):
    """This process's own metrics (no multiprocess directory)."""

    def collect(self) -> Iterable[object]:  # type: ignore[override]
        return REGISTRY.collect()
