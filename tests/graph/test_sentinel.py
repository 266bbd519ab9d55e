"""Graph failover by Redis Sentinel, followed by the orchestrator, on a throwaway Redis pair
watched by three throwaway sentinels, with a follower writing throughout and nobody typing
a command.

A SIGKILLed master is failed over by Sentinel; the orchestrator switches the vshard map and
reconciles the promoted instance from the edge log, so the writer recovers, no acknowledged
follow is lost and ``graph verify --all`` is clean; the old master, started again, is
recorded as the new master's replica. A master stopped (SIGSTOP) for less than Sentinel's
detection window is left alone; one stopped for longer is failed over, and when it resumes
(SIGCONT) it accepts no writes, while the follows go on on the new master.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import redis

from devstack.pairs import destroy
from devstack.redis import Redis
from devstack.sentinel import Sentinel
from devstack.service import MASTER, REPLICA
from graph.bench_failover import sees_the_replica
from graph.tables import USER_FOLLOWS_USER
from sharding import mappings
from tests.graph.test_failover import REPO, Writer, _manage, pair_environment, users
from tests.polling import wait_until
from toolkit.bench import free_loopback_ports

MASTER_NAME, REPLICA_NAME = "redisq1a", "redisq1b"
DOWN_AFTER_MS = 1500

__all__ = ["users"]  # the fixture, shared with the manual failover test


@dataclass
class Watched:
    environment: dict[str, str]
    master: Redis
    replica: Redis
    sentinels: list[Sentinel]


@pytest.fixture
def watched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Watched]:
    """The pair, its three sentinels, and the environment that routes every vshard to it and
    names those sentinels."""
    root = tmp_path_factory.mktemp("graph-sentinel")
    ports = free_loopback_ports(5)
    master = Redis(MASTER_NAME, ports[0], root / MASTER_NAME, role=MASTER, persistent=True)
    replica = Redis(REPLICA_NAME, ports[1], root / REPLICA_NAME, role=REPLICA, master=master,
                    persistent=True)
    sentinels = [Sentinel(f"sentinelq{n}", port, root / f"sentinelq{n}",
                          groups=[("redisq1", (master, replica))], down_after_ms=DOWN_AFTER_MS)
                 for n, port in enumerate(ports[2:], start=1)]
    environment = {**pair_environment(MASTER_NAME, REPLICA_NAME, ports[0], ports[1], root),
                   "PINSITE_REDIS_SENTINELS": ",".join(f"127.0.0.1:{s.port}" for s in sentinels)}
    try:
        for service in [master, replica, *sentinels]:
            service.up()
        assert wait_until(lambda: all(sees_the_replica(s, "redisq1") for s in sentinels),
                          timeout=20)
        yield Watched(environment, master, replica, sentinels)
    finally:
        destroy(*sentinels, master, replica)


@pytest.fixture
def orchestrator(watched: Watched) -> Iterator[subprocess.Popen[str]]:
    _manage(watched.environment, "shards", "init", "--quiet")
    _manage(watched.environment, "graph", "init")
    process = subprocess.Popen(
        [sys.executable, "manage.py", "orchestrator", "run", "--interval", "0.5"],
        cwd=REPO, env=watched.environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


def _vshard_pair(watched: Watched) -> set[tuple[str, str | None]]:
    shown = json.loads(_manage(watched.environment, "graph", "vshards", "show", "--json"))
    return {(r["master"], r["replica"]) for r in shown["ranges"]}


def _graph_history(watched: Watched) -> list[dict[str, object]]:
    entries = json.loads(_manage(watched.environment, "orchestrator", "history", "--json"))
    return [entry for entry in entries if entry.get("store") == "graph"]


def _verify_clean(watched: Watched) -> None:
    report = json.loads(_manage(watched.environment, "graph", "verify", "--all", "--json"))
    assert report["difference_count"] == 0, report["differences"][:5]


@pytest.mark.slow
def test_a_sigkilled_master_is_failed_over_by_sentinel_and_followed_without_a_command(
        watched: Watched, orchestrator: subprocess.Popen[str], users: list[int]) -> None:
    writer = Writer(watched.environment, users)
    writer.wait_for(lambda: len(writer.acknowledged) >= 150)
    watched.replica.kill(signal.SIGSTOP)  # the follows from here on never reach the replica
    unreplicated = len(writer.acknowledged)
    writer.wait_for(lambda: len(writer.acknowledged) >= unreplicated + 20)
    watched.master.kill(signal.SIGKILL)
    killed = time.monotonic()
    watched.replica.kill(signal.SIGCONT)

    assert writer.process.wait(timeout=90) == 0, "the writer did not recover"
    assert writer.errors, "the writer never noticed the dead master"
    assert wait_until(lambda: _vshard_pair(watched) == {(REPLICA_NAME, None)}, timeout=5)
    [promoted] = [e for e in _graph_history(watched) if e["kind"] == "promoted"]
    assert (promoted["master"], promoted["replica"]) == (MASTER_NAME, REPLICA_NAME)
    assert int(str(promoted["keys_reconciled"])) > 0  # the follows the replica never got
    assert time.monotonic() - killed < 60
    assert all(mappings.contains(USER_FOLLOWS_USER, a, b) for a, b in writer.acknowledged)
    _verify_clean(watched)

    watched.master.role, watched.master.master = REPLICA, watched.replica  # as devstack would
    watched.replica.role, watched.replica.master = MASTER, None
    watched.master.up()
    assert wait_until(lambda: _vshard_pair(watched) == {(REPLICA_NAME, MASTER_NAME)}, timeout=30)


@pytest.mark.slow
def test_a_short_stop_is_left_alone_and_a_long_one_is_failed_over_and_fenced(
        watched: Watched, orchestrator: subprocess.Popen[str], users: list[int]) -> None:
    watched.master.kill(signal.SIGSTOP)
    time.sleep(DOWN_AFTER_MS / 1000 / 3)
    watched.master.kill(signal.SIGCONT)
    time.sleep(DOWN_AFTER_MS / 1000 * 2)  # time enough for a sentinel to have acted
    assert _vshard_pair(watched) == {(MASTER_NAME, REPLICA_NAME)}
    assert not _graph_history(watched)

    writer = Writer(watched.environment, users, pause=0.02)  # its follows last past the switch
    writer.wait_for(lambda: len(writer.acknowledged) >= 50)
    watched.master.kill(signal.SIGSTOP)
    assert wait_until(lambda: _vshard_pair(watched) == {(REPLICA_NAME, None)}, timeout=30)
    switched = len(writer.acknowledged)
    watched.master.kill(signal.SIGCONT)
    old = redis.Redis(port=watched.master.port, socket_timeout=2)
    assert wait_until(lambda: _refuses_writes(old), timeout=5)  # the orchestrator's next round
    # follows go on on the new master (a write held up by the stop was retried there)
    writer.wait_for(lambda: len(writer.acknowledged) >= switched + 20)
    writer.process.terminate()
    writer.process.wait(timeout=30)

    kinds = [entry["kind"] for entry in _graph_history(watched)]
    assert kinds[:2] == ["promoted", "fenced"]
    assert all(mappings.contains(USER_FOLLOWS_USER, a, b) for a, b in writer.acknowledged)
    _verify_clean(watched)


def _refuses_writes(client: redis.Redis) -> bool:
    try:
        client.set("pinsite-test-write", "1")
    except redis.exceptions.ReadOnlyError:
        return True
    return False
