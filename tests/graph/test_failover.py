"""Failover on a throwaway Redis pair: follows keep coming while the master is SIGKILLed,
``graph promote`` switches the map, and after reconciliation nothing acknowledged is missing.

The pair and its vshard map (under a ZooKeeper root of its own) exist only for these tests;
the edge log is the shared one. Without a stamp, reconciling copies the whole log into the
new master (``graph verify --all`` is then clean); with the orchestrator stamping the
masters, it replays only the followers changed since the replica's stamp, and the writer's
users verify clean one by one. The shared graph is reconciled for them afterwards.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from devstack.pairs import destroy
from devstack.redis import Redis
from devstack.service import MASTER, REPLICA
from graph import repair
from graph.conf import graph_settings
from graph.keys import STAMP
from graph.tables import USER_FOLLOWS_USER
from sharding import mappings
from tests.commands import Commands, deployment, manage
from tests.graph.helpers import new_user
from tests.polling import wait_until

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

REPO = Path(__file__).resolve().parents[2]
MASTER_NAME, REPLICA_NAME = "redisf1a", "redisf1b"


@dataclass
class Pair:
    environment: dict[str, str]
    master: Redis
    replica: Redis
    commands: Commands  # the operator's read commands; promotions run as processes of their own


@pytest.fixture
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    """A Redis master/replica pair of its own, and the environment that routes every vshard
    to it."""
    base = graph_settings.REDIS_HOSTS["redis001a"][1] - 381
    ports = (base + 481, base + 482)
    root = tmp_path_factory.mktemp("graph-failover")
    master = Redis(MASTER_NAME, ports[0], root / MASTER_NAME, role=MASTER, persistent=True)
    replica = Redis(REPLICA_NAME, ports[1], root / REPLICA_NAME, role=REPLICA, master=master,
                    persistent=True)
    environment = pair_environment(MASTER_NAME, REPLICA_NAME, *ports, root)
    try:
        master.up()
        replica.up()
        with Commands(environment) as commands:
            commands.run("shards", "init", "--quiet")
            commands.run("graph", "init")
            yield Pair(environment, master, replica, commands)
    finally:
        destroy(master, replica)


def pair_environment(master: str, replica: str, master_port: int, replica_port: int,
                     root: Path) -> dict[str, str]:
    """The environment of processes that route every vshard to the pair (a ZooKeeper root of
    their own; no sentinel watches it unless the caller names some)."""
    return deployment(
        root, "graph-failover",
        PINSITE_REDIS_GRAPH_HOSTS=f"{master}=127.0.0.1:{master_port},"
                                  f"{replica}=127.0.0.1:{replica_port}",
        PINSITE_REDIS_GRAPH_PAIRS=f"{master}:{replica}", PINSITE_REDIS_SENTINELS="")



class Writer:
    """The writer process and what it has reported so far."""

    def __init__(self, environment: dict[str, str], users: list[int],
                 pause: float = 0.0) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.writer", "--after", "100", "--deadline", "90",
             "--follow", ",".join(map(str, users)), "--pause", str(pause)],
            cwd=REPO, env=environment, stdout=subprocess.PIPE, text=True)
        self.acknowledged: list[tuple[int, int]] = []
        self.errors: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            status, _, detail = line.strip().partition(" ")
            if status == "OK":
                _, _, follower, followee = detail.split()
                self.acknowledged.append((int(follower), int(followee)))
            else:
                self.errors.append(detail)

    def wait_for(self, condition: Callable[[], object], timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not condition() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert condition(), "the writer did not get there in time"


def kill_with_unreplicated_follows(master: Redis, replica: Redis, writer: Writer) -> None:
    """Once the writer is going, stop the replica so that the next follows (and anything else
    written) never reach it, let 20 more be acknowledged, SIGKILL the master, resume the
    replica."""
    writer.wait_for(lambda: len(writer.acknowledged) >= 150)
    replica.kill(signal.SIGSTOP)
    unreplicated = len(writer.acknowledged)
    writer.wait_for(lambda: len(writer.acknowledged) >= unreplicated + 20)
    master.kill(signal.SIGKILL)
    replica.kill(signal.SIGCONT)


@pytest.fixture
def users() -> Iterator[list[int]]:
    """Users for the writer; afterwards the shared graph gets their follows too (the writer
    logged them in the shared edge log but wrote them to the throwaway pair), user by user:
    rebuilding their whole vshards would race other writers there."""
    created = [new_user() for _ in range(25)]
    yield created
    for user in created:
        repair.rebuild_user(user)


@pytest.mark.alone
@pytest.mark.slow
def test_no_acknowledged_follow_is_lost_when_a_redis_master_dies_and_it_can_come_back(
        pair: Pair, users: list[int]) -> None:
    writer = Writer(pair.environment, users)
    kill_with_unreplicated_follows(pair.master, pair.replica, writer)
    writer.wait_for(lambda: writer.errors, timeout=20)

    promoted = json.loads(manage(pair.environment, "graph", "promote", MASTER_NAME, "--json"))

    assert promoted["new_master"] == REPLICA_NAME and not promoted["old_master_reachable"]
    assert promoted["keys_reconciled"] > 0  # the acknowledged follows the replica never got
    assert writer.process.wait(timeout=90) == 0, "the writer did not recover"
    assert all(mappings.contains(USER_FOLLOWS_USER, a, b) for a, b in writer.acknowledged)
    assert wait_until(lambda: _vshard_pairs(pair) == {(REPLICA_NAME, None)}, timeout=30)
    # the promotion reconciled the new master from the edge log: no rebuild by hand
    report = json.loads(pair.commands.run("graph", "verify", "--all", "--json"))
    assert report["difference_count"] == 0, report["differences"][:5]
    _the_old_master_comes_back_as_the_new_masters_replica(pair)


def _the_old_master_comes_back_as_the_new_masters_replica(pair: Pair) -> None:
    pair.master.up()
    manage(pair.environment, "graph", "attach-replica", REPLICA_NAME, MASTER_NAME)
    assert wait_until(lambda: _vshard_pairs(pair) == {(REPLICA_NAME, MASTER_NAME)}, timeout=30)
    shown = json.loads(pair.commands.run("graph", "vshards", "show", "--json"))
    assert shown["instances"][MASTER_NAME]["role"] == "slave"


def _vshard_pairs(pair: Pair) -> set[tuple[str, str | None]]:
    """The ``(master, replica)`` pairs of the vshard map, as the operator's commands see it
    (the switch made by another process reaches them through a watch)."""
    shown = json.loads(pair.commands.run("graph", "vshards", "show", "--json"))
    return {(r["master"], r["replica"]) for r in shown["ranges"]}


def _stamp(service: Redis) -> int | None:
    with redis.Redis(host="127.0.0.1", port=service.port, socket_timeout=2) as client:
        found = client.get(STAMP)
    return None if found is None else int(found)


@pytest.mark.slow
def test_a_promotion_replays_the_log_since_the_replicas_stamp_not_the_whole_log(
        pair: Pair, users: list[int], tmp_path: Path) -> None:
    with open(tmp_path / "orchestrator.log", "w") as log:
        orchestrator = subprocess.Popen(
            [sys.executable, "manage.py", "orchestrator", "run", "--interval", "0.2",
             "--failures", "100000"], cwd=REPO, env=pair.environment, stdout=log, stderr=log)
    try:
        assert wait_until(lambda: _stamp(pair.replica) is not None, timeout=60)
        writer = Writer(pair.environment, users)
        kill_with_unreplicated_follows(pair.master, pair.replica, writer)  # stamps stop too
        writer.wait_for(lambda: writer.errors, timeout=20)
    finally:
        orchestrator.terminate()
        orchestrator.wait(timeout=30)

    promoted = json.loads(manage(pair.environment, "graph", "promote", MASTER_NAME, "--json"))

    # the writer's followers (and whoever else followed since the stamp), not the whole log
    followers, _, scope = promoted["reconciled"].partition(" followers of ")
    assert scope and int(followers) > 0, promoted["reconciled"]
    assert promoted["keys_reconciled"] > 0  # the acknowledged follows the replica never got
    assert writer.process.wait(timeout=90) == 0, "the writer did not recover"
    assert all(mappings.contains(USER_FOLLOWS_USER, a, b) for a, b in writer.acknowledged)
    assert_users_verify_clean(pair.environment, users)


def assert_users_verify_clean(environment: dict[str, str], users: list[int]) -> None:
    """No user of ``users`` differs between the pair and the edge log (``graph verify --user``
    for each, in one process)."""
    result = subprocess.run(
        [sys.executable, "-m", "tests.graph.verify_users", "--users", ",".join(map(str, users))],
        cwd=REPO, env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    differing = {user: found[:3] for user, found in json.loads(result.stdout).items() if found}
    assert not differing, differing
