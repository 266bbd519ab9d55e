"""The local stack of the ``test`` profile: health, replication, semi-sync, and the other servers.

These tests talk to the running stack (``python3 -m devstack --profile test up``); nothing is
mocked. Each test cleans up what it writes.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from devstack import Stack
from devstack.amqp import amqp_login
from devstack.errors import CommandFailed
from devstack.health import amqp_greeting, zookeeper_word
from devstack.mariadb import MariaDB
from devstack.mysql_client import APP_PASSWORD, APP_USER, Login, run_sql
from devstack.pairs import destroy, mysql_pair
from devstack.reclone import reclone
from devstack.redis import Redis
from devstack.resp import RespConnection
from tests.polling import wait_until

MYSQL_PAIRS = [("mysql001a", "mysql001b"), ("mysql002a", "mysql002b")]
REDIS_PAIRS = [("redis001a", "redis001b"), ("redis002a", "redis002b")]
PROBE_SCHEMA = "devstack_selftest"


@pytest.fixture(scope="module")
def stack() -> Stack:
    stack = Stack()
    if not all(stack.healthy(name) for name in ("mysql000", "redis000", "zookeeper")):
        pytest.fail("the test stack is down: run `python3 -m devstack --profile test up`")
    return stack


def mariadb(stack: Stack, name: str) -> MariaDB:
    service = stack.services[name]
    assert isinstance(service, MariaDB)
    return service


def admin_sql(service: MariaDB, sql: str) -> list[dict[str, str]]:
    return run_sql(service.admin_login(), sql)


def test_every_service_is_running_and_healthy(stack: Stack) -> None:
    rows = stack.status()
    assert {row["name"] for row in rows} == set(stack.services)
    assert [row["name"] for row in rows if not row["healthy"]] == []


def test_every_replica_reports_running_replication(stack: Stack) -> None:
    replicas = {row["name"]: row["replication"] for row in stack.status()
                if row["role"] == "replica"}
    for name in ("mysql001b", "mysql002b"):
        assert (replicas[name]["io_running"], replicas[name]["sql_running"]) == ("Yes", "Yes")
    for name in ("redis001b", "redis002b"):
        assert replicas[name]["master_link_status"] == "up"


def test_a_second_up_changes_nothing(stack: Stack) -> None:
    """Nothing is started, restarted or replaced: every service keeps its process."""
    running = {row["name"]: row["pid"] for row in stack.status()}
    assert stack.up() == []
    assert {row["name"]: row["pid"] for row in stack.status()} == running


@pytest.mark.parametrize(("master", "replica"), MYSQL_PAIRS)
def test_a_row_written_on_a_shard_master_appears_on_its_replica(
        stack: Stack, master: str, replica: str) -> None:
    token = uuid.uuid4().hex
    source, copy = mariadb(stack, master), mariadb(stack, replica)
    admin_sql(source, f"CREATE DATABASE IF NOT EXISTS {PROBE_SCHEMA}; "
                      f"CREATE TABLE IF NOT EXISTS {PROBE_SCHEMA}.probe "
                      "(token CHAR(32) PRIMARY KEY); "
                      f"INSERT INTO {PROBE_SCHEMA}.probe VALUES ('{token}')")
    try:
        assert wait_until(lambda: bool(admin_sql(
            copy, f"SELECT token FROM {PROBE_SCHEMA}.probe WHERE token = '{token}'")))
    finally:
        admin_sql(source, f"DELETE FROM {PROBE_SCHEMA}.probe WHERE token = '{token}'")


@pytest.mark.parametrize(("master", "replica"), MYSQL_PAIRS)
def test_shard_pairs_use_gtid_semi_sync_after_sync(stack: Stack, master: str, replica: str) -> None:
    source = admin_sql(mariadb(stack, master), "SELECT @@rpl_semi_sync_master_enabled AS enabled, "
                       "@@rpl_semi_sync_master_wait_point AS wait_point")[0]
    status = {row["Variable_name"]: row["Value"] for row in admin_sql(
        mariadb(stack, master), "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_%'")}
    copy = {row["Variable_name"]: row["Value"] for row in admin_sql(
        mariadb(stack, replica), "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_slave_status'")}
    assert source == {"enabled": "1", "wait_point": "AFTER_SYNC"}
    assert status["Rpl_semi_sync_master_status"] == "ON"
    assert int(status["Rpl_semi_sync_master_clients"]) >= 1
    assert copy["Rpl_semi_sync_slave_status"] == "ON"
    assert mariadb(stack, replica).slave_status()["Using_Gtid"] == "Slave_Pos"


@pytest.mark.parametrize("replica", ["mysql001b", "mysql002b"])
def test_read_only_fences_the_app_user_on_replicas(stack: Stack, replica: str) -> None:
    service = mariadb(stack, replica)
    app = Login(service.host, service.port, user=APP_USER, password=APP_PASSWORD)
    assert run_sql(app, "SELECT 1 AS one") == [{"one": "1"}]
    with pytest.raises(CommandFailed, match="read-only"):
        run_sql(app, "CREATE DATABASE devstack_must_not_exist")


def test_the_django_database_exists_for_the_app_user(stack: Stack) -> None:
    service = mariadb(stack, "mysql000")
    app = Login(service.host, service.port, user=APP_USER, password=APP_PASSWORD)
    rows = run_sql(app, "SELECT DEFAULT_CHARACTER_SET_NAME AS charset FROM "
                        "information_schema.SCHEMATA WHERE SCHEMA_NAME = 'pinsite'")
    assert rows == [{"charset": "utf8mb4"}]


@pytest.mark.parametrize(("master", "replica"), REDIS_PAIRS)
def test_a_redis_master_write_reaches_its_replica(stack: Stack, master: str, replica: str) -> None:
    source, copy = stack.services[master], stack.services[replica]
    assert isinstance(source, Redis) and isinstance(copy, Redis)
    key, value = f"devstack:selftest:{uuid.uuid4().hex}", uuid.uuid4().hex
    with RespConnection(source.host, source.port) as writer, \
            RespConnection(copy.host, copy.port) as reader:
        writer.command("SET", key, value, "EX", 60)
        try:
            assert wait_until(lambda: reader.command("GET", key) == value)
        finally:
            writer.command("DEL", key)


def test_zookeeper_answers_as_a_standalone_server(stack: Stack) -> None:
    service = stack.services["zookeeper"]
    assert zookeeper_word(service.host, service.port, "ruok") == "imok"
    assert "Mode: standalone" in zookeeper_word(service.host, service.port, "srvr")


def test_rabbitmq_answers_and_accepts_the_app_user(stack: Stack) -> None:
    service = stack.services["rabbitmq"]
    assert amqp_greeting(service.host, service.port)
    assert amqp_login(service.host, service.port, "pinsite", "pinsite", "/")
    assert not amqp_login(service.host, service.port, "pinsite", "wrong-password", "/")


def test_env_points_at_the_running_services(stack: Stack) -> None:
    env = stack.env()
    ports = {row["name"]: row["port"] for row in stack.status()}
    assert env["PINSITE_DB_DEFAULT"] == f"127.0.0.1:{ports['mysql000']}"
    assert f"mysql001b=127.0.0.1:{ports['mysql001b']}" in env["PINSITE_SHARD_HOSTS"]
    assert env["PINSITE_ZK_HOSTS"] == f"127.0.0.1:{ports['zookeeper']}"
    assert env["PINSITE_AMQP_URL"] == f"amqp://pinsite:pinsite@127.0.0.1:{ports['rabbitmq']}/%2F"


@pytest.fixture
def throwaway_pair(stack: Stack, tmp_path: Path) -> Iterator[tuple[MariaDB, MariaDB]]:
    base = stack.profile.port_base
    master, replica = mysql_pair("mysqlt1a", "mysqlt1b", base + 441, base + 442, tmp_path)
    try:
        yield master, replica
    finally:
        destroy(master, replica)


def test_a_killed_master_can_be_replaced_and_the_old_one_recloned(
        throwaway_pair: tuple[MariaDB, MariaDB]) -> None:
    master, replica = throwaway_pair
    admin_sql(master, "CREATE DATABASE t; CREATE TABLE t.x (v INT); INSERT INTO t.x VALUES (1)")
    assert wait_until(lambda: bool(admin_sql(replica, "SHOW DATABASES LIKE 't'")) and
                      bool(admin_sql(replica, "SELECT v FROM t.x")))
    master.kill()
    admin_sql(replica, "STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF; "
                       "INSERT INTO t.x VALUES (2)")
    reclone(master, replica)
    admin_sql(replica, "SET GLOBAL rpl_semi_sync_master_enabled = ON; INSERT INTO t.x VALUES (3)")
    assert wait_until(lambda: len(admin_sql(master, "SELECT v FROM t.x")) == 3)
    assert master.replication()["io_running"] == "Yes"  # type: ignore[index]
