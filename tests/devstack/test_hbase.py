"""The HBase Thrift development server, through happybase over a real socket.

Each test module run starts its own server (``python -m devstack.hbase``) on a free port with a
temporary data folder; tests that kill or restart a server start their own, so nothing here
touches the shared stack except the last tests, which check the stack's two HBase services.
Each test works in its own table.
"""

from __future__ import annotations

import itertools
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import happybase
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devstack import Stack
from devstack.errors import StartError
from devstack.hbase import wal
from devstack.hbase.records import MUTATE, Record
from devstack.hbase.service import HBaseThrift
from devstack.health import hbase_thrift_ok
from tests.polling import wait_until

REPO_ROOT = Path(__file__).resolve().parents[2]
tables = itertools.count(1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerProcess:
    """One ``python -m devstack.hbase`` child process on ``port`` with data in ``data``."""

    def __init__(self, data: Path, port: int | None = None, *options: str) -> None:
        self.data = data
        self.port = port or free_port()
        self.options = list(options)
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> ServerProcess:
        log = open(self.data.parent / f"{self.data.name}.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "devstack.hbase", "--port", str(self.port), "--data",
             str(self.data), "--log-level", "WARNING", *self.options],
            cwd=REPO_ROOT, stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + 20
        while not hbase_thrift_ok("127.0.0.1", self.port):
            assert self.process.poll() is None, "the server exited during start"
            assert time.monotonic() < deadline, "the server did not answer within 20s"
            time.sleep(0.05)
        return self

    def signal(self, sig: int) -> int:
        assert self.process is not None
        self.process.send_signal(sig)
        return self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.signal(signal.SIGTERM)

    def connect(self) -> happybase.Connection:
        return happybase.Connection("127.0.0.1", self.port)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("hbase") / "data").start()
    yield process
    process.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path / "data")
    yield process
    process.stop()


@pytest.fixture(scope="module")
def connection(server: ServerProcess) -> Iterator[happybase.Connection]:
    conn = server.connect()
    yield conn
    conn.close()


def new_table(conn: happybase.Connection, **families: dict[str, int]) -> happybase.Table:
    name = f"t{next(tables)}"
    conn.create_table(name, families or {"cf": {}})
    return conn.table(name)


# Tables and column families.


def test_tables_are_created_listed_described_disabled_and_deleted(
        connection: happybase.Connection) -> None:
    table = new_table(connection, cf={"max_versions": 5}, other={})
    assert table.name in connection.tables()
    assert {name: spec["max_versions"] for name, spec in table.families().items()} == {
        b"cf": 5, b"other": 3}
    connection.disable_table(table.name)
    assert not connection.is_table_enabled(table.name)
    connection.enable_table(table.name)
    assert connection.is_table_enabled(table.name)
    connection.delete_table(table.name, disable=True)
    assert table.name not in connection.tables()


def test_creating_a_table_twice_raises_already_exists(connection: happybase.Connection) -> None:
    table = new_table(connection)
    with pytest.raises(Exception, match="already in use") as caught:
        connection.create_table(table.name, {"cf": {}})
    assert type(caught.value).__name__ == "AlreadyExists"


def test_an_enabled_table_cannot_be_deleted(connection: happybase.Connection) -> None:
    table = new_table(connection)
    with pytest.raises(Exception, match="TableNotDisabledException") as caught:
        connection.delete_table(table.name)
    assert type(caught.value).__name__ == "IOError"


def test_a_disabled_table_refuses_reads_and_writes(connection: happybase.Connection) -> None:
    table = new_table(connection)
    connection.disable_table(table.name)
    with pytest.raises(Exception, match="disabled"):
        table.put(b"r", {b"cf:q": b"v"})
    with pytest.raises(Exception, match="disabled"):
        table.row(b"r")


def test_an_unknown_table_raises_io_error(connection: happybase.Connection) -> None:
    for call in (lambda: connection.table("missing").row(b"r"),
                 lambda: connection.table("missing").put(b"r", {b"cf:q": b"v"}),
                 lambda: connection.table("missing").families()):
        with pytest.raises(Exception, match="TableNotFoundException") as caught:
            call()
        assert type(caught.value).__name__ == "IOError"


