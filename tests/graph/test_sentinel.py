"""Graph failover by Redis Sentinel, followed by the orchestrator, on a throwaway Redis pair
watched by three throwaway sentinels, with a follower writing throughout and nobody typing
a command.

A SIGKILLed master is failed over by Sentinel; the orchestrator switches the vshard map and
reconciles the promoted instance from the edge log, so the writer recovers, no acknowledged
follow is lost and ``graph verify --all`` is clean; the old master, started again, is
recorded as the new master's replica. A master stopped (SIGSTOP) for less than Sentinel's
detection window is left alone (a sentinel's ping went unanswered during the stop and was
answered after it, and the orchestrator ran rounds after that); one stopped for longer is
failed over, and when it resumes (SIGCONT) it accepts no writes, while the follows go on on
the new master.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
import redis
from django.utils import timezone

from auditlog.models import AuditEntry
from benchmarks.failover_redis import sees_the_replica
from devstack.pairs import destroy
from devstack.ports import free_loopback_ports
from devstack.redis import Redis
from devstack.sentinel import Sentinel
from devstack.service import MASTER, REPLICA
from graph.tables import USER_FOLLOWS_USER
from sharding import mappings
from tests.auditlog.helpers import result_of, the_entry
from tests.commands import Commands
from tests.graph.test_failover import (
    REPO,
    Writer,
    assert_users_verify_clean,
    kill_with_unreplicated_follows,
    pair_environment,
    users,
)
from tests.polling import wait_until

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

MASTER_NAME, REPLICA_NAME = "redisq1a", "redisq1b"
DOWN_AFTER_MS = 1500

__all__ = ["users"]  # the fixture, shared with the manual failover test


@dataclass
class Watched:
    environment: dict[str, str]
    master: Redis
    replica: Redis
    sentinels: list[Sentinel]
    commands: Commands  # the operator's commands about the pair


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
        with Commands(environment) as commands:
            yield Watched(environment, master, replica, sentinels, commands)
    finally:
        destroy(*sentinels, master, replica)


@pytest.fixture
def orchestrator(watched: Watched) -> Iterator[subprocess.Popen[str]]:
    watched.commands.run("shards", "init", "--quiet")
    watched.commands.run("graph", "init")
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
    shown = json.loads(watched.commands.run("graph", "vshards", "show", "--json"))
    return {(r["master"], r["replica"]) for r in shown["ranges"]}


def _graph_history(watched: Watched) -> list[dict[str, object]]:
    entries = json.loads(watched.commands.run("orchestrator", "history", "--json"))
    return [entry for entry in entries if entry.get("store") == "graph"]


@pytest.mark.slow
def test_a_sigkilled_master_is_failed_over_by_sentinel_and_followed_without_a_command(
        watched: Watched, orchestrator: subprocess.Popen[str], users: list[int]) -> None:
    writer, since = Writer(watched.environment, users), timezone.now()
    kill_with_unreplicated_follows(watched.master, watched.replica, writer)

    assert writer.process.wait(timeout=90) == 0, "the writer did not recover"
    assert writer.errors, "the writer never noticed the dead master"
    assert wait_until(lambda: _vshard_pair(watched) == {(REPLICA_NAME, None)}, timeout=30)
    [promoted] = [e for e in _graph_history(watched) if e["kind"] == "promoted"]
    assert (promoted["master"], promoted["replica"]) == (MASTER_NAME, REPLICA_NAME)
    assert int(str(promoted["keys_reconciled"])) > 0  # the follows the replica never got
    assert "followers of" in str(promoted["detail"])  # the tail since its stamp was replayed
    assert all(mappings.contains(USER_FOLLOWS_USER, a, b) for a, b in writer.acknowledged)
    assert_users_verify_clean(watched.environment, users)  # the pair holds their follows

    watched.master.role, watched.master.master = REPLICA, watched.replica  # as devstack would
    watched.replica.role, watched.replica.master = MASTER, None
    watched.master.up()
    assert wait_until(lambda: _vshard_pair(watched) == {(REPLICA_NAME, MASTER_NAME)}, timeout=30)

    # the operator audit log: the orchestrator's take-over (its reconcile a part of it), then
    # the replica it recorded
    taken = _finished("graph.promote", MASTER_NAME, since)
    assert taken.outcome == "ok" and result_of(taken)["new_master"] == REPLICA_NAME
    assert taken.arguments == {"replica": REPLICA_NAME, "by": "Redis Sentinel"}
    attached = _finished("graph.attach_replica", REPLICA_NAME, since)
    assert (attached.outcome, attached.arguments) == ("ok", {"replica": MASTER_NAME})


def _finished(action: str, target: str, since: datetime) -> AuditEntry:
    """The orchestrator's one entry of ``action`` on ``target``, once its operation has ended
    (the vshard map shows the change a moment before the entry records its outcome)."""
    assert wait_until(lambda: the_entry(action, target, since, actor_kind="orchestrator")
                      .outcome != "running", timeout=30)
    return the_entry(action, target, since, actor_kind="orchestrator")


@pytest.mark.slow
def test_a_short_stop_is_left_alone_and_a_long_one_is_failed_over_and_fenced(
        watched: Watched, orchestrator: subprocess.Popen[str], users: list[int]) -> None:
    assert wait_until(lambda: _rounds(watched) is not None, timeout=60)
    watched.master.kill(signal.SIGSTOP)
    try:  # until a sentinel's ping goes unanswered: its down-after clock runs
        assert wait_until(lambda: any(_pending_ping(s) for s in watched.sentinels), timeout=30)
    finally:
        watched.master.kill(signal.SIGCONT)
    assert wait_until(lambda: not any(_pending_ping(s) for s in watched.sentinels),
                      timeout=30), "a sentinel never heard from the master again"
    answered = _rounds(watched)
    assert wait_until(lambda: _ran_a_clean_round_since(watched, answered), timeout=60)
    assert _vshard_pair(watched) == {(MASTER_NAME, REPLICA_NAME)}
    assert not _graph_history(watched)
    for watcher in watched.sentinels:  # no sentinel ever thought it down, none failed it over
        state = _sentinel_state(watcher)
        assert not state["is_sdown"] and not state["is_odown"]
        assert (int(state["port"]), int(state["config-epoch"])) == (watched.master.port, 0)

    writer = Writer(watched.environment, users, pause=0.02)  # its follows last past the switch
    writer.wait_for(lambda: len(writer.acknowledged) >= 50)
    watched.master.kill(signal.SIGSTOP)
    assert wait_until(lambda: _vshard_pair(watched) == {(REPLICA_NAME, None)}, timeout=30)
    switched = len(writer.acknowledged)
    watched.master.kill(signal.SIGCONT)
    old = redis.Redis(port=watched.master.port, socket_timeout=2)
    assert wait_until(lambda: _refuses_writes(old), timeout=30)  # the orchestrator's next round
    # follows go on on the new master (a write held up by the stop was retried there)
    writer.wait_for(lambda: len(writer.acknowledged) >= switched + 20)
    writer.process.terminate()
    writer.process.wait(timeout=30)

    kinds = [entry["kind"] for entry in _graph_history(watched)]
    assert kinds[:2] == ["promoted", "fenced"]
    assert all(mappings.contains(USER_FOLLOWS_USER, a, b) for a, b in writer.acknowledged)
    assert_users_verify_clean(watched.environment, users)  # the pair holds their follows


def _sentinel_state(watcher: Sentinel) -> dict[str, Any]:
    """What ``watcher`` knows of the pair's master (``SENTINEL MASTER``)."""
    client = redis.Redis(port=watcher.port, socket_timeout=5)
    try:
        state: dict[str, Any] = client.sentinel_masters()["redisq1"]
        return state
    finally:
        client.close()


def _pending_ping(watcher: Sentinel) -> bool:
    """Whether ``watcher`` waits for the master's answer to a ping (``last-ping-sent`` is the
    age of the oldest unanswered one, 0 when none is)."""
    return int(_sentinel_state(watcher)["last-ping-sent"]) > 0


def _rounds(watched: Watched) -> tuple[str, int] | None:
    """The orchestrator's leader and how many rounds it has run (None before the first)."""
    status = json.loads(watched.commands.run("orchestrator", "status", "--json"))
    return None if status["rounds"] is None else (status["leader"], int(status["rounds"]))


def _ran_a_clean_round_since(watched: Watched, then: tuple[str, int] | None) -> bool:
    """Whether the leader of ``then`` has since begun and finished a round without errors."""
    status = json.loads(watched.commands.run("orchestrator", "status", "--json"))
    return (then is not None and status["leader"] == then[0]
            and int(status["rounds"]) >= then[1] + 2 and status["errors"] == [])


def _refuses_writes(client: redis.Redis) -> bool:
    try:
        client.set("pinsite-test-write", "1")
    except redis.exceptions.ReadOnlyError:
        return True
    return False
