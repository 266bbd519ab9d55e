"""The host registry: hosts registered in ZooKeeper after a process started are reached by that
process without a restart or a configuration change.

On the real stack: a writer process runs against a shard map of its own (a throwaway pair A
in its configuration); a second throwaway pair B, in no configuration, is registered with
``shards hosts add`` and a new shard range opened on it, and the writer's rows for a shard of
that range land on B. The registry refuses what it must (unknown names, names in use, hosts
that do not answer) with clear errors.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import MySQLdb
import pytest

from coordination.exceptions import RegistryError
from coordination.registry import HostRegistry
from devstack.pairs import destroy, mysql_pair
from devstack.ports import free_loopback_ports
from sharding import ids
from tests.polling import wait_until
from tests.sharding.test_failover import REPO, pair_environment

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

NEW_MASTER, NEW_REPLICA = "mysqlg2a", "mysqlg2b"


def test_a_registry_adds_and_removes_names_and_round_trips_through_json() -> None:
    empty = HostRegistry()
    added = empty.added("mysql", "mysql003a", ("10.0.0.3", 3306))
    assert added.of("mysql") == {"mysql003a": ("10.0.0.3", 3306)} and empty.of("mysql") == {}
    assert HostRegistry.loads(HostRegistry.dumps(added), 7) == HostRegistry(added.hosts, 7)
    assert added.removed("mysql", "mysql003a").of("mysql") == {}
    with pytest.raises(RegistryError, match="registered already"):
        added.added("mysql", "mysql003a", ("10.0.0.4", 3306))
    with pytest.raises(RegistryError, match="not a registered mysql host"):
        empty.removed("mysql", "mysql003a")
    with pytest.raises(RegistryError, match="unknown kind"):
        empty.added("postgres", "pg1", ("10.0.0.5", 5432))
    with pytest.raises(RegistryError, match="not a host name"):
        empty.added("redis", "Redis 1", ("10.0.0.6", 6379))


class Pairs:
    def __init__(self, root: Path) -> None:
        ports = free_loopback_ports(4)
        self.old = mysql_pair("mysqlg1a", "mysqlg1b", ports[0], ports[1], root)
        self.new = mysql_pair(NEW_MASTER, NEW_REPLICA, ports[2], ports[3], root)
        self.ports = ports
        self.environment = {**pair_environment((ports[0], ports[1]), root)}
        self.environment["PINSITE_SHARD_HOSTS"] = (f"mysqlg1a=127.0.0.1:{ports[0]},"
                                                   f"mysqlg1b=127.0.0.1:{ports[1]}")
        self.environment["PINSITE_SHARD_PAIRS"] = "mysqlg1a:mysqlg1b"


@pytest.fixture
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pairs]:
    root = tmp_path_factory.mktemp("registry")
    made = Pairs(root)
    try:
        yield made
    finally:
        destroy(*made.old, *made.new)


def _manage(environment: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=environment,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_a_running_writer_reaches_a_host_registered_after_it_started(pairs: Pairs) -> None:
    environment = pairs.environment
    assert _manage(environment, "shards", "init", "--quiet").returncode == 0
    shown = _manage(environment, "shards", "hosts", "show", "--json").stdout
    assert '"mysqlg1a"' in shown and NEW_MASTER not in shown  # seeded from the configuration
    writer = subprocess.Popen([sys.executable, "-m", "benchmarks.writer", "--shard", "5"],
                              cwd=REPO, env=environment, stdout=subprocess.PIPE, text=True)
    lines: list[str] = []
    output = writer.stdout
    assert output is not None
    threading.Thread(target=lambda: lines.extend(output), daemon=True).start()
    try:
        assert wait_until(lambda: any(line.startswith("ERR") for line in lines), timeout=30)

        refused = _manage(environment, "shards", "open", "4-7", NEW_MASTER, NEW_REPLICA)
        assert refused.returncode != 0 and "shards hosts add" in refused.stderr
        for name, port in ((NEW_MASTER, pairs.ports[2]), (NEW_REPLICA, pairs.ports[3])):
            added = _manage(environment, "shards", "hosts", "add", name, f"127.0.0.1:{port}")
            assert added.returncode == 0, added.stderr
        opened = _manage(environment, "shards", "open", "4-7", NEW_MASTER, NEW_REPLICA)
        assert opened.returncode == 0, opened.stderr

        assert wait_until(lambda: any(line.startswith("OK") for line in lines), timeout=30)
    finally:
        writer.terminate()
        writer.wait(timeout=30)
    written = [int(line.split()[1]) for line in lines if line.startswith("OK")]
    assert {ids.shard_of(row) for row in written} == {5}
    with MySQLdb.connect(host="127.0.0.1", port=pairs.ports[2], user="root") as connection:
        cursor = connection.cursor()
        cursor.execute("SELECT COUNT(*) FROM db00005.pins")
        assert cursor.fetchone()[0] == len(written)

    in_use = _manage(environment, "shards", "hosts", "remove", NEW_MASTER)
    assert in_use.returncode != 0 and "is a master in the shard map" in in_use.stderr
    again = _manage(environment, "shards", "hosts", "add", NEW_MASTER,
                    f"127.0.0.1:{pairs.ports[2]}")
    assert again.returncode != 0 and "registered already" in again.stderr
    silent = _manage(environment, "shards", "hosts", "add", "mysqlg9a", "127.0.0.1:1")
    assert silent.returncode != 0 and "does not answer" in silent.stderr
    listed = _manage(environment, "shards", "hosts", "show").stdout
    assert f"{NEW_MASTER}" in listed and "master" in listed