# Ordering.


def test_rows_are_scanned_in_byte_order(connection: happybase.Connection) -> None:
    table = new_table(connection)
    keys = [b"b", b"a\xff", b"a", b"\x00", b"ab", b"\xff\x00", b"B", b"a\x00"]
    with table.batch() as batch:
        for key in keys:
            batch.put(key, {b"cf:q": key})
    assert [key for key, _ in table.scan()] == sorted(keys)


def test_qualifiers_come_back_in_byte_order(connection: happybase.Connection) -> None:
    table = new_table(connection, cf={}, a={})
    qualifiers = [b"cf:z", b"cf:\x00", b"cf:A", b"cf:a\xff", b"cf:a", b"a:q"]
    table.put(b"r", dict.fromkeys(qualifiers, b"v"))
    expected = sorted(qualifiers)
    assert list(table.row(b"r")) == expected
    [(_, row)] = list(table.scan(sorted_columns=True))
    assert list(row) == expected


# Timestamps, versions, delete markers.


def test_puts_keep_explicit_timestamps_and_versions(connection: happybase.Connection) -> None:
    table = new_table(connection, cf={"max_versions": 10})
    for ts in (30, 10, 20):
        table.put(b"r", {b"cf:q": b"v%d" % ts}, timestamp=ts)
    assert table.row(b"r", include_timestamp=True) == {b"cf:q": (b"v30", 30)}
    assert table.cells(b"r", b"cf:q", versions=2, include_timestamp=True) == [
        (b"v30", 30), (b"v20", 20)]
    assert table.cells(b"r", b"cf:q") == [b"v30", b"v20", b"v10"]


def test_a_put_at_an_existing_timestamp_replaces_that_version(
        connection: happybase.Connection) -> None:
    table = new_table(connection)
    table.put(b"r", {b"cf:q": b"first"}, timestamp=7)
    table.put(b"r", {b"cf:q": b"second"}, timestamp=7)
    assert table.cells(b"r", b"cf:q", include_timestamp=True) == [(b"second", 7)]


def test_max_versions_keeps_only_the_newest_versions(connection: happybase.Connection) -> None:
    table = new_table(connection, cf={"max_versions": 2})
    for ts in (1, 4, 2, 3):
        table.put(b"r", {b"cf:q": b"%d" % ts}, timestamp=ts)
    assert table.cells(b"r", b"cf:q", versions=10, include_timestamp=True) == [
        (b"4", 4), (b"3", 3)]


def test_a_read_at_a_timestamp_sees_only_older_cells(connection: happybase.Connection) -> None:
    table = new_table(connection)
    table.put(b"r", {b"cf:q": b"old"}, timestamp=100)
    table.put(b"r", {b"cf:q": b"new", b"cf:later": b"x"}, timestamp=200)
    assert table.row(b"r", timestamp=200) == {b"cf:q": b"old"}
    assert table.row(b"r", timestamp=201) == {b"cf:q": b"new", b"cf:later": b"x"}
    assert table.row(b"r", timestamp=100) == {}
    assert table.cells(b"r", b"cf:q", timestamp=150) == [b"old"]
    assert dict(table.rows([b"r"], timestamp=150)) == {b"r": {b"cf:q": b"old"}}
    assert dict(table.scan(timestamp=150)) == {b"r": {b"cf:q": b"old"}}


def test_a_delete_masks_a_later_arriving_put_with_an_older_timestamp(
        connection: happybase.Connection) -> None:
    table = new_table(connection)
    table.put(b"user", {b"cf:pin1": b""}, timestamp=10)
    table.delete(b"user", columns=[b"cf:pin1"], timestamp=20)
    assert table.row(b"user") == {}
    table.put(b"user", {b"cf:pin1": b""}, timestamp=15)
    assert table.row(b"user") == {}
    table.put(b"user", {b"cf:pin1": b"newer"}, timestamp=21)
    assert table.cells(b"user", b"cf:pin1", include_timestamp=True) == [(b"newer", 21)]


