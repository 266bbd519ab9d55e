"""The orchestrator on a throwaway master/replica pair, with a writer running throughout.

A SIGKILLed master is failed over without any command and no acknowledged row is lost. A
master stopped (SIGSTOP) for less than the detection window is left alone, though the leader
counted enough failed probes to act (its replica still replicated). One stopped for longer is
failed over, and when it resumes (SIGCONT) it accepts no writes: it is set read-only, and the
write it had in flight is not acknowledged to the writer.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import MySQLdb
import pytest
from django.utils import timezone

from devstack.pairs import destroy, mysql_pair
from sharding import ids
from sharding.conf import sharding_settings
from tests.auditlog.helpers import result_of, the_entry
from tests.commands import Commands
from tests.polling import wait_until
from tests.sharding.test_failover import (
    MASTER,
    REPLICA,
    REPO,
    Pair,
    Writer,
    _free_ports,
    _stored_local_ids,
    pair_environment,
)

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

NET_TIMEOUT = 4  # the replica notices a silent master after this long
PATIENT_NET_TIMEOUT = 30  # a replica that outwaits the leader's three failed probes
FAILURES = 3


@dataclass
class WatchedPair(Pair):
    """The pair, and a process answering the operator's commands about it."""

    commands: Commands


@pytest.fixture
def pair(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest,
         ) -> Iterator[WatchedPair]:
    """The pair; its replica's ``slave_net_timeout`` is ``NET_TIMEOUT`` unless the test
    passes another (``indirect`` parametrization)."""
    ports = _free_ports()
    root = tmp_path_factory.mktemp("orchestrator")
    net_timeout = getattr(request, "param", NET_TIMEOUT)
    master, replica = mysql_pair(MASTER, REPLICA, *ports, root, net_timeout=net_timeout)
    environment = pair_environment(ports, root)
    try:
        with Commands(environment) as commands:
            commands.run("shards", "init", "--quiet")
            yield WatchedPair(environment, master, ports[1], commands)
    finally:
        master.kill(signal.SIGCONT)
        destroy(master, replica)


