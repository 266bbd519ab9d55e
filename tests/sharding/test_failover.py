"""Failover on a throwaway master/replica pair: SIGKILL the master, promote, lose nothing.

A writer process keeps creating rows while the master is killed; ``shards promote`` switches the
map; the writer (never restarted) goes on writing to the new master. Every write it saw
acknowledged must be on the new master.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import MySQLdb
import pytest
from django.conf import settings

from devstack.mariadb import MariaDB
from devstack.pairs import destroy, mysql_pair
from devstack.ports import free_loopback_ports
from sharding import ids
from sharding.hosts import schema_name
from tests.commands import REPO, deployment, manage

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

MASTER, REPLICA = "mysqlf1a", "mysqlf1b"


@dataclass
class Pair:
    environment: dict[str, str]
    master: MariaDB
    replica_port: int


@pytest.fixture
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    """A master/replica pair of its own, and the environment that routes shards 0-3 to it."""
    ports = _free_ports()
    root = tmp_path_factory.mktemp("failover")
    master, replica = mysql_pair(MASTER, REPLICA, *ports, root)
    environment = pair_environment(ports, root)
    try:
        yield Pair(environment, master, ports[1])
    finally:
        destroy(master, replica)


def _free_ports() -> tuple[int, int]:
    first, second = free_loopback_ports(2)
    return first, second


def pair_environment(ports: tuple[int, int], root: Path) -> dict[str, str]:
    """The environment of processes that route shards 0-3 to the pair on ``ports``, with a
    shard map of their own."""
    return deployment(
        root, "failover",
        PINSITE_SHARD_HOSTS=f"{MASTER}=127.0.0.1:{ports[0]},{REPLICA}=127.0.0.1:{ports[1]}",
        PINSITE_SHARD_PAIRS=f"{MASTER}:{REPLICA}", PINSITE_SHARD_COUNT="4")



class Writer:
    """The writer process and what it has reported so far."""

    def __init__(self, environment: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.writer", "--after", "50", "--deadline",
             "90"], cwd=REPO,
            env=environment, stdout=subprocess.PIPE, text=True)
        self.acknowledged: list[int] = []
        self.errors: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            status, _, detail = line.strip().partition(" ")
            if status == "OK":
                self.acknowledged.append(int(detail.split()[0]))
            else:
                self.errors.append(detail)

    def wait_for(self, condition: object, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
            time.sleep(0.02)
        assert condition(), "the writer did not get there in time"  # type: ignore[operator]


def _stored_local_ids(port: int) -> set[tuple[int, int]]:
    connection = MySQLdb.connect(host="127.0.0.1", port=port, user=settings.MYSQL_USER,
                                 password=settings.MYSQL_PASSWORD)
    try:
        cursor = connection.cursor()
        stored = set()
        for shard in range(4):
            cursor.execute(f"SELECT local_id FROM {schema_name(shard)}.pins")
            stored |= {(shard, local_id) for (local_id,) in cursor.fetchall()}
        return stored
    finally:
        connection.close()


@pytest.mark.slow
def test_no_acknowledged_row_is_lost_when_the_master_dies_and_its_replica_is_promoted(
        pair: Pair) -> None:
    manage(pair.environment, "shards", "init", "--quiet")
    writer = Writer(pair.environment)
    writer.wait_for(lambda: len(writer.acknowledged) >= 200)
    pair.master.kill(signal.SIGKILL)
    writer.wait_for(lambda: writer.errors, timeout=10)
    before_promotion = len(writer.acknowledged)

    report = json.loads(manage(pair.environment, "shards", "promote", MASTER, "--json"))

    assert report["new_master"] == REPLICA and report["fenced"] is False
    assert writer.process.wait(timeout=60) == 0, "the writer did not recover"
    assert len(writer.acknowledged) >= before_promotion + 50
    stored = _stored_local_ids(pair.replica_port)
    written = {(ids.decompose(i).shard, ids.decompose(i).local_id) for i in writer.acknowledged}
    assert written - stored == set(), "acknowledged rows are missing on the new master"
    shown = json.loads(manage(pair.environment, "shards", "show", "--json"))
    assert [r["master"] for r in shown["ranges"]] == [REPLICA]