def test_major_compaction_purges_markers_so_a_replayed_old_put_reappears(
        connection: happybase.Connection) -> None:
    table = new_table(connection)
    table.put(b"user", {b"cf:pin1": b""}, timestamp=10)
    table.delete(b"user", columns=[b"cf:pin1"], timestamp=20)
    connection.compact_table(table.name)
    table.put(b"user", {b"cf:pin1": b""}, timestamp=10)
    assert table.row(b"user") == {}
    connection.compact_table(table.name, major=True)
    assert table.row(b"user") == {}
    table.put(b"user", {b"cf:pin1": b""}, timestamp=10)
    assert table.row(b"user", include_timestamp=True) == {b"cf:pin1": (b"", 10)}


def test_a_whole_row_delete_masks_older_cells_of_every_family(
        connection: happybase.Connection) -> None:
    table = new_table(connection, cf={}, other={})
    table.put(b"r", {b"cf:a": b"1", b"other:b": b"2"}, timestamp=5)
    table.put(b"r", {b"cf:c": b"3"}, timestamp=50)
    table.delete(b"r", timestamp=10)
    table.put(b"r", {b"other:b": b"late"}, timestamp=9)
    assert table.row(b"r") == {b"cf:c": b"3"}


def test_a_family_delete_masks_every_column_of_that_family(
        connection: happybase.Connection) -> None:
    table = new_table(connection, cf={}, other={})
    table.put(b"r", {b"cf:a": b"1", b"cf:b": b"2", b"other:c": b"3"}, timestamp=5)
    table.delete(b"r", columns=[b"cf"], timestamp=5)
    assert table.row(b"r") == {b"other:c": b"3"}


def test_a_delete_without_timestamp_masks_everything_written_before(
        connection: happybase.Connection) -> None:
    table = new_table(connection)
    table.put(b"r", {b"cf:a": b"1"})
    table.put(b"r", {b"cf:a": b"0"}, timestamp=1)
    table.delete(b"r", columns=[b"cf:a"])
    assert table.cells(b"r", b"cf:a") == []
    connection.client.deleteAllRow(table.name, b"r", {})
    table.put(b"r", {b"cf:a": b"old"}, timestamp=1)
    assert table.row(b"r") == {}


def test_delete_all_calls_follow_hbase(connection: happybase.Connection) -> None:
    table = new_table(connection)
    client = connection.client
    table.put(b"r", {b"cf:a": b"1", b"cf:b": b"2"}, timestamp=10)
    client.deleteAllTs(table.name, b"r", b"cf:a", 10, {})
    assert table.row(b"r") == {b"cf:b": b"2"}
    client.deleteAllRowTs(table.name, b"r", 9, {})
    assert table.row(b"r") == {b"cf:b": b"2"}
    client.deleteAll(table.name, b"r", b"cf", {})
    assert table.row(b"r") == {}


# Batches and atomicity.


def test_a_batch_puts_and_deletes_many_rows_in_one_call(
        connection: happybase.Connection) -> None:
    table = new_table(connection)
    with table.batch() as batch:
        for number in range(500):
            batch.put(b"row%04d" % number, {b"cf:a": b"%d" % number, b"cf:b": b"x"})
    with table.batch(timestamp=2**42) as batch:
        for number in range(0, 500, 2):
            batch.delete(b"row%04d" % number, columns=[b"cf:b"])
    rows = dict(table.scan())
    assert len(rows) == 500
    assert rows[b"row0002"] == {b"cf:a": b"2"}
    assert rows[b"row0003"] == {b"cf:a": b"3", b"cf:b": b"x"}


def test_a_batch_with_one_bad_mutation_changes_nothing(connection: happybase.Connection) -> None:
    table = new_table(connection)
    batch = table.batch()
    batch.put(b"a", {b"cf:q": b"1"})
    batch.put(b"b", {b"missing:q": b"1"})
    with pytest.raises(Exception, match="NoSuchColumnFamilyException"):
        batch.send()
    assert list(table.scan()) == []


