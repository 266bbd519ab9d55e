"""The shard map in ZooKeeper: hot switching of the router, and ZooKeeper down (the documents
themselves: tests/coordination)."""

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from coordination.documents import WatchedDocument
from devstack import Stack
from pins.types import PIN
from sharding import objects
from sharding.exceptions import ShardMapUnavailable, ShardUnavailable
from sharding.hosts import alias_for_shard, atomic, cursor
from sharding.shardmap import ShardMap
from sharding.topology import change_map, current_map, shard_map_document
from tests.outages import stopped
from tests.polling import wait_until

REPO = Path(__file__).resolve().parents[2]


def _eventually(check: Callable[[], bool], timeout: float = 5.0) -> bool:
    return wait_until(check, timeout, every=0.02)


def test_the_router_switches_hosts_when_the_map_changes() -> None:
    before = current_map()
    master = before.masters()[0]
    shard = before.shards_of(master)[0]
    replica = before.range_for(shard).replica
    try:
        change_map(lambda m: m.promoted(master))
        assert _eventually(lambda: alias_for_shard(shard) == replica)
    finally:
        change_map(lambda m: ShardMap(before.ranges, m.version))
    assert _eventually(lambda: alias_for_shard(shard) == master)


TABLE = "pinsite_events.test_deposed_rows"


@pytest.fixture
def deposed() -> Iterator[tuple[int, str]]:
    """A shard and its master; the test may switch the map to the replica (undone after)."""
    before = current_map()
    master = before.masters()[0]
    with cursor(master) as c:
        c.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id INT PRIMARY KEY) ENGINE=InnoDB")
    try:
        yield before.shards_of(master)[0], master
    finally:
        change_map(lambda m: ShardMap(before.ranges, m.version))
        assert _eventually(lambda: current_map().masters() == before.masters())
        with cursor(master) as c:
            c.execute(f"DROP TABLE IF EXISTS {TABLE}")


def test_a_transaction_whose_master_was_replaced_meanwhile_is_not_acknowledged(
        deposed: tuple[int, str]) -> None:
    shard, master = deposed
    with pytest.raises(ShardUnavailable, match="not acknowledged"), atomic(shard) as alias:
        with cursor(alias) as c:
            c.execute(f"INSERT INTO {TABLE} VALUES (1)")
        change_map(lambda m: m.promoted(master))  # a promotion while the write was in flight
        assert _eventually(lambda: current_map().master_for(shard) != master)
        assert alias_for_shard(shard) == master  # the transaction keeps its host
    with cursor(master) as c:  # rolled back: nothing of it on the deposed master
        c.execute(f"SELECT COUNT(*) FROM {TABLE} WHERE id = 1")
        assert c.fetchone()[0] == 0


def test_a_statement_whose_host_stopped_being_a_master_meanwhile_is_not_acknowledged(
        deposed: tuple[int, str]) -> None:
    _, master = deposed
    with pytest.raises(ShardUnavailable, match="not acknowledged"), cursor(master) as c:
        c.execute(f"INSERT INTO {TABLE} VALUES (2)")
        change_map(lambda m: m.promoted(master))
        assert _eventually(lambda: master not in current_map().masters())
    with cursor(master) as c:  # no longer a master before the statement: a plain read
        c.execute(f"SELECT COUNT(*) FROM {TABLE}")
        assert c.fetchone()[0] == 1


def test_an_unchanged_map_acknowledges_as_before(deposed: tuple[int, str]) -> None:
    shard, _ = deposed
    with atomic(shard) as alias, cursor(alias) as c:
        c.execute(f"INSERT INTO {TABLE} VALUES (3)")
    change_map(lambda m: m)  # a new version naming the same masters
    with atomic(shard) as alias, cursor(alias) as c:
        c.execute(f"INSERT INTO {TABLE} VALUES (4)")


@pytest.fixture
def zookeeper_down() -> Iterator[Stack]:
    with stopped("zookeeper") as stack:
        yield stack
    assert _eventually(lambda: _map_changes_work(), timeout=30)


def _map_changes_work() -> bool:
    try:
        change_map(lambda m: m)
    except ShardMapUnavailable:
        return False
    return True


@pytest.mark.alone
def test_with_zookeeper_down_traffic_goes_on_and_map_changes_fail_closed(
        zookeeper_down: Stack) -> None:
    shard = current_map().open_shards()[0]
    pin_id = objects.create(PIN, shard, {"title": "written while ZooKeeper is down"})
    assert objects.get(pin_id) == {"title": "written while ZooKeeper is down"}
    with pytest.raises(ShardMapUnavailable):
        change_map(lambda m: m)
    assert current_map().master_for(shard) == alias_for_shard(shard)


@pytest.mark.alone
def test_a_process_starting_while_zookeeper_is_down_uses_the_last_known_good_map(
        zookeeper_down: Stack) -> None:
    known = current_map()
    fresh = WatchedDocument("shardmap", shard_map_document()._cache_file,
                            ShardMap.loads, ShardMap.dumps)
    assert fresh.get().ranges == known.ranges


COLD_START = """
import json
from feed import pulled
from graph.topology import current_map as vshard_map
from coordination.registry import registry_document
from sharding.topology import current_map
read = {"shards": current_map().version, "vshards": vshard_map().version,
        "hosts": registry_document().get().version, "pulled": sorted(pulled.current())}
print(json.dumps(read))
"""


def test_a_process_starting_while_zookeeper_is_down_waits_for_it_once_not_per_node() -> None:
    """Each watched node (shard map, host registry, vshard map, pulled boards) comes from its
    last-known-good file; only the first read waits out the connect timeout, as the process's
    log says once."""
    from coordination.registry import registry_document
    from feed import pulled
    from graph.topology import current_map as vshard_map

    known = {"shards": current_map().version, "vshards": vshard_map().version,
             "hosts": registry_document().get().version, "pulled": sorted(pulled.current())}
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
                   "PINSITE_ZK_HOSTS": "127.0.0.1:1", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", COLD_START], cwd=REPO,
                            env=environment, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    read = json.loads(result.stdout.strip().splitlines()[-1])
    assert {key: read[key] for key in known} == known
    waits = [line for line in result.stderr.splitlines() if "not reached within" in line]
    fallbacks = [line for line in result.stderr.splitlines() if "last-known-good" in line
                 and "using" in line]
    assert len(waits) == 1, result.stderr
    assert len(fallbacks) == len(known), result.stderr
