"""``manage.py bench failover``, the graph's half: from a graph Redis master's SIGKILL to the
next acknowledged follow, with Redis Sentinel and the orchestrator running and nobody typing a
command.

Each run starts a throwaway Redis master/replica pair watched by three sentinels (at the local
stack's settings: a master is down after ``DOWN_AFTER_MS`` of silence, quorum two), a vshard
map of its own that puts every vshard on the pair (a fresh ZooKeeper root), an orchestrator
at its defaults and a writer process that follows without pause and prints the time of each
acknowledged follow. Once the writer is going, the master gets SIGKILL; the figure is the time
from the kill to the first follow acknowledged after it, which lands on the replica Sentinel
promoted once the orchestrator has switched the map and reconciled it from the edge log's
tail since the replica's stamp (the writer starts once a stamp has reached the replica). The
floor beside it is Sentinel's detection alone (``DOWN_AFTER_MS``). Beside each figure: the
reconcile's own seconds and what it read, from the orchestrator's history; after the first
run, the seconds of ``graph rebuild --all`` on the promoted instance, the whole-log reconcile
that a promotion without a stamp does. The edge log's size is reported, and
``--edge-log-rows`` first grows it (:mod:`benchmarks.edge_log`).

Loopback only; each run takes about 15 s and removes its pair, sentinels, processes and
ZooKeeper root. The bench pinners it follows between stay; their follows went to the edge log
(shared with the site) and to the throwaway pairs, so at the end their vshards of the site's
own graph are rebuilt from the log.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

from benchmarks import edge_log
from benchmarks.failover_mysql import (
    GOAL_SECONDS,
    manage,
    seconds_to_next_write,
    start,
    stop,
)
from coordination.zookeeper import delete_tree
from devstack.ports import free_loopback_ports
from graph import repair
from graph.keys import STAMP
from graph.vshards import vshard_of
from pins.actions import create_pinner
from sharding.topology import copy_map
from toolkit.waiting import until

MASTER, REPLICA, GROUP = "redisb1a", "redisb1b", "redisb1"
INTERVAL = 1.0
WRITERS_USERS = 8


def run(runs: int = 5, progress: Callable[[str], object] = lambda _: None,
        edge_log_rows: int | None = None) -> dict[str, Any]:
    """Kill a graph master ``runs`` times (a new pair each time); the seconds until the next
    acknowledged follow. With ``edge_log_rows``, the edge log is first grown to that size
    (:func:`graph.edge_log.grow`)."""
    from devstack.sentinel import DOWN_AFTER_MS

    log_rows = (edge_log.grow(edge_log_rows, progress=progress) if edge_log_rows
                else edge_log.row_count())
    progress(f"edge log: {log_rows} rows\n")
    tag = uuid.uuid4().hex[:6]
    users: list[int] = []
    figures, reconciles, whole = [], [], None
    try:
        for number in range(1, runs + 1):
            fresh = [create_pinner(f"failover{tag}{number}x{n}", None).user_id
                     for n in range(WRITERS_USERS)]  # new pinners: every follow is a change
            users += fresh
            seconds, reconcile, rebuilt = _one_run(fresh, rebuild_whole=number == 1)
            whole = whole if rebuilt is None else rebuilt
            progress(f"run {number}: first follow {seconds:.2f}s after the SIGKILL; reconcile "
                     f"{reconcile.get('seconds')}s ({reconcile.get('detail')})\n")
            figures.append(seconds)
            reconciles.append(reconcile)
    finally:
        repair.rebuild({vshard_of(user) for user in users})
    median = statistics.median(figures)
    reconcile_seconds = [float(r["seconds"]) for r in reconciles if "seconds" in r]
    return {"runs": runs, "edge_log_rows": log_rows,
            "seconds_to_first_write": [round(f, 2) for f in figures],
            "median_seconds": round(median, 2),
            "reconcile_seconds": reconcile_seconds,
            "median_reconcile_seconds": round(statistics.median(reconcile_seconds), 2)
            if reconcile_seconds else None,
            "reconciled": [r.get("detail", "") for r in reconciles],
            "whole_log_rebuild_seconds": None if whole is None else round(whole, 2),
            "detection_floor_seconds": DOWN_AFTER_MS / 1000,
            "sentinel": {"sentinels": 3, "quorum": 2, "down_after_ms": DOWN_AFTER_MS},
            "orchestrator": {"interval_seconds": INTERVAL},
            "goal_seconds": GOAL_SECONDS, "goal_met": median < GOAL_SECONDS}


def _one_run(users: list[int], rebuild_whole: bool = False,
             ) -> tuple[float, dict[str, Any], float | None]:
    """One kill: the seconds to the next follow, the orchestrator's promotion entry and, with
    ``rebuild_whole``, the seconds a rebuild of every vshard from the whole log then takes on
    the promoted instance (what each promotion cost before it replayed only the tail)."""
    from devstack.pairs import destroy
    from devstack.redis import Redis
    from devstack.sentinel import Sentinel
    from devstack.service import MASTER as MASTER_ROLE
    from devstack.service import REPLICA as REPLICA_ROLE

    ports = free_loopback_ports(5)
    with tempfile.TemporaryDirectory(prefix="pinsite-bench-failover-redis-") as folder:
        root = Path(folder)
        master = Redis(MASTER, ports[0], root / MASTER, role=MASTER_ROLE, persistent=True)
        replica = Redis(REPLICA, ports[1], root / REPLICA, role=REPLICA_ROLE, master=master,
                        persistent=True)
        sentinels = [Sentinel(f"sentinelb{n}", port, root / f"sentinelb{n}",
                              groups=[(GROUP, (master, replica))])
                     for n, port in enumerate(ports[2:], start=1)]
        zk_root = f"/pinsite-bench-failover-{uuid.uuid4().hex[:8]}"
        environment = {
            **os.environ,
            "PINSITE_REDIS_GRAPH_HOSTS": f"{MASTER}=127.0.0.1:{ports[0]},"
                                         f"{REPLICA}=127.0.0.1:{ports[1]}",
            "PINSITE_REDIS_GRAPH_PAIRS": f"{MASTER}:{REPLICA}",
            "PINSITE_REDIS_SENTINELS": ",".join(f"127.0.0.1:{s.port}" for s in sentinels),
            "PINSITE_ZK_ROOT": zk_root, "PINSITE_VAR": str(root / "var"),
        }
        processes = []
        try:
            for service in [master, replica, *sentinels]:
                service.up()
            _wait_until_watched(sentinels)
            copy_map(zk_root)  # the pairs may have failed over since they were configured
            manage(environment, "shards", "init", "--quiet")
            manage(environment, "graph", "init")
            processes.append(start(environment, [
                "manage.py", "orchestrator", "run", "--interval", str(INTERVAL)],
                root / "orchestrator.log"))
            _wait_for_stamp(replica)
            writer = start(environment, ["-m", "benchmarks.writer", "--follow",
                                         ",".join(map(str, users))], None)
            processes.append(writer)
            seconds = seconds_to_next_write(writer, master)
            promotion = _graph_promotion(environment)
            stop(processes)
            processes = []
            return seconds, promotion, _rebuild_all(environment) if rebuild_whole else None
        finally:
            stop(processes)
            destroy(*sentinels, master, replica)
            delete_tree(zk_root)


def _wait_for_stamp(replica: Any, timeout: float = 30.0) -> None:
    """Until the orchestrator's stamp has reached the replica (as it does every round)."""
    def stamped() -> bool:
        with redis.Redis(host=replica.host, port=replica.port) as client:
            return client.exists(STAMP) == 1

    if not until(stamped, timeout, every=0.1):
        raise RuntimeError(f"no orchestrator stamp reached the replica within {timeout:.0f}s")


