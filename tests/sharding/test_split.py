"""``shards split``: the upper half of a master's shards moves to a new host while a writer
process creates rows on every shard throughout. No acknowledged row is lost, each is on the
host that serves its shard afterwards, a write under way when the fence came is refused as
not acknowledged (the writer has one in flight at a time), and the writer's longest pause
(the fence) is measured and printed. ``shards cleanup`` then drops the copies left behind."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import MySQLdb
import pytest
from django.utils import timezone

from devstack.pairs import destroy, mysql_pair
from devstack.ports import free_loopback_ports
from sharding import ids
from sharding.hosts import schema_name
from tests.auditlog.helpers import the_entry
from tests.commands import manage
from tests.polling import wait_until
from tests.sharding.test_failover import REPO, pair_environment

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

OLD, NEW, NEW_REPLICA = "mysqlk1a", "mysqlk2a", "mysqlk2b"


class Hosts:
    def __init__(self, root: Path) -> None:
        self.ports = free_loopback_ports(4)
        self.pairs = (mysql_pair(OLD, "mysqlk1b", self.ports[0], self.ports[1], root),
                      mysql_pair(NEW, NEW_REPLICA, self.ports[2], self.ports[3], root))
        self.environment = {
            **pair_environment((self.ports[0], self.ports[1]), root),
            "PINSITE_SHARD_HOSTS": f"{OLD}=127.0.0.1:{self.ports[0]},"
                                   f"mysqlk1b=127.0.0.1:{self.ports[1]}",
            "PINSITE_SHARD_PAIRS": f"{OLD}:mysqlk1b", "PINSITE_SHARD_COUNT": "8"}

    def port_of(self, host: str) -> int:
        return self.ports[{OLD: 0, NEW: 2, NEW_REPLICA: 3}[host]]


@pytest.fixture
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hosts]:
    made = Hosts(tmp_path_factory.mktemp("split"))
    try:
        yield made
    finally:
        destroy(*made.pairs[0], *made.pairs[1])



def _rows_on(port: int, shard: int) -> set[int]:
    with MySQLdb.connect(host="127.0.0.1", port=port, user="root") as connection:
        cursor = connection.cursor()
        cursor.execute(f"SELECT local_id FROM {schema_name(shard)}.pins")
        return {int(row[0]) for row in cursor.fetchall()}


def _schemas_on(port: int) -> set[str]:
    with MySQLdb.connect(host="127.0.0.1", port=port, user="root") as connection:
        cursor = connection.cursor()
        cursor.execute("SELECT schema_name FROM information_schema.schemata "
                       "WHERE schema_name LIKE 'db%'")
        return {str(row[0]) for row in cursor.fetchall()}


@pytest.mark.slow
def test_a_split_under_a_writer_loses_no_acknowledged_row(hosts: Hosts) -> None:
    environment, since = hosts.environment, timezone.now()
    manage(environment, "shards", "init", "--quiet")
    for host in (NEW, NEW_REPLICA):
        manage(environment, "shards", "hosts", "add", host, f"127.0.0.1:{hosts.port_of(host)}")
    writer = subprocess.Popen([sys.executable, "-m", "benchmarks.writer"], cwd=REPO,
                              env=environment, stdout=subprocess.PIPE, text=True)
    lines: list[str] = []
    output = writer.stdout
    assert output is not None
    threading.Thread(target=lambda: lines.extend(output), daemon=True).start()
    try:
        assert wait_until(lambda: len(lines) >= 200, timeout=30)
        report = json.loads(manage(environment, "shards", "split", OLD, NEW, "--replica",
                                    NEW_REPLICA, "--json"))
        written = len(lines)
        assert wait_until(lambda: len(lines) >= written + 200, timeout=30)  # it went on
    finally:
        writer.terminate()
        writer.wait(timeout=30)

    assert (report["first_shard"], report["last_shard"]) == (4, 7)
    shown = json.loads(manage(environment, "shards", "show", "--json"))
    assert [(r["range"], r["master"], r["replica"]) for r in shown["ranges"]] == [
        ([0, 3], OLD, "mysqlk1b"), ([4, 7], NEW, NEW_REPLICA)]
    acknowledged = [line.split() for line in lines if line.startswith("OK ")]
    refused = [line for line in lines if line.startswith("ERR")]
    assert all("not acknowledged" in line for line in refused), refused  # under way at the fence
    assert len(refused) <= 2
    by_shard: dict[int, set[int]] = defaultdict(set)
    for _, row, _ in acknowledged:
        parts = ids.decompose(int(row))
        by_shard[parts.shard].add(parts.local_id)
    for shard, local_ids in by_shard.items():
        home = OLD if shard < 4 else NEW
        missing = local_ids - _rows_on(hosts.port_of(home), shard)
        assert not missing, f"shard {shard}: {len(missing)} acknowledged rows missing on {home}"
    times = [float(fields[2]) for fields in acknowledged]
    longest = max(later - earlier for earlier, later in itertools.pairwise(times))
    print(f"\nsplit: fence {report['fence_seconds']:.2f}s; the writer's longest pause "
          f"{longest:.2f}s over {len(acknowledged)} acknowledged rows, {len(refused)} refused")
    after = [ids.decompose(int(line.split()[1])).shard for line in lines[written:]
             if line.startswith("OK ")]
    assert any(shard >= 4 for shard in after)  # the moved shards took writes on their new host

    manage(environment, "shards", "cleanup")
    assert _schemas_on(hosts.port_of(OLD)) == {schema_name(shard) for shard in range(4)}
    assert _schemas_on(hosts.port_of(NEW)) == {schema_name(shard) for shard in range(4, 8)}
    assert wait_until(lambda: _schemas_on(hosts.port_of(NEW_REPLICA)) == _schemas_on(
        hosts.port_of(NEW)), timeout=10)
    assert_recorded(hosts, since, report)


def assert_recorded(hosts: Hosts, since: datetime, report: dict[str, object]) -> None:
    """The operator audit log holds each host added, the split and the cleanup, by the
    command lines that ran them."""
    for host in (NEW, NEW_REPLICA):
        added = the_entry("shards.hosts.add", host, since)
        assert added.outcome == "ok" and added.arguments == {
            "address": f"127.0.0.1:{hosts.port_of(host)}"}
        assert added.actor_detail.startswith(f"manage.py shards hosts add {host} ")
    split = the_entry("shards.split", OLD, since)
    assert (split.outcome, split.actor_kind, split.result) == ("ok", "command", report)
    assert split.actor_detail == f"manage.py shards split {OLD} {NEW} --replica {NEW_REPLICA} " \
                                 "--json"
    cleanup = the_entry("shards.cleanup", "", since, actor_detail="manage.py shards cleanup")
    assert (cleanup.outcome, cleanup.result) == ("ok", {OLD: 4, NEW: 4})
