"""``/healthz`` and ``/readyz`` for load balancers.

``/healthz`` says the process is alive and serving (it asks no store). ``/readyz`` asks every
store this process needs, in parallel, each within a short timeout, and answers 503 when one
the site cannot serve without is unreachable: Django's own MySQL, a shard master, a graph
Redis master, the queue, ZooKeeper (without a session the process routes by maps it cannot
see change), or both feed clusters. The standby feed cluster alone, or the smart feed's
pools, being down degrade the site without stopping it: they are reported, still 200.

``/readyz`` answers only the networks (and token) of :mod:`pinsite.serving.access`, and one
probe answers for ``PINSITE_SERVING["READY_CACHE_SECONDS"]``: however many requests arrive,
each process probes the stores at most once per interval.

>>> GET /readyz
{"ready": true, "checks": {"mysql:default": {"ok": true, "ms": 0.4}, ...}}
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from django.db import connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from coordination.exceptions import CoordinationUnavailable
from coordination.zookeeper import zookeeper
from feed.store import pools as hbase
from graph import topology as graph_topology
from graph.store.connections import client as redis_client
from pinsite.serving.access import status_endpoint
from pinsite.serving.conf import serving_settings
from sharding.hosts import require_alias
from sharding.topology import current_map
from toolkit.queue import ping

TIMEOUT_SECONDS = 2.0
ZOOKEEPER_WAIT_SECONDS = 1.0
TIMED_OUT = {"ok": False, "error": "timed out"}


@dataclass(frozen=True)
class Check:
    name: str
    probe: Callable[[], object]
    required: bool = True


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is alive."""
    return JsonResponse({"status": "ok", "pid": os.getpid()})


@dataclass(frozen=True)
class Readiness:
    """One probe's answer: whether the process can serve, and each check's result."""

    ready: bool
    checks: dict[str, dict[str, Any]]


class ProbeCache:
    """The last readiness answer of this process, reused while younger than ``max_age``
    seconds; callers arriving while a probe runs wait for it instead of probing again.

    >>> readiness.answer(max_age=1.0).ready
    True
    """

    def __init__(self, probe: Callable[[], Readiness]) -> None:
        self._probe = probe
        self._lock = threading.Lock()
        self._answer: Readiness | None = None
        self._taken = 0.0
        self.probes = 0  # how many probes ran (tests, and a sign of the cache working)

    def answer(self, max_age: float) -> Readiness:
        with self._lock:
            if self._answer is None or time.monotonic() - self._taken >= max_age:
                self._answer = self._probe()
                self._taken = time.monotonic()
                self.probes += 1
            return self._answer

    def forget(self) -> None:
        """Drop the cached answer: the next request probes."""
        with self._lock:
            self._answer = None


@require_GET
@never_cache
@status_endpoint
def readyz(request: HttpRequest) -> JsonResponse:
    """Every store reachable from this process (see the module's doc for what is required)."""
    answer = readiness.answer(serving_settings.decimal("READY_CACHE_SECONDS"))
    return JsonResponse({"ready": answer.ready, "checks": answer.checks},
                        status=200 if answer.ready else 503)


def probe_stores() -> Readiness:
    """Ask every store at once; answer within :data:`TIMEOUT_SECONDS`, a probe still running
    then counting as timed out (its thread is left to finish on its own)."""
    checks = _checks()
    pool = ThreadPoolExecutor(max_workers=len(checks), thread_name_prefix="readyz")
    futures = {check: pool.submit(_run, check.probe) for check in checks}
    wait(futures.values(), timeout=TIMEOUT_SECONDS)
    pool.shutdown(wait=False)
    results = {check.name: {**(future.result() if future.done() else TIMED_OUT),
                            "required": check.required} for check, future in futures.items()}
    feed_up = results["hbase:primary"]["ok"] or results["hbase:standby"]["ok"]
    ready = feed_up and all(results[c.name]["ok"] for c in checks if c.required)
    return Readiness(ready, results)


readiness = ProbeCache(probe_stores)


def _checks() -> list[Check]:
    checks = [Check("mysql:default", partial(_select_one, "default")),
              Check("zookeeper", _zookeeper)]
    for name, read_map, backend, probe in (
            ("shardmap", current_map, "mysql", _select_one),
            ("vshardmap", graph_topology.current_map, "redis", _ping)):
        try:
            masters = read_map().masters()
        except Exception as exc:  # the map itself is something this process needs
            checks.append(Check(name, partial(_raise, exc)))
            continue
        checks += [Check(f"{backend}:{master}", partial(probe, master)) for master in masters]
    checks += [Check(f"hbase:{cluster}", partial(_hbase, cluster), required=False)
               for cluster in hbase.SETTING]
    checks.append(Check("queue", partial(ping, TIMEOUT_SECONDS)))
    return checks


def _run(probe: Callable[[], object]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        probe()
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 2)}


def _select_one(alias: str) -> None:
    require_alias(alias)  # a shard host registered after this process started
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        connections[alias].close()


def _ping(instance: str) -> None:
    redis_client(instance).ping()


def _hbase(cluster: str) -> None:
    with hbase.connection(cast(hbase.AnyCluster, cluster)) as conn:
        conn.tables()


def _zookeeper() -> None:
    if not zookeeper.connected(ZOOKEEPER_WAIT_SECONDS):
        raise CoordinationUnavailable(
            "no ZooKeeper session: shard and vshard map changes go unseen")


def _raise(exc: Exception) -> None:
    raise exc