def logged_records(data: Path) -> list[Record]:
    """The records of a server's write-ahead log (read while it is idle)."""
    folder = data / "wal"
    return [record for number in wal.segments(folder)
            for record in wal.read_segment(wal.segment_path(folder, number), last=False)]


def test_a_1000_row_batch_is_one_logged_record(own_server: ServerProcess) -> None:
    """One ``mutateRows`` call, one log record and so one ``fdatasync``, whatever the rows."""
    table = new_table(own_server.start().connect())
    before = logged_records(own_server.data)
    batch = table.batch()
    for number in range(1000):
        batch.put(b"user%06d" % number, {b"cf:q": b""})
    batch.send()
    [record] = logged_records(own_server.data)[len(before):]
    assert record[:2] == (MUTATE, table.name)
    assert len(record[2]) == 1000


def test_row_mutations_are_atomic_for_concurrent_readers(server: ServerProcess) -> None:
    writer, reader = server.connect(), server.connect()
    table = new_table(writer)
    stop = threading.Event()
    torn: list[dict[bytes, bytes]] = []

    def write() -> None:
        for number in itertools.count():
            if stop.is_set():
                return
            value = b"%d" % number
            table.put(b"r", {b"cf:a": value, b"cf:b": value, b"cf:c": value})

    thread = threading.Thread(target=write)
    thread.start()
    try:
        for _ in range(300):
            row = reader.table(table.name).row(b"r")
            if row and len(set(row.values())) != 1:
                torn.append(row)
    finally:
        stop.set()
        thread.join()
    assert torn == []


def test_concurrent_counter_increments_are_atomic(server: ServerProcess) -> None:
    table = new_table(server.connect())

    def bump() -> None:
        conn = server.connect()
        for _ in range(100):
            conn.table(table.name).counter_inc(b"r", b"cf:n")
        conn.close()

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert table.counter_get(b"r", b"cf:n") == 400


# Scans and multi-row reads.


@pytest.fixture(scope="module")
def letters(connection: happybase.Connection) -> happybase.Table:
    table = new_table(connection, cf={}, other={})
    with table.batch() as batch:
        for key in (b"a", b"b", b"ba", b"bb", b"bc", b"c", b"d"):
            batch.put(key, {b"cf:x": key, b"cf:y": b"y", b"other:z": b"z"})
    return table


def keys(rows: Iterator[tuple[bytes, dict[bytes, bytes]]]) -> list[bytes]:
    return [key for key, _ in rows]


def test_a_scan_starts_inclusive_and_stops_exclusive(letters: happybase.Table) -> None:
    assert keys(letters.scan(row_start=b"b", row_stop=b"c")) == [b"b", b"ba", b"bb", b"bc"]
    assert keys(letters.scan(row_start=b"bb")) == [b"bb", b"bc", b"c", b"d"]
    assert keys(letters.scan(row_stop=b"b")) == [b"a"]


def test_a_scan_with_equal_start_and_stop_returns_that_row_as_hbase_does(
        letters: happybase.Table) -> None:
    assert keys(letters.scan(row_start=b"bb", row_stop=b"bb")) == [b"bb"]
    assert keys(letters.scan(row_start=b"bb", row_stop=b"bb", reverse=True)) == [b"bb"]


def test_a_prefix_scan_returns_only_matching_rows(letters: happybase.Table) -> None:
    assert keys(letters.scan(row_prefix=b"b")) == [b"b", b"ba", b"bb", b"bc"]
    assert keys(letters.scan(row_prefix=b"bz")) == []


def test_a_reverse_scan_walks_down_from_start_to_stop(letters: happybase.Table) -> None:
    assert keys(letters.scan(reverse=True)) == [b"d", b"c", b"bc", b"bb", b"ba", b"b", b"a"]
    assert keys(letters.scan(row_start=b"bb", row_stop=b"a", reverse=True)) == [
        b"bb", b"ba", b"b"]


