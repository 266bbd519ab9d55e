"""The local stack follows promotions (:mod:`devstack.roles`): after a replica was promoted
behind its back, ``status`` shows the new roles, ``up`` brings an old Redis master back as
the new master's replica and leaves an old MariaDB master stopped and fenced, and both are
remembered by the next command; ``start`` follows them too, and says why it leaves a fenced
old master down."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from devstack import roles
from devstack.__main__ import main
from devstack.mariadb import MariaDB
from devstack.pairs import destroy, mysql_pair
from devstack.reclone import reclone
from devstack.redis import Redis
from devstack.resp import RespConnection
from devstack.service import FENCED, MASTER, REPLICA, Service
from devstack.stack import Stack
from tests.devstack.helpers import own_stack
from tests.polling import wait_until

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"


@pytest.fixture
def redis_pair(tmp_path: Path) -> Iterator[dict[str, Service]]:
    base = Stack().profile.port_base
    master = Redis("redisr1a", base + 471, tmp_path / "redisr1a", role=MASTER, persistent=True)
    replica = Redis("redisr1b", base + 472, tmp_path / "redisr1b", role=REPLICA, master=master,
                    persistent=True)
    try:
        master.up()
        replica.up()
        yield {"redisr1a": master, "redisr1b": replica}
    finally:
        destroy(master, replica)


@pytest.fixture
def mariadb_pair(tmp_path: Path) -> Iterator[dict[str, Service]]:
    base = Stack().profile.port_base
    master, replica = mysql_pair("mysqlr1a", "mysqlr1b", base + 451, base + 452, tmp_path)
    try:
        yield {"mysqlr1a": master, "mysqlr1b": replica}
    finally:
        destroy(master, replica)


def redis_command(service: Service, *args: str) -> object:
    with RespConnection(service.host, service.port) as conn:
        return conn.command(*args)


def test_an_old_redis_master_comes_back_as_the_promoted_ones_replica(
        redis_pair: dict[str, Service], tmp_path: Path) -> None:
    old, new = redis_pair["redisr1a"], redis_pair["redisr1b"]
    redis_command(old, "SET", "before", "1")
    assert wait_until(lambda: redis_command(new, "GET", "before") == "1")
    redis_command(new, "REPLICAOF", "NO", "ONE")  # what `graph promote` does
    old.kill(signal.SIGKILL)
    redis_command(new, "SET", "after", "2")

    changes = roles.follow_promotions(redis_pair, tmp_path)

    assert changes == ["redisr1b is master, redisr1a its replica (promoted while the stack ran)"]
    assert (new.role, new.master, old.role, old.master) == (MASTER, None, REPLICA, new)
    assert new.status()["role"] == "master" and old.status()["role"] == "replica"
    assert old.up()  # started as the new master's replica, not as a second master
    assert redis_command(old, "GET", "after") == "2"
    assert old.replication()["master_link_status"] == "up"  # type: ignore[index]
    assert roles.follow_promotions(redis_pair, tmp_path) == []  # nothing new
    again = _fresh_redis_pair(redis_pair)  # the next command's view, from the record
    roles.apply(again, roles.load(tmp_path))
    assert (again["redisr1b"].role, again["redisr1a"].role) == (MASTER, REPLICA)
    assert again["redisr1a"].master is again["redisr1b"]
    promoted = again["redisr1b"]
    assert isinstance(promoted, Redis) and "replicaof" not in promoted.render_conf()


def test_an_old_redis_master_still_running_as_a_master_is_made_a_replica(
        redis_pair: dict[str, Service], tmp_path: Path) -> None:
    old, new = redis_pair["redisr1a"], redis_pair["redisr1b"]
    redis_command(new, "REPLICAOF", "NO", "ONE")  # promoted; the old master never stopped
    redis_command(new, "SET", "after", "3")
    roles.follow_promotions(redis_pair, tmp_path)
    assert not old.up()  # it ran already: made a replica in place
    assert "role:slave" in str(redis_command(old, "INFO", "replication"))
    assert wait_until(lambda: redis_command(old, "GET", "after") == "3")


def test_an_old_mariadb_master_is_fenced_until_recloned(
        mariadb_pair: dict[str, Service], tmp_path: Path) -> None:
    old, new = mariadb_pair["mysqlr1a"], mariadb_pair["mysqlr1b"]
    assert isinstance(old, MariaDB) and isinstance(new, MariaDB)
    old.kill(signal.SIGKILL)
    new.sql("STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF")  # `shards promote`

    changes = roles.follow_promotions(mariadb_pair, tmp_path)

    assert changes == ["mysqlr1b is master, mysqlr1a fenced (promoted while the stack ran; "
                       "`reclone mysqlr1a mysqlr1b` makes it a replica)"]
    assert (new.role, old.role) == (MASTER, FENCED)
    assert not old.up() and not old.is_running()  # left stopped
    assert old.status()["role"] == "fenced"
    assert "rpl_semi_sync_master_enabled" not in new.render_cnf()  # no replica to wait for
    assert "read_only" not in new.render_cnf()  # restarted, it still takes writes
    assert new.up() is False  # the promoted master is fine as it is: no replication wait

    reclone(old, new)
    new.accept_replica()
    roles.recloned(mariadb_pair, tmp_path, old, new)

    recorded = roles.load(tmp_path)
    assert recorded["mysqlr1a"]["role"] == REPLICA and recorded["mysqlr1a"]["master"] == "mysqlr1b"
    assert recorded["mysqlr1b"] == {"role": MASTER, "master": None, "without_replica": False}
    assert "rpl_semi_sync_master_enabled=ON" in new.render_cnf()
    assert old.replication()["io_running"] == "Yes"  # type: ignore[index]


def test_a_running_old_mariadb_master_is_fenced_read_only(
        mariadb_pair: dict[str, Service], tmp_path: Path) -> None:
    old, new = mariadb_pair["mysqlr1a"], mariadb_pair["mysqlr1b"]
    assert isinstance(old, MariaDB) and isinstance(new, MariaDB)
    new.sql("STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF")
    roles.follow_promotions(mariadb_pair, tmp_path)
    assert not old.up()
    assert old.sql("SELECT @@GLOBAL.read_only AS ro")[0]["ro"] == "1"


def _fresh_redis_pair(pair: dict[str, Service]) -> dict[str, Service]:
    old, new = pair["redisr1a"], pair["redisr1b"]
    master = Redis(old.name, old.port, old.home, role=MASTER, persistent=True)
    replica = Redis(new.name, new.port, new.home, role=REPLICA, master=master, persistent=True)
    return {master.name: master, replica.name: replica}


def test_a_reclone_records_its_source_as_the_master_whatever_was_recorded(
        tmp_path: Path) -> None:
    # mysqlr2a was recorded as mysqlr2b's replica, then promoted while nobody looked
    a = MariaDB("mysqlr2a", 1, tmp_path / "a", role=REPLICA)
    b = MariaDB("mysqlr2b", 2, tmp_path / "b", role=MASTER)
    a.master = b
    b.role, b.master = REPLICA, a  # what reclone(b, a) sets
    roles.recloned({"mysqlr2a": a, "mysqlr2b": b}, tmp_path, replica=b, master=a)
    recorded = roles.load(tmp_path)
    assert recorded["mysqlr2a"] == {"role": MASTER, "master": None, "without_replica": False}
    assert (recorded["mysqlr2b"]["role"], recorded["mysqlr2b"]["master"]) == (REPLICA, "mysqlr2a")


CLI_PROFILE = "startroles"


@pytest.fixture
def cli_stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    """A stack of its own (profile ``startroles``, ports 9100+) for the command line; what a
    test starts in it is stopped and its folder removed afterwards."""
    with own_stack(monkeypatch, CLI_PROFILE, 9100) as own:
        yield own


def test_start_refuses_a_fenced_old_master_and_names_the_reclone(
        cli_stack: Stack, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = cli_stack.services["mysql001a"], cli_stack.services["mysql001b"]
    old.role, old.master = FENCED, None  # what following a promotion of mysql001b records
    new.role, new.master, new.without_replica = MASTER, None, True
    roles.record(cli_stack.services, cli_stack.profile.var_dir, [old.name, new.name])

    code = main(["--profile", CLI_PROFILE, "start", "mysql001a"])

    said = capsys.readouterr().err
    assert code != 0
    assert "mysql001a is an old master, fenced since mysql001b was promoted" in said
    assert "was left stopped" in said
    assert "`python3 -m devstack --profile startroles reclone mysql001a mysql001b`" in said
    assert not Stack(CLI_PROFILE).services["mysql001a"].is_running()


def test_start_brings_a_deposed_redis_master_back_as_the_promoted_ones_replica(
        cli_stack: Stack, capsys: pytest.CaptureFixture[str]) -> None:
    cli_stack.up(["redis001b"])  # and its master redis001a
    old, new = cli_stack.services["redis001a"], cli_stack.services["redis001b"]
    redis_command(new, "REPLICAOF", "NO", "ONE")  # what `graph promote` does
    old.kill(signal.SIGKILL)
    redis_command(new, "SET", "after", "4")

    code = main(["--profile", CLI_PROFILE, "start", "redis001a"])

    said = capsys.readouterr().out
    assert code == 0
    assert "redis001b is master, redis001a its replica" in said
    assert "started redis001a as redis001b's replica" in said
    assert "role:slave" in str(redis_command(old, "INFO", "replication"))
    assert wait_until(lambda: redis_command(old, "GET", "after") == "4")
    # Stopped at once, while it may still write its first AOF after the full sync (when Redis
    # refuses a SIGTERM): it is asked again and exits cleanly, not killed at the timeout.
    assert isinstance(old, Redis) and old.stop()
    assert "ready to exit" in old.server_log.read_text().splitlines()[-1]
