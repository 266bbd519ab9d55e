"""``PINSITE_BIND_HOST``: where each service binds, and what changes off loopback (accounts,
replication sources, health probe). Nothing here starts a server."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from devstack.errors import ProfileError
from devstack.health import mysql_greeting
from devstack.mariadb import MariaDB, change_master_sql
from devstack.netns import NetnsError, Network
from devstack.profile import Profile, parse_bind_hosts, resolve_profile
from devstack.redis import Redis
from devstack.services import build_services, settings_env

SPREAD = "mysql*=10.231.0.2,*=10.231.0.3"


def spread_profile(tmp_path: Path) -> Profile:
    return Profile("hosts", 33000, tmp_path, parse_bind_hosts(SPREAD))


def test_without_the_variable_everything_binds_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PINSITE_BIND_HOST", raising=False)
    services = build_services(resolve_profile("test"))
    assert {service.host for service in services.values()} == {"127.0.0.1"}


def test_one_address_is_every_service_s(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PINSITE_BIND_HOST", "10.0.0.7")
    profile = resolve_profile("test")
    assert profile.bind_hosts == (("*", "10.0.0.7"),)
    assert {service.host for service in build_services(profile).values()} == {"10.0.0.7"}


def test_patterns_place_services_in_order(tmp_path: Path) -> None:
    services = build_services(spread_profile(tmp_path))
    assert {name for name, service in services.items() if service.host == "10.231.0.2"} == {
        "mysql000", "mysql001a", "mysql001b", "mysql002a", "mysql002b"}
    assert services["rabbitmq"].host == services["hbase3"].host == "10.231.0.3"
    env = settings_env(spread_profile(tmp_path), services)
    assert env["PINSITE_DB_DEFAULT"] == "10.231.0.2:33306"
    assert "redis001b=10.231.0.3:33382" in env["PINSITE_REDIS_GRAPH_HOSTS"]
    assert env["PINSITE_AMQP_URL"] == "amqp://pinsite:pinsite@10.231.0.3:33672/%2F"


@pytest.mark.parametrize("raw", ["localhost", "mysql*=", "10.0.0.300", "::1"])
def test_a_bad_address_is_refused(raw: str) -> None:
    with pytest.raises(ProfileError, match="PINSITE_BIND_HOST"):
        parse_bind_hosts(raw)


def test_loopback_accounts_are_unchanged(tmp_path: Path) -> None:
    server = MariaDB("mysql000", 23306, tmp_path, database="pinsite")
    assert "bind-address=127.0.0.1\n" in server.render_cnf()
    assert "'pinsite'@'127.0.0.1'" in server.users_sql() and "'%'" not in server.users_sql()
    assert server.bootstrap_version == "1"


def test_a_network_address_opens_the_accounts_to_other_hosts(tmp_path: Path) -> None:
    services = build_services(spread_profile(tmp_path))
    replica = services["mysql001b"]
    assert isinstance(replica, MariaDB) and isinstance(replica.master, MariaDB)
    assert "bind-address=10.231.0.2\n" in replica.render_cnf()
    assert "'repl'@'%'" in replica.users_sql() and "'127.0.0.1'" not in replica.users_sql()
    assert replica.bootstrap_version == "1 %"
    assert "MASTER_HOST='10.231.0.2', MASTER_PORT=33311" in change_master_sql(replica.master)


def test_a_redis_replica_follows_its_master_s_address(tmp_path: Path) -> None:
    replica = build_services(spread_profile(tmp_path))["redis002b"]
    assert isinstance(replica, Redis)
    assert ("replicaof", "10.231.0.3 33391") in replica.settings()
    assert ("bind", "10.231.0.3") in replica.settings()


def _answer_once(payload: bytes) -> int:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        connection, _ = listener.accept()
        connection.sendall(payload)
        connection.close()
        listener.close()

    threading.Thread(target=serve, daemon=True).start()
    return int(listener.getsockname()[1])


def test_a_server_refusing_the_probe_s_address_is_ready() -> None:
    refusal = b"\x17\x00\x00\x00\xff\x6a\x04" + b"Host is not allowed"
    assert mysql_greeting("127.0.0.1", _answer_once(refusal))
    other_error = b"\x17\x00\x00\x00\xff\x10\x04" + b"Too many connections"
    assert not mysql_greeting("127.0.0.1", _answer_once(other_error))


def test_namespaces_need_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    with pytest.raises(NetnsError, match="root"):
        Network("pinsitetest", "10.231.1.0/24", ("a",)).create()