def test_a_reverse_prefix_scan_keeps_hbase_inclusive_start_exclusive_stop(
        letters: happybase.Table) -> None:
    # happybase turns prefix b"b" into start b"c" (inclusive) and stop b"b" (exclusive), so
    # real HBase returns the row b"c" and omits the row b"b"; the development server does too.
    assert keys(letters.scan(row_prefix=b"b", reverse=True)) == [b"c", b"bc", b"bb", b"ba"]


def test_scan_limit_and_columns(letters: happybase.Table) -> None:
    assert list(letters.scan(columns=[b"cf:x"], limit=2)) == [
        (b"a", {b"cf:x": b"a"}), (b"b", {b"cf:x": b"b"})]
    assert dict(letters.scan(row_prefix=b"c", columns=[b"other"])) == {b"c": {b"other:z": b"z"}}


def test_scanner_get_list_pages_by_batch_size(letters: happybase.Table,
                                              connection: happybase.Connection) -> None:
    from Hbase_thrift import TScan

    client = connection.client
    scanner = client.scannerOpenWithScan(letters.name, TScan(caching=3), {})
    pages = [client.scannerGetList(scanner, 3) for _ in range(4)]
    client.scannerClose(scanner)
    assert [len(page) for page in pages] == [3, 3, 1, 0]
    assert keys(letters.scan(batch_size=2)) == keys(letters.scan())


def test_scan_batching_splits_wide_rows(letters: happybase.Table) -> None:
    parts = list(letters.scan(row_prefix=b"a", scan_batching=2))
    assert parts == [(b"a", {b"cf:x": b"a", b"cf:y": b"y"}), (b"a", {b"other:z": b"z"})]


def test_column_filters_page_through_a_wide_row(connection: happybase.Connection) -> None:
    table = new_table(connection)
    table.put(b"feed", {b"cf:%03d" % number: b"" for number in range(20)})
    page = "ColumnRangeFilter('005', false, '', false) AND ColumnPaginationFilter(3, 0)"
    [(_, row)] = list(table.scan(row_start=b"feed", row_stop=b"feed\x00", filter=page))
    assert list(row) == [b"cf:006", b"cf:007", b"cf:008"]


def test_an_unsupported_filter_is_refused_not_ignored(letters: happybase.Table) -> None:
    with pytest.raises(Exception, match="SingleColumnValueFilter is not supported"):
        list(letters.scan(filter="SingleColumnValueFilter('cf', 'x', =, 'binary:a')"))


def test_rows_and_row_with_columns(letters: happybase.Table) -> None:
    assert letters.rows([b"c", b"missing", b"a"], columns=[b"cf:x"]) == [
        (b"c", {b"cf:x": b"c"}), (b"a", {b"cf:x": b"a"})]
    assert letters.row(b"b", columns=[b"cf"]) == {b"cf:x": b"b", b"cf:y": b"y"}
    assert letters.row(b"b", columns=[b"cf:y", b"other:z"]) == {b"cf:y": b"y", b"other:z": b"z"}


# Counters.


def test_counters_increment_decrement_get_and_set(connection: happybase.Connection) -> None:
    table = new_table(connection)
    assert table.counter_get(b"r", b"cf:n") == 0
    assert table.counter_inc(b"r", b"cf:n", 5) == 5
    assert table.counter_dec(b"r", b"cf:n", 2) == 3
    table.counter_set(b"r", b"cf:n", 40)
    assert table.counter_inc(b"r", b"cf:n") == 41
    assert table.row(b"r") == {b"cf:n": struct.pack(">q", 41)}


def test_incrementing_a_non_counter_value_raises_io_error(
        connection: happybase.Connection) -> None:
    table = new_table(connection)
    table.put(b"r", {b"cf:n": b"text"})
    with pytest.raises(Exception, match="isn't 64 bits wide"):
        table.counter_inc(b"r", b"cf:n")


def _increments(table: happybase.Table, *rows: tuple[bytes, int]) -> list[Any]:
    from Hbase_thrift import TIncrement

    return [TIncrement(table=table.name, row=row, column=b"cf:n", ammount=amount)
            for row, amount in rows]


