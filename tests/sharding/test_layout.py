"""A production-like layout: 4,096 logical shards created on two new master/replica pairs.

The pairs are throwaway ones, so every run creates all 69,632 schemas and tables and none is
left behind in the test stack. Where the machine has a memory file system (``/dev/shm``)
their data lives there: creating tables is bound by file-system syncs (4,096 shards took
142 s on disk and 48 s in memory on the 2-core test machine), which this test does not
measure.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from functools import partial
from pathlib import Path

import MySQLdb
import pytest

from devstack.mariadb import MariaDB
from devstack.pairs import destroy, mysql_pair
from devstack.ports import free_loopback_ports
from sharding.conf import sharding_settings
from sharding.schema import table_statements
from tests.commands import deployment, manage
from tests.polling import wait_until

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

REPO = Path(__file__).resolve().parents[2]
PAIRS = (("layout1a", "layout1b"), ("layout2a", "layout2b"))
MEMORY = Path("/dev/shm")


@pytest.fixture
def pairs(tmp_path: Path) -> Iterator[dict[str, int]]:
    """Two new pairs; ``name → port`` of all four hosts. Stopped and deleted afterwards."""
    memory = MEMORY.is_dir() and os.access(MEMORY, os.W_OK)
    root = Path(tempfile.mkdtemp(prefix="pinsite-layout-", dir=MEMORY)) if memory else tmp_path
    ports = free_loopback_ports(4)
    with ThreadPoolExecutor(max_workers=2) as pool:
        started = list(pool.map(lambda i: mysql_pair(*PAIRS[i], ports[2 * i], ports[2 * i + 1],
                                                     root), range(2)))
    hosts: list[MariaDB] = [host for pair in started for host in pair]
    try:
        yield {host.name: host.port for host in hosts}
    finally:
        destroy(*hosts)
        if memory:
            root.rmdir()



def _tables(port: int) -> dict[str, set[str]]:
    """``schema → tables`` of every ``db%`` schema on the host at ``port``."""
    with closing(MySQLdb.connect(host="127.0.0.1", port=port,
                                 user=sharding_settings.ADMIN_USER,
                                 password=sharding_settings.ADMIN_PASSWORD)) as connection:
        cursor = connection.cursor()
        cursor.execute("SELECT schema_name FROM information_schema.schemata "
                       "WHERE schema_name LIKE 'db%'")
        found: dict[str, set[str]] = {schema: set() for (schema,) in cursor.fetchall()}
        cursor.execute("SELECT table_schema, table_name FROM information_schema.tables "
                       "WHERE table_schema LIKE 'db%'")
        for schema, table in cursor.fetchall():
            found.setdefault(schema, set()).add(table)
    return found


def _copied(port: int, tables: dict[str, set[str]]) -> bool:
    return _tables(port) == tables


@pytest.mark.slow
def test_4096_shards_are_created_on_their_masters_and_mapped(pairs: dict[str, int],
                                                             tmp_path: Path) -> None:
    environment = deployment(
        tmp_path, "layout",
        PINSITE_SHARD_HOSTS=",".join(f"{name}=127.0.0.1:{port}" for name, port in pairs.items()),
        PINSITE_SHARD_PAIRS=",".join(f"{master}:{replica}" for master, replica in PAIRS),
        PINSITE_SHARD_COUNT="4096")

    manage(environment, "shards", "init", "--quiet", timeout=600)

    shown = json.loads(manage(environment, "shards", "show", "--json"))
    ranges = [(row["range"], row["master"]) for row in shown["ranges"]]
    assert ranges == [([0, 2047], "layout1a"), ([2048, 4095], "layout2a")]
    for (master, replica), first in zip(PAIRS, (0, 2048), strict=True):
        tables = _tables(pairs[master])
        assert sorted(tables) == [f"db{shard:05d}" for shard in range(first, first + 2048)]
        assert all(found == set(table_statements()) for found in tables.values())
        assert wait_until(partial(_copied, pairs[replica], tables), timeout=120), \
            f"{replica} did not get every table of {master}"
