"""The stack's HBase clusters: Apache HBase itself, through happybase over its Thrift gateway.

The semantics the feeds rely on are checked on the test stack's primary cluster, in one scratch
table created once per module (creating a table costs seconds on real HBase) and rows of each
test's own. The last tests kill a cluster's processes and start them again.
"""

from __future__ import annotations

import itertools
import signal
import struct
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import happybase
import pytest
from Hbase_thrift import BatchMutation, Mutation, TIncrement
from Hbase_thrift import IOError as GatewayError

from devstack import Stack
from devstack.errors import StartError
from devstack.hbase import admin, runtime
from devstack.hbase.probe import cluster_serving
from devstack.hbase.service import HBaseServer, HBaseThrift
from devstack.process import is_alive
from devstack.profile import Profile
from devstack.services import build_services
from tests.addresses import CLOSED

SCRATCH = "pinsite_devstack_scratch"
rows = itertools.count(int(time.time() * 1000) << 16)


def new_row() -> bytes:
    """A row no other test (of this run or an earlier one) has used."""
    return struct.pack(">Q", next(rows))


@pytest.fixture(scope="module")
def stack() -> Stack:
    return Stack()


@pytest.fixture(scope="module")
def connection(stack: Stack) -> Iterator[happybase.Connection]:
    gateway = stack.services["hbase1"]
    conn = happybase.Connection(gateway.host, gateway.port, timeout=30_000, compat="0.98")
    if SCRATCH.encode() not in conn.tables():
        conn.create_table(SCRATCH, {"f": {"max_versions": 1}, "c": {"max_versions": 1}})
    yield conn
    conn.close()


@pytest.fixture
def table(connection: happybase.Connection) -> happybase.Table:
    return connection.table(SCRATCH)


def test_the_stack_runs_three_clusters_each_with_a_server_and_a_gateway(stack: Stack) -> None:
    env = stack.env()
    for name, variable, offset, role in (("hbase1", "PINSITE_HBASE_PRIMARY", 90, "primary"),
                                         ("hbase2", "PINSITE_HBASE_STANDBY", 91, "standby"),
                                         ("hbase3", "PINSITE_HBASE_POOLS", 92, "pools")):
        gateway, server = stack.services[name], stack.services[f"{name}-server"]
        assert isinstance(gateway, HBaseThrift) and isinstance(server, HBaseServer)
        assert gateway.cluster is server and gateway.depends_on == [server]
        assert env[variable] == f"127.0.0.1:{gateway.port}"
        assert gateway.port == stack.profile.port(offset)
        assert gateway.role == server.role == role
        assert stack.healthy(name), f"{name} is not serving: run `python3 -m devstack up`"
        assert cluster_serving(gateway.host, gateway.port)
    ports = [port for name in ("hbase1", "hbase2", "hbase3")
             for port in stack.services[f"{name}-server"].ports.all()]  # type: ignore[attr-defined]
    assert len(set(ports)) == len(ports) == 12


def test_only_the_serving_stack_keeps_the_c2_compiler() -> None:
    """The test stack's JVMs start quick (C1 only); the dev stack's, which serve for hours,
    compile their hot code fully."""
    for profile, quick in (("test", True), ("dev", False), ("other", True)):
        services = build_services(Profile(profile, 40000, Path("/nonexistent")))
        for name in ("hbase1", "hbase1-server", "hbase3"):
            flags = services[name].command()
            assert ("-XX:TieredStopAtLevel=1" in flags) is quick, (profile, name)


def test_the_probe_is_false_without_a_gateway() -> None:
    assert not cluster_serving(*CLOSED)