def _rebuild_all(environment: dict[str, str]) -> float:
    """Seconds that ``graph rebuild --all`` takes on the pair (the whole log read, compared,
    and every missing key written)."""
    started = time.monotonic()
    manage(environment, "graph", "rebuild", "--all", "--quiet", timeout=1800)
    return time.monotonic() - started


def _graph_promotion(environment: dict[str, str]) -> dict[str, Any]:
    """The orchestrator's history entry of the graph promotion (seconds, what it reconciled),
    waited for up to the orchestrator's next rounds."""
    seen: list[dict[str, Any]] = []

    def found() -> bool:
        history = manage(environment, "orchestrator", "history", "--json", timeout=60)
        seen[:] = [entry for entry in json.loads(history)
                   if entry.get("store") == "graph" and entry.get("kind") == "promoted"][:1]
        return bool(seen)

    until(found, 10.0, every=0.5)
    return seen[0] if seen else {}


def _wait_until_watched(sentinels: list[Any], timeout: float = 30.0) -> None:
    """Until every sentinel knows the replica in sync (it could not fail over before)."""
    if not until(lambda: all(sees_the_replica(sentinel) for sentinel in sentinels), timeout,
                 every=0.1):
        raise RuntimeError("the sentinels did not see the replica in sync within "
                       f"{timeout:.0f}s")


def sees_the_replica(sentinel: Any, group: str = GROUP) -> bool:
    """Whether ``sentinel`` knows a replica of ``group`` whose link to the master is up."""
    with redis.Redis(host=sentinel.host, port=sentinel.port, decode_responses=True) as client:
        return any(seen.get("master-link-status") == "ok"
                   for seen in client.sentinel_slaves(group))
