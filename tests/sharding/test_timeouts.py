"""Shard hosts that stop answering: a throwaway MariaDB outside the shared stack serves one
shard of a shard map of the test's own, and is stopped (SIGSTOP) under a statement.

A statement or a connection attempt on a stopped host fails with :class:`ShardUnavailable`
while the host is still stopped (the connection's read and connect timeouts), and the server
rolls back the transaction it had open once it resumes. A master fenced read-only while a
transaction was open refuses its commit. With a statement time limit set, the server itself
aborts a statement that runs longer.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from django.conf import settings
from django.db import DatabaseError, connections

from devstack.mariadb import MariaDB
from devstack.pairs import destroy
from devstack.ports import free_loopback_ports
from pins.types import PIN
from sharding import objects, replication
from sharding.exceptions import ShardUnavailable
from sharding.hosts import add_alias, atomic, cursor, schema_name
from sharding.schema import init_host
from sharding.shardmap import ShardRange
from sharding.topology import current_map
from tests.polling import wait_until
from tests.sharding.helpers import own_shard_map

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

HOST = "mysqlt1a"
STOP_SECONDS = 30  # a stop resumes by itself after this long, whatever the test does
LOST_CONNECTION = 2013
STATEMENT_TIME_EXCEEDED = 1969
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MariaDB]:
    """A MariaDB of its own, known to this process as shard host ``HOST``."""
    (port,) = free_loopback_ports(1)
    made = MariaDB(HOST, port, tmp_path_factory.mktemp("timeouts") / HOST)
    made.prepare()
    made.up()
    add_alias(HOST, ("127.0.0.1", port))
    try:
        yield made
    finally:
        made.kill(signal.SIGCONT)
        with suppress(DatabaseError):
            connections[HOST].close()
        del connections[HOST]
        settings.DATABASES.pop(HOST, None)
        destroy(made)


@pytest.fixture
def shard(server: MariaDB, tmp_path: Path) -> Iterator[int]:
    """A shard of its own on ``HOST`` (one past the open ones), in a shard map of the test's
    own; the host is writable and its pins table empty at the start."""
    before = current_map()
    number = max(before.open_shards()) + 1
    init_host(HOST, [number])
    server.sql(f"SET GLOBAL read_only = OFF; DELETE FROM {schema_name(number)}.pins")
    with own_shard_map(tmp_path, before.with_range(ShardRange(number, number, HOST, None))):
        yield number


@contextmanager
def stopped(server: MariaDB) -> Iterator[threading.Event]:
    """``server`` stopped (SIGSTOP) for the block, and at most ``STOP_SECONDS``; yields the
    event set when it resumes."""
    resumed = threading.Event()

    def resume() -> None:
        server.kill(signal.SIGCONT)
        resumed.set()

    timer = threading.Timer(STOP_SECONDS, resume)
    server.kill(signal.SIGSTOP)
    timer.start()
    try:
        yield resumed
    finally:
        timer.cancel()
        resume()


def lost_connection(error: BaseException) -> bool:
    cause = error.__cause__
    return isinstance(cause, DatabaseError) and bool(cause.args) and \
        cause.args[0] == LOST_CONNECTION


def open_transactions(server: MariaDB) -> int:
    return int(server.sql("SELECT COUNT(*) AS n FROM information_schema.innodb_trx")[0]["n"])


def pins_on(server: MariaDB, shard: int) -> int:
    return int(server.sql(f"SELECT COUNT(*) AS n FROM {schema_name(shard)}.pins")[0]["n"])


@pytest.mark.parametrize(("connected", "waited"), [
    (True, "the statement waited for the host to resume"),
    (False, "the connection waited for the host to resume"),
], ids=["on-an-open-connection", "on-a-new-connection"])
def test_a_statement_on_a_stopped_host_fails_before_the_host_resumes(
        server: MariaDB, shard: int, connected: bool, waited: str) -> None:
    if connected:
        with cursor(HOST) as c:
            c.execute("SELECT 1")  # connected while the host answered
    else:
        connections[HOST].close()
    with stopped(server) as resumed:
        with pytest.raises(ShardUnavailable) as failed, cursor(HOST) as c:
            c.execute("SELECT 1")
        assert not resumed.is_set(), waited
    assert lost_connection(failed.value), failed.value.__cause__


def test_a_write_on_a_stopped_master_fails_and_the_server_rolls_it_back(
        server: MariaDB, shard: int) -> None:
    with pytest.raises(ShardUnavailable) as failed, atomic(shard):
        objects.create(PIN, shard, {"title": "before the stop"})
        with stopped(server) as resumed:
            try:
                objects.create(PIN, shard, {"title": "during the stop"})
            finally:
                assert not resumed.is_set(), "the write waited for the master to resume"
    assert lost_connection(failed.value), failed.value.__cause__
    assert wait_until(lambda: open_transactions(server) == 0, timeout=20)
    assert pins_on(server, shard) == 0


def test_a_master_fenced_during_a_transaction_refuses_its_commit(
        server: MariaDB, shard: int) -> None:
    with pytest.raises(ShardUnavailable, match="read-only"), atomic(shard):
        objects.create(PIN, shard, {"title": "before the fence"})
        assert replication.fence(HOST)
    assert pins_on(server, shard) == 0


STATEMENT_LIMIT = """
from django import setup
setup()
from sharding.exceptions import ShardUnavailable
from sharding.hosts import cursor
try:
    with cursor("default") as c:
        c.execute("SELECT SLEEP(5)")
except ShardUnavailable as exc:
    print(exc.__cause__.args[0])
"""


def test_the_statement_time_limit_has_the_server_abort_a_longer_statement() -> None:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "pinsite.test_settings",
                   "PINSITE_MYSQL_STATEMENT_TIMEOUT": "1", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", STATEMENT_LIMIT], cwd=REPO, env=environment,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(STATEMENT_TIME_EXCEEDED)