def test_a_java_hbase_does_not_support_is_refused(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    newer = Path("/usr/lib/jvm/temurin-25-jdk-amd64")
    home = newer if newer.is_dir() else tmp_path
    monkeypatch.setenv("PINSITE_JAVA_HOME", str(home))
    runtime.java_home.cache_clear()
    try:
        server = HBaseServer("hbasex-server", Stack().services["hbase1-server"].ports,  # type: ignore[attr-defined]
                             tmp_path / "hbasex")
        with pytest.raises(StartError, match="needs Java 17 or 11"):
            server.before_start()
    finally:
        runtime.java_home.cache_clear()


def test_the_newest_cell_timestamp_wins_whatever_the_order_of_arrival(
        table: happybase.Table) -> None:
    row = new_row()
    table.put(row, {b"f:a": b"newer"}, timestamp=2_000_000)
    table.put(row, {b"f:a": b"older"}, timestamp=1_000_000)  # arrives late
    assert table.row(row, include_timestamp=True) == {b"f:a": (b"newer", 2_000_000)}


def test_a_rows_columns_come_in_the_gateways_order_and_sort_to_hbases(
        table: happybase.Table) -> None:
    """HBase orders a row's columns by unsigned bytes; the Thrift gateway hands them over in
    a map sorted by Java's signed ``ByteBuffer`` order. Readers that want newest first (the
    feed's qualifiers) sort what they read."""
    row = new_row()
    table.put(row, {b"f:b": b"x", b"f:\x00": b"y", b"f:\xff": b"z", b"f:a": b"w"}, timestamp=1)
    found = list(table.row(row, columns=[b"f"]))
    assert found == [b"f:\xff", b"f:\x00", b"f:a", b"f:b"]
    assert sorted(found) == [b"f:\x00", b"f:a", b"f:b", b"f:\xff"]


def test_a_delete_masks_a_late_older_put_until_a_major_compaction(
        stack: Stack, table: happybase.Table) -> None:
    """The feed paper's trap: a pin removed at t=300 and then delivered late with its creation
    time t=100 stays out; once a major compaction has purged the delete marker, the same late
    delivery shows it again (which is why a replay after compaction must recheck)."""
    row = new_row()
    table.put(row, {b"f:pin": b""}, timestamp=100)
    table.delete(row, columns=[b"f:pin"], timestamp=300)
    table.put(row, {b"f:pin": b""}, timestamp=100)
    assert table.row(row) == {}
    admin.run(stack.services["hbase1"], "major-compact", SCRATCH)
    assert table.row(row) == {}  # the compaction dropped the masked cells with the marker
    table.put(row, {b"f:pin": b""}, timestamp=100)
    assert table.row(row) == {b"f:pin": b""}


def test_a_row_trimmed_past_its_cap_in_one_mutation(
        connection: happybase.Connection, table: happybase.Table) -> None:
    row = new_row()
    with table.batch(timestamp=10) as batch:
        for n in range(20):
            batch.put(row, {b"f:%03d" % n: b""})
    keep = [b"f:%03d" % n for n in range(8)]
    drop = [b"f:%03d" % n for n in range(8, 20)]
    mutations = [Mutation(isDelete=True, column=column) for column in drop]
    connection.client.mutateRowsTs(SCRATCH.encode(), [BatchMutation(row, mutations)], 11, {})
    assert list(table.row(row)) == keep


def test_increment_rows_adds_to_counters_of_many_rows(
        connection: happybase.Connection, table: happybase.Table) -> None:
    first, second = new_row(), new_row()
    connection.client.incrementRows([TIncrement(SCRATCH.encode(), first, b"c:n", 3),
                                     TIncrement(SCRATCH.encode(), second, b"c:n", 5),
                                     TIncrement(SCRATCH.encode(), first, b"c:n", -1)])
    assert table.counter_get(first, b"c:n") == 2
    assert table.counter_get(second, b"c:n") == 5
    assert table.counter_inc(first, b"c:n", 10) == 12


def test_check_and_put_resets_a_counter_only_if_it_still_holds_what_was_read(
        connection: happybase.Connection, table: happybase.Table) -> None:
    """What a trim does to a feed's write counter (feed.trim)."""
    row, name = new_row(), SCRATCH.encode()
    table.counter_inc(row, b"c:n", 3)
    zero = Mutation(isDelete=False, column=b"c:n", value=struct.pack(">q", 0))
    stale = struct.pack(">q", 2)
    assert not connection.client.checkAndPut(name, row, b"c:n", stale, zero, {})
    assert table.counter_get(row, b"c:n") == 3
    assert connection.client.checkAndPut(name, row, b"c:n", struct.pack(">q", 3), zero, {})
    assert table.counter_get(row, b"c:n") == 0
    assert table.counter_inc(row, b"c:n", 1) == 1


def test_a_row_of_thousands_of_columns_reads_whole_and_in_order(table: happybase.Table) -> None:
    row = new_row()
    columns = {b"f:" + struct.pack(">Q", n): b"" for n in range(5_000)}
    with table.batch(timestamp=5) as batch:
        batch.put(row, columns)
    found = table.row(row, columns=[b"f"])
    assert len(found) == 5_000
    assert sorted(found) == sorted(columns)


def test_prefix_scans_with_a_limit_and_columns(table: happybase.Table) -> None:
    prefix = new_row()
    with table.batch() as batch:
        for n in range(50):
            batch.put(prefix + bytes([n]), {b"f:e": b"%d" % n, b"c:x": b"-"})
        batch.put(new_row(), {b"f:e": b"other"})
    found = list(table.scan(row_prefix=prefix, columns=[b"f:e"], limit=7, batch_size=7))
    assert [key for key, _ in found] == [prefix + bytes([n]) for n in range(7)]
    assert all(data.keys() == {b"f:e"} for _, data in found)
    assert len(list(table.scan(row_prefix=prefix, columns=[b"f:e"], batch_size=1000))) == 50


def test_the_pools_cluster_is_not_the_primary(stack: Stack) -> None:
    """Each cluster holds its own data: a table made on one is not on another."""
    primary, pools = stack.services["hbase1"], stack.services["hbase3"]
    with closing(happybase.Connection(primary.host, primary.port, compat="0.98")) as one, \
            closing(happybase.Connection(pools.host, pools.port, compat="0.98")) as other:
        assert SCRATCH.encode() in one.tables()
        assert SCRATCH.encode() not in other.tables()


@pytest.mark.alone
@pytest.mark.slow
def test_acknowledged_puts_survive_sigkill_of_the_region_server(
        stack: Stack, table: happybase.Table) -> None:
    """The primary's server JVM (master, region server and ZooKeeper) SIGKILLed right after the
    last acknowledged put, its memstore never flushed: the gateway stays up and answers an
    error meanwhile; the restarted region server replays its write-ahead log and the same
    gateway reads every put back. (Both JVMs killed together, mid-fanout:
    ``tests/feed/test_workers.py``.)"""
    row = new_row()
    for n in range(200):
        table.put(row + struct.pack(">H", n), {b"f:v": b"%d" % n})
    server = stack.services["hbase1-server"]
    pid = server.pid()
    try:
        stack.kill("hbase1-server", signal.SIGKILL)
        assert pid is not None and not is_alive(pid, server.marker)
        with pytest.raises(GatewayError):  # within the gateway client's 3 s timeout
            table.row(row + struct.pack(">H", 0))
    finally:
        stack.up(["hbase1-server", "hbase1"])
    assert dict(table.scan(row_prefix=row)) == {row + struct.pack(">H", n): {b"f:v": b"%d" % n}
                                                for n in range(200)}


def test_the_block_cache_is_turned_on_for_a_table_made_without_it(
        stack: Stack, connection: happybase.Connection) -> None:
    """The gateway creates families with the block cache off unless asked; the admin command
    turns it on for each family that has it off, and for no other."""
    name = f"pinsite_devstack_uncached_{next(rows)}"
    connection.create_table(name, {"f": {"max_versions": 1},
                                   "c": {"max_versions": 1, "block_cache_enabled": True}})
    try:
        def cached() -> dict[str, bool]:
            return {family.decode().rstrip(":"): options["block_cache_enabled"]
                    for family, options in connection.table(name).families().items()}

        assert cached() == {"f": False, "c": True}
        assert admin.run(stack.services["hbase1"], "block-cache", name) == "f: block cache on\n"
        assert cached() == {"f": True, "c": True}
        assert admin.run(stack.services["hbase1"], "block-cache", name) == ""
    finally:
        connection.delete_table(name, disable=True)