def test_increment_rows_adds_every_increment_including_repeats_of_one_cell(
        connection: happybase.Connection) -> None:
    table = new_table(connection)
    table.counter_set(b"a", b"cf:n", 10)
    connection.client.incrementRows(_increments(table, (b"a", 1), (b"b", 2), (b"a", 3)))
    assert table.counter_get(b"a", b"cf:n") == 14
    assert table.counter_get(b"b", b"cf:n") == 2


def test_increment_rows_applies_nothing_when_one_increment_is_invalid(
        connection: happybase.Connection) -> None:
    table = new_table(connection)
    table.put(b"text", {b"cf:n": b"not a counter"})
    with pytest.raises(Exception, match="isn't 64 bits wide"):
        connection.client.incrementRows(_increments(table, (b"a", 1), (b"text", 1)))
    assert table.counter_get(b"a", b"cf:n") == 0


def test_increment_rows_survive_a_restart(own_server: ServerProcess) -> None:
    connection = own_server.start().connect()
    table = new_table(connection)
    connection.client.incrementRows(_increments(table, (b"a", 5), (b"b", 7)))
    own_server.signal(signal.SIGKILL)
    again = own_server.start().connect()
    restarted = again.table(table.name)
    assert (restarted.counter_get(b"a", b"cf:n"), restarted.counter_get(b"b", b"cf:n")) == (5, 7)


# Errors keep the connection usable.


def test_errors_come_back_as_declared_exceptions_on_the_same_connection(
        connection: happybase.Connection) -> None:
    table = new_table(connection)
    client = connection.client
    failures = [
        ("IOError", lambda: table.put(b"r", {b"missing:q": b"v"})),
        ("IllegalArgument", lambda: table.put(b"r", {b"cf": b"no qualifier"})),
        ("IOError", lambda: client.atomicIncrement(table.name, b"r", None, 1)),
        ("IllegalArgument", lambda: client.scannerGetList(123456, 1)),
    ]
    for expected, call in failures:
        with pytest.raises(Exception) as caught:
            call()
        assert type(caught.value).__name__ == expected
        table.put(b"r", {b"cf:q": b"still works"})
        assert table.row(b"r") == {b"cf:q": b"still works"}


def test_an_internal_error_names_the_call(connection: happybase.Connection) -> None:
    table = new_table(connection)
    with pytest.raises(Exception, match="atomicIncrement: internal error AttributeError"):
        connection.client.atomicIncrement(table.name, b"r", None, 1)


def test_an_idle_pooled_connection_stays_open(server: ServerProcess) -> None:
    pool = happybase.ConnectionPool(2, host="127.0.0.1", port=server.port)
    with pool.connection() as conn:
        table = new_table(conn)
    time.sleep(3.5)
    with pool.connection() as conn:
        conn.table(table.name).put(b"r", {b"cf:q": b"v"})
        assert conn.table(table.name).row(b"r") == {b"cf:q": b"v"}


# Durability.


def test_an_acknowledged_write_survives_sigkill(own_server: ServerProcess) -> None:
    conn = own_server.start().connect()
    table = new_table(conn)
    table.put(b"r", {b"cf:q": b"v"}, timestamp=10)
    table.delete(b"r", columns=[b"cf:q"], timestamp=20)
    table.put(b"s", {b"cf:q": b"kept"})
    table.counter_inc(b"c", b"cf:n", 7)
    assert own_server.signal(signal.SIGKILL) == -signal.SIGKILL
    conn = own_server.start().connect()
    table = conn.table(table.name)
    table.put(b"r", {b"cf:q": b"replayed"}, timestamp=15)
    assert dict(table.scan()) == {b"c": {b"cf:n": struct.pack(">q", 7)},
                                  b"s": {b"cf:q": b"kept"}}


