"""The orchestrator on a throwaway master/replica pair, with a writer running throughout.

A SIGKILLed master is failed over without any command and no acknowledged row is lost. A
master stopped (SIGSTOP) for less than the detection window is left alone. One stopped for
longer is failed over, and when it resumes (SIGCONT) it accepts no writes: it is set
read-only, and the write it had in flight is not acknowledged to the writer.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import MySQLdb
import pytest

from devstack.pairs import destroy, mysql_pair
from sharding import ids
from sharding.conf import sharding_settings
from tests.polling import wait_until
from tests.sharding.test_failover import (
    MASTER,
    REPLICA,
    REPO,
    Pair,
    Writer,
    _free_ports,
    _manage,
    _stored_local_ids,
    pair_environment,
)

NET_TIMEOUT = 4  # the replica notices a silent master after this long


@pytest.fixture
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    ports = _free_ports()
    root = tmp_path_factory.mktemp("orchestrator")
    master, replica = mysql_pair(MASTER, REPLICA, *ports, root, net_timeout=NET_TIMEOUT)
    environment = pair_environment(ports, root)
    try:
        _manage(environment, "shards", "init", "--quiet")
        yield Pair(environment, master, ports[1])
    finally:
        master.kill(signal.SIGCONT)
        destroy(master, replica)


@pytest.fixture
def orchestrators(pair: Pair, tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """Two orchestrators (one leads, one waits), probing every 0.3 s, 3 failures to act."""
    started = [subprocess.Popen(
        [sys.executable, "manage.py", "orchestrator", "run", "--interval", "0.3",
         "--failures", "3"], cwd=REPO, env=pair.environment, text=True,
        stdout=(tmp_path / f"orchestrator{index}.log").open("w"), stderr=subprocess.STDOUT)
        for index in range(2)]
    try:
        time.sleep(2)  # both connected, one elected
        yield started
    finally:
        for process in started:
            process.terminate()
        for process in started:
            assert process.wait(timeout=20) == 0, "an orchestrator did not stop on SIGTERM"


def history(pair: Pair) -> list[dict[str, object]]:
    entries: list[dict[str, object]] = json.loads(
        _manage(pair.environment, "orchestrator", "history", "--json"))
    return entries


def promotions(pair: Pair) -> list[dict[str, object]]:
    return [entry for entry in history(pair) if entry["kind"] == "promoted"]


def read_only(pair: Pair) -> bool:
    connection = MySQLdb.connect(host="127.0.0.1", port=pair.master.port,
                                 user=sharding_settings.ADMIN_USER,
                                 password=sharding_settings.ADMIN_PASSWORD, connect_timeout=2)
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT @@global.read_only")
        return bool(cursor.fetchone()[0])
    finally:
        connection.close()


def assert_nothing_acknowledged_is_lost(pair: Pair, writer: Writer) -> None:
    stored = _stored_local_ids(pair.replica_port)
    written = {(ids.decompose(i).shard, ids.decompose(i).local_id) for i in writer.acknowledged}
    assert written - stored == set(), "acknowledged rows are missing on the new master"


@pytest.mark.slow
def test_a_killed_master_is_failed_over_without_a_command(
        pair: Pair, orchestrators: list[subprocess.Popen[str]]) -> None:
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
    shown = json.loads(_manage(pair.environment, "shards", "show", "--json"))
    assert [r["master"] for r in shown["ranges"]] == [REPLICA]


def writing(pair: Pair, count: int = 50) -> Writer:
    """A writer process that has ``count`` acknowledged rows already."""
    writer = Writer(pair.environment)
    writer.wait_for(lambda: len(writer.acknowledged) >= count)
    return writer


@pytest.mark.slow
def test_a_briefly_stopped_master_is_not_failed_over(
        pair: Pair, orchestrators: list[subprocess.Popen[str]]) -> None:
    writer = writing(pair)
    pair.master.kill(signal.SIGSTOP)
    time.sleep(NET_TIMEOUT / 2)  # shorter than the replica's patience
    pair.master.kill(signal.SIGCONT)
    count = len(writer.acknowledged)
    writer.wait_for(lambda: len(writer.acknowledged) >= count + 50)
    writer.process.terminate()
    assert promotions(pair) == []
    assert not read_only(pair)


@pytest.mark.slow
def test_a_master_stopped_longer_is_failed_over_and_refuses_writes_when_it_resumes(
        pair: Pair, orchestrators: list[subprocess.Popen[str]]) -> None:
    writer = writing(pair)
    pair.master.kill(signal.SIGSTOP)
    assert wait_until(lambda: len(promotions(pair)) == 1, timeout=60)
    pair.master.kill(signal.SIGCONT)  # it wakes up with the writer's statement in flight

    assert wait_until(lambda: read_only(pair), timeout=15), "the old master was not fenced"
    assert writer.process.wait(timeout=60) == 0, "the writer did not recover"
    assert any("not acknowledged" in error for error in writer.errors), writer.errors[:3]
    assert_nothing_acknowledged_is_lost(pair, writer)
    kinds = [entry["kind"] for entry in history(pair)]
    assert kinds.count("promoted") == 1 and "fenced" in kinds