@pytest.fixture
def orchestrators(pair: WatchedPair, tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """Two orchestrators (one leads, one waits), probing every 0.3 s, 3 failures to act."""
    started = [subprocess.Popen(
        [sys.executable, "manage.py", "orchestrator", "run", "--interval", "0.3",
         "--failures", str(FAILURES)], cwd=REPO, env=pair.environment, text=True,
        stdout=(tmp_path / f"orchestrator{index}.log").open("w"), stderr=subprocess.STDOUT)
        for index in range(2)]
    try:
        assert wait_until(lambda: _both_running_and_one_leading(pair), timeout=60)
        yield started
    finally:
        for process in started:
            process.terminate()
        for process in started:
            assert process.wait(timeout=20) == 0, "an orchestrator did not stop on SIGTERM"


def status(pair: WatchedPair) -> dict[str, Any]:
    """What ``orchestrator status`` reports: the contenders and the leader's last round."""
    found: dict[str, Any] = json.loads(pair.commands.run("orchestrator", "status", "--json"))
    return found


def _both_running_and_one_leading(pair: WatchedPair) -> bool:
    now = status(pair)
    return len(now["contenders"]) == 2 and (now["rounds"] or 0) >= 1


def history(pair: WatchedPair) -> list[dict[str, object]]:
    entries: list[dict[str, object]] = json.loads(
        pair.commands.run("orchestrator", "history", "--json"))
    return entries


def promotions(pair: WatchedPair) -> list[dict[str, object]]:
    return [entry for entry in history(pair) if entry["kind"] == "promoted"]


def read_only(pair: WatchedPair) -> bool:
    connection = MySQLdb.connect(host="127.0.0.1", port=pair.master.port,
                                 user=sharding_settings.ADMIN_USER,
                                 password=sharding_settings.ADMIN_PASSWORD, connect_timeout=2)
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT @@global.read_only")
        return bool(cursor.fetchone()[0])
    finally:
        connection.close()


def assert_nothing_acknowledged_is_lost(pair: WatchedPair, writer: Writer) -> None:
    stored = _stored_local_ids(pair.replica_port)
    written = {(ids.decompose(i).shard, ids.decompose(i).local_id) for i in writer.acknowledged}
    assert written - stored == set(), "acknowledged rows are missing on the new master"


@pytest.mark.slow
def test_a_killed_master_is_failed_over_without_a_command(
        pair: WatchedPair, orchestrators: list[subprocess.Popen[str]]) -> None:
    writer = writing(pair, 100)
    killed = time.monotonic()
    pair.master.kill(signal.SIGKILL)
    writer.wait_for(lambda: writer.errors, timeout=10)

    assert writer.process.wait(timeout=60) == 0, "the writer did not recover"
    assert wait_until(lambda: len(promotions(pair)) == 1, timeout=10)
    [promoted] = promotions(pair)
    assert promoted["master"] == MASTER and promoted["replica"] == REPLICA
    print(f"first write on the new master {time.monotonic() - killed:.1f}s after the kill")
    assert_nothing_acknowledged_is_lost(pair, writer)
    assert wait_until(lambda: _masters(pair) == [REPLICA], timeout=10)


def _masters(pair: WatchedPair) -> list[str]:
    shown = json.loads(pair.commands.run("shards", "show", "--json"))
    return [r["master"] for r in shown["ranges"]]


def writing(pair: WatchedPair, count: int = 50) -> Writer:
    """A writer process that has ``count`` acknowledged rows already."""
    writer = Writer(pair.environment)
    writer.wait_for(lambda: len(writer.acknowledged) >= count)
    return writer


@pytest.mark.slow
@pytest.mark.parametrize("pair", [PATIENT_NET_TIMEOUT], indirect=True)
def test_a_briefly_stopped_master_is_not_failed_over(
        pair: WatchedPair, orchestrators: list[subprocess.Popen[str]]) -> None:
    """Stopped until the leader has counted ``FAILURES`` failed probes in a row, which is when
    it decides, and resumed long before its replica gives up on it."""
    writer = writing(pair)
    pair.master.kill(signal.SIGSTOP)
    try:
        assert wait_until(lambda: status(pair)["failing"].get(MASTER, 0) >= FAILURES,
                          timeout=60), "the leader never counted the stop"
    finally:
        pair.master.kill(signal.SIGCONT)
    count = len(writer.acknowledged)
    writer.wait_for(lambda: len(writer.acknowledged) >= count + 50)
    writer.process.terminate()
    resumed = status(pair)
    assert wait_until(lambda: _answering_again(pair, resumed), timeout=60), status(pair)
    assert promotions(pair) == []
    assert not read_only(pair)


def _answering_again(pair: WatchedPair, then: dict[str, Any]) -> bool:
    """Whether the leader of ``then`` has since run a whole round over the shard masters that
    found the master well (the graph's followers have no map to work on here)."""
    now = status(pair)
    return (now["leader"] == then["leader"] and now["rounds"] >= then["rounds"] + 2
            and MASTER not in now["failing"]
            and not any(error.startswith("round failed") for error in now["errors"]))


@pytest.mark.slow
def test_a_master_stopped_longer_is_failed_over_and_refuses_writes_when_it_resumes(
        pair: WatchedPair, orchestrators: list[subprocess.Popen[str]]) -> None:
    writer, since = writing(pair), timezone.now()
    pair.master.kill(signal.SIGSTOP)
    assert wait_until(lambda: len(promotions(pair)) == 1, timeout=60)
    pair.master.kill(signal.SIGCONT)  # it wakes up with the writer's statement in flight

    assert wait_until(lambda: read_only(pair), timeout=15), "the old master was not fenced"
    assert writer.process.wait(timeout=60) == 0, "the writer did not recover"
    # the in-flight write failed: its read timed out on the stopped master (or, if the master
    # answered it after the promotion, it was not acknowledged)
    refused = ("Lost connection", "not acknowledged")
    assert any(kind in error for error in writer.errors for kind in refused), writer.errors[:3]
    assert_nothing_acknowledged_is_lost(pair, writer)
    kinds = [entry["kind"] for entry in history(pair)]
    assert kinds.count("promoted") == 1 and "fenced" in kinds
    leader = status(pair)["leader"]
    promoted = the_entry("shards.promote", MASTER, since, actor_kind="orchestrator")
    fenced = the_entry("shards.fence", MASTER, since, actor_kind="orchestrator")
    assert (promoted.outcome, promoted.actor, result_of(promoted)["new_master"]) == (
        "ok", leader, REPLICA)
    assert (fenced.outcome, fenced.actor) == ("ok", leader)