def test_restart_loads_the_snapshot_then_replays_the_log(own_server: ServerProcess) -> None:
    conn = own_server.start().connect()
    table = new_table(conn, cf={"max_versions": 1})
    table.put(b"before", {b"cf:q": b"1"})
    assert own_server.signal(signal.SIGTERM) == 0
    assert (own_server.data / "snapshot.bin").exists()
    table = own_server.start().connect().table(table.name)
    table.put(b"after", {b"cf:q": b"2"})
    own_server.signal(signal.SIGKILL)
    table = own_server.start().connect().table(table.name)
    assert dict(table.scan()) == {b"after": {b"cf:q": b"2"}, b"before": {b"cf:q": b"1"}}
    assert table.families()[b"cf"]["max_versions"] == 1


def test_periodic_snapshots_are_written_beside_serving_and_cover_the_log(
        tmp_path: Path) -> None:
    own = ServerProcess(tmp_path / "data", None, "--snapshot-interval", "0.2")
    try:
        table = new_table(own.start().connect())
        table.put(b"first", {b"cf:q": b"1"})
        snapshot = own.data / "snapshot.bin"
        assert wait_until(snapshot.exists)
        written = snapshot.stat().st_mtime_ns
        table.put(b"second", {b"cf:q": b"2"})
        assert wait_until(lambda: snapshot.stat().st_mtime_ns != written)
        # The writer's segments are gone once it finished; the next segment holds the rest.
        assert wait_until(lambda: len(list((own.data / "wal").glob("*.log"))) == 1)
        table.put(b"third", {b"cf:q": b"3"})
        own.signal(signal.SIGKILL)
        table = own.start().connect().table(table.name)
        assert sorted(key for key, _ in table.scan()) == [b"first", b"second", b"third"]
        assert not list(own.data.glob("*.tmp"))
    finally:
        own.stop()


def test_a_torn_record_at_the_end_of_the_log_is_cut_off(own_server: ServerProcess) -> None:
    table = new_table(own_server.start().connect())
    table.put(b"r", {b"cf:q": b"v"})
    own_server.signal(signal.SIGKILL)
    segment = sorted((own_server.data / "wal").glob("*.log"))[-1]
    with open(segment, "ab") as handle:
        handle.write(b"\x00\x00\x01\x00garbage")
    table = own_server.start().connect().table(table.name)
    assert table.row(b"r") == {b"cf:q": b"v"}


def test_a_second_server_refuses_a_data_folder_in_use(own_server: ServerProcess,
                                                       tmp_path: Path) -> None:
    own_server.start()
    result = subprocess.run([sys.executable, "-m", "devstack.hbase", "--port", str(free_port()),
                             "--data", str(own_server.data)], cwd=REPO_ROOT,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert "another server is using" in result.stderr


# A reference model of HBase's cell semantics, compared over random operations.

ROWS = [b"\x00", b"a", b"ab", b"b", b"\xff"]
COLUMNS = [b"cf:", b"cf:q", b"cf:q\x00", b"cf:r"]
MAX_VERSIONS = 2
Operation = tuple[Any, ...]
operations = st.lists(st.one_of(
    st.tuples(st.just("put"), st.sampled_from(ROWS), st.sampled_from(COLUMNS),
              st.integers(1, 12), st.binary(max_size=3)),
    st.tuples(st.just("delete"), st.sampled_from(ROWS), st.sampled_from(COLUMNS),
              st.integers(1, 12)),
    st.tuples(st.just("delete_row"), st.sampled_from(ROWS), st.integers(1, 12)),
    st.tuples(st.just("compact"))), max_size=30)


class ReferenceModel:
    """Every put kept; a cell is visible if newer than every marker over it, newest
    ``MAX_VERSIONS`` only; a major compaction drops the markers and the cells they hid."""

    def __init__(self) -> None:
        self.cells: dict[tuple[bytes, bytes], dict[int, bytes]] = {}
        self.marks: dict[tuple[bytes, bytes | None], int] = {}

    def apply(self, operation: Operation) -> None:
        kind, *args = operation
        if kind == "put":
            row, column, ts, value = args
            self.cells.setdefault((row, column), {})[ts] = value
        elif kind == "delete":
            row, column, ts = args
            self._mark((row, column), ts)
        elif kind == "delete_row":
            row, ts = args
            self._mark((row, None), ts)
        else:
            for key in self.cells:
                self.cells[key] = dict(self.visible(*key, versions=10**6))
            self.marks.clear()

    def _mark(self, key: tuple[bytes, bytes | None], ts: int) -> None:
        self.marks[key] = max(self.marks.get(key, 0), ts)

    def visible(self, row: bytes, column: bytes, versions: int = MAX_VERSIONS,
                before: int | None = None) -> list[tuple[int, bytes]]:
        mark = max(self.marks.get((row, column), 0), self.marks.get((row, None), 0))
        cells = sorted(((ts, value) for ts, value in self.cells.get((row, column), {}).items()
                        if ts > mark), reverse=True)[:versions]
        return [cell for cell in cells if before is None or cell[0] < before]

    def scan(self, before: int | None = None) -> dict[bytes, dict[bytes, tuple[bytes, int]]]:
        rows: dict[bytes, dict[bytes, tuple[bytes, int]]] = {}
        for row in ROWS:
            for column in COLUMNS:
                cells = self.visible(row, column, before=before)
                if cells:
                    rows.setdefault(row, {})[column] = (cells[0][1], cells[0][0])
        return rows


def apply_through_happybase(table: happybase.Table, conn: happybase.Connection,
                            operation: Operation) -> None:
    kind, *args = operation
    if kind == "put":
        row, column, ts, value = args
        table.put(row, {column: value}, timestamp=ts)
    elif kind == "delete":
        row, column, ts = args
        table.delete(row, columns=[column], timestamp=ts)
    elif kind == "delete_row":
        row, ts = args
        table.delete(row, timestamp=ts)
    else:
        conn.compact_table(table.name, major=True)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=operations, before=st.integers(1, 13),
       bounds=st.lists(st.sampled_from(ROWS), min_size=2, max_size=2, unique=True).map(sorted))
