"""``manage.py bench failover``, the graph's half: from a graph Redis master's SIGKILL to the
next acknowledged follow, with Redis Sentinel and the orchestrator running and nobody typing a
command.

Each run starts a throwaway Redis master/replica pair watched by three sentinels (at the local
stack's settings: a master is down after ``DOWN_AFTER_MS`` of silence, quorum two), a vshard
map of its own that puts every vshard on the pair (a fresh ZooKeeper root), an orchestrator
at its defaults and a writer process that follows without pause and prints the time of each
acknowledged follow. Once the writer is going, the master gets SIGKILL; the figure is the time
from the kill to the first follow acknowledged after it, which lands on the replica Sentinel
promoted once the orchestrator has switched the map and reconciled it from the edge log. The
floor beside it is Sentinel's detection alone (``DOWN_AFTER_MS``).

Loopback only; each run takes about 15 s and removes its pair, sentinels, processes and
ZooKeeper root. The bench pinners it follows between stay; their follows went to the edge log
(shared with the site) and to the throwaway pairs, so at the end their vshards of the site's
own graph are rebuilt from the log.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

from graph import repair
from graph.vshards import vshard_of
from pins.actions import create_pinner
from sharding.bench_failover import GOAL_SECONDS, manage, seconds_to_next_write, start, stop
from sharding.coordination import zookeeper
from toolkit.bench import free_loopback_ports
from toolkit.waiting import until

MASTER, REPLICA, GROUP = "redisb1a", "redisb1b", "redisb1"
INTERVAL = 1.0
WRITERS_USERS = 8


def run(runs: int = 5, progress: Callable[[str], object] = lambda _: None) -> dict[str, Any]:
    """Kill a graph master ``runs`` times (a new pair each time); the seconds until the next
    acknowledged follow."""
    from devstack.sentinel import DOWN_AFTER_MS

    tag = uuid.uuid4().hex[:6]
    users = [create_pinner(f"failover{tag}{n}", None).user_id for n in range(WRITERS_USERS)]
    figures = []
    try:
        for number in range(1, runs + 1):
            seconds = _one_run(users)
            progress(f"run {number}: first follow {seconds:.2f}s after the SIGKILL\n")
            figures.append(seconds)
    finally:
        repair.rebuild({vshard_of(user) for user in users})
    median = statistics.median(figures)
    return {"runs": runs, "seconds_to_first_write": [round(f, 2) for f in figures],
            "median_seconds": round(median, 2),
            "detection_floor_seconds": DOWN_AFTER_MS / 1000,
            "sentinel": {"sentinels": 3, "quorum": 2, "down_after_ms": DOWN_AFTER_MS},
            "orchestrator": {"interval_seconds": INTERVAL},
            "goal_seconds": GOAL_SECONDS, "goal_met": median < GOAL_SECONDS}


def _one_run(users: list[int]) -> float:
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
            manage(environment, "shards", "init", "--quiet")
            manage(environment, "graph", "init")
            processes.append(start(environment, [
                "manage.py", "orchestrator", "run", "--interval", str(INTERVAL)],
                root / "orchestrator.log"))
            writer = start(environment, ["-m", "sharding.bench_writer", "--follow",
                                         ",".join(map(str, users))], None)
            processes.append(writer)
            return seconds_to_next_write(writer, master)
        finally:
            stop(processes)
            destroy(*sentinels, master, replica)
            zookeeper.require().delete(zk_root, recursive=True)


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