def test_random_puts_deletes_and_compactions_match_a_reference_model(
        connection: happybase.Connection, operations: list[Operation], before: int,
        bounds: list[bytes]) -> None:
    table = new_table(connection, cf={"max_versions": MAX_VERSIONS})
    model = ReferenceModel()
    for operation in operations:
        apply_through_happybase(table, connection, operation)
        model.apply(operation)
    expected = model.scan()
    low, high = bounds
    assert dict(table.scan(include_timestamp=True)) == expected
    assert dict(table.scan(include_timestamp=True, timestamp=before)) == model.scan(before)
    assert keys(table.scan(row_start=low, row_stop=high)) == [
        key for key in sorted(expected) if low <= key < high]
    assert keys(table.scan(row_start=high, row_stop=low, reverse=True)) == [
        key for key in sorted(expected, reverse=True) if low < key <= high]
    for row in ROWS:
        for column in COLUMNS:
            cells = table.cells(row, column, versions=5, include_timestamp=True)
            assert cells == [(value, ts) for ts, value in model.visible(row, column)]
    connection.delete_table(table.name, disable=True)


# The shared stack's two servers.


def test_the_stack_runs_a_primary_and_a_standby_hbase_server() -> None:
    stack = Stack()
    env = stack.env()
    for name, variable in (("hbase1", "PINSITE_HBASE_PRIMARY"),
                           ("hbase2", "PINSITE_HBASE_STANDBY")):
        service = stack.services[name]
        assert env[variable] == f"127.0.0.1:{service.port}"
        assert service.port == stack.profile.port_base + (90 if name == "hbase1" else 91)
        assert stack.healthy(name), f"{name} is not running: run `python3 -m devstack up`"
        host, port = env[variable].split(":")
        conn = happybase.Connection(host, int(port))
        assert isinstance(conn.tables(), list)
        conn.close()


def test_the_service_explains_a_missing_virtualenv(tmp_path: Path) -> None:
    service = HBaseThrift("hbasex", free_port(), tmp_path / "hbasex",
                          python=tmp_path / "no-venv" / "python")
    with pytest.raises(StartError, match="no-venv/python is missing"):
        service.up()


def test_the_health_probe_is_false_without_a_server() -> None:
    assert not hbase_thrift_ok("127.0.0.1", free_port())

