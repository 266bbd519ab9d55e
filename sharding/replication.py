"""Operator access to shard hosts: health, replica lag, and the steps of a promotion.

Uses an administrative MySQL account (``ADMIN_USER``) on short timeouts, never the
application's pooled connections: a dead host must answer "down" quickly.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Any

import MySQLdb
import MySQLdb.cursors
from django.conf import settings

from sharding.conf import sharding_settings
from sharding.exceptions import PromotionError, ShardUnavailable
from sharding.hosts import require_alias


@contextmanager
def admin_cursor(alias: str, timeout: int = 3) -> Iterator[Any]:
    """A dictionary cursor on host ``alias`` as the admin user."""
    database = settings.DATABASES[require_alias(alias)]
    try:
        connection = MySQLdb.connect(
            host=database["HOST"], port=int(database["PORT"]),
            user=sharding_settings.ADMIN_USER, password=sharding_settings.ADMIN_PASSWORD,
            connect_timeout=timeout, read_timeout=max(timeout, 5), autocommit=True,
            cursorclass=MySQLdb.cursors.DictCursor,
        )
    except MySQLdb.Error as exc:
        raise ShardUnavailable(f"{alias} is unreachable: {exc}") from exc
    with closing(connection), closing(connection.cursor()) as c:
        try:
            yield c
        except MySQLdb.Error as exc:
            raise ShardUnavailable(f"{alias}: {exc}") from exc


@dataclass(frozen=True)
class HostHealth:
    """One host as seen now: reachable, writable, and for a replica its replication state."""

    alias: str
    reachable: bool
    read_only: bool | None = None
    replicating: bool | None = None
    lag_seconds: int | None = None
    gtid: str | None = None
    error: str | None = None


def unreachable(address: tuple[str, int]) -> str | None:
    """Why the admin user cannot reach a MySQL server at ``address`` (None: it answers)."""
    try:
        connection = MySQLdb.connect(host=address[0], port=address[1],
                                     user=sharding_settings.ADMIN_USER,
                                     password=sharding_settings.ADMIN_PASSWORD, connect_timeout=3)
    except MySQLdb.Error as exc:
        return str(exc)
    connection.close()
    return None


def host_health(alias: str) -> HostHealth:
    try:
        with admin_cursor(alias, timeout=2) as c:
            c.execute("SELECT @@global.read_only AS ro, @@global.gtid_current_pos AS gtid")
            row = c.fetchone()
            c.execute("SHOW SLAVE STATUS")
            replica = c.fetchone()
    except ShardUnavailable as exc:
        return HostHealth(alias, reachable=False, error=str(exc.__cause__ or exc))
    if replica is None:
        return HostHealth(alias, True, bool(row["ro"]), gtid=row["gtid"])
    running = replica["Slave_IO_Running"] == "Yes" and replica["Slave_SQL_Running"] == "Yes"
    lag = replica["Seconds_Behind_Master"]
    return HostHealth(alias, True, bool(row["ro"]), running, None if lag is None else int(lag),
                      row["gtid"], replica["Last_IO_Error"] or replica["Last_SQL_Error"] or None)


def replication_problems(replica: str, master: str) -> list[str]:
    """Why ``replica`` is not a hot standby of ``master`` (empty when it is one): it must
    replicate from ``master``'s address with GTIDs, both threads running, and be read-only."""
    try:
        with admin_cursor(replica, timeout=2) as c:
            c.execute("SELECT @@global.read_only AS ro")
            read_only = bool(c.fetchone()["ro"])
            c.execute("SHOW SLAVE STATUS")
            status = c.fetchone()
    except ShardUnavailable as exc:
        return [f"{replica} cannot be reached ({exc.__cause__ or exc})"]
    problems = [] if read_only else [f"{replica} is writable (read_only is OFF)"]
    if status is None:
        return [*problems, f"{replica} replicates from nothing"]
    source = (str(status["Master_Host"]), int(status["Master_Port"]))
    master_database = settings.DATABASES[require_alias(master)]
    wanted = (str(master_database["HOST"]), int(master_database["PORT"]))
    if source != wanted:
        problems.append(f"{replica} replicates from {source[0]}:{source[1]}, not from {master} "
                        f"({wanted[0]}:{wanted[1]})")
    if status.get("Using_Gtid", "No") == "No":
        problems.append(f"{replica} replicates by binlog position, not by GTID")
    stopped = [name for name in ("Slave_IO_Running", "Slave_SQL_Running")
               if status[name] != "Yes"]
    if stopped:
        error = status["Last_IO_Error"] or status["Last_SQL_Error"]
        problems.append(f"{replica}'s {' and '.join(stopped)} is not running"
                        + (f" ({error})" if error else ""))
    return problems


def fence(alias: str) -> bool:
    """Make a master read-only for the application; False if it cannot be reached."""
    try:
        with admin_cursor(alias, timeout=2) as c:
            c.execute("SET GLOBAL read_only = ON")
    except ShardUnavailable:
        return False
    return True


def promote_replica(alias: str, wait_seconds: float) -> str:
    """Apply everything ``alias`` received from its master, stop replicating and open it for
    writes. Returns its GTID position. Semi-sync (AFTER_SYNC) guarantees that every commit the
    old master acknowledged is in this replica's relay log, so nothing acknowledged is lost."""
    with admin_cursor(alias, timeout=5) as c:
        c.execute("SHOW SLAVE STATUS")
        status = c.fetchone()
        if status is None:
            raise PromotionError(f"{alias} is not a replica")
        _wait_for_relay_log(c, alias, wait_seconds)
        c.execute("STOP SLAVE")
        c.execute("RESET SLAVE ALL")
        c.execute("SET GLOBAL rpl_semi_sync_slave_enabled = OFF")
        c.execute("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
        c.execute("SET GLOBAL read_only = OFF")
        c.execute("SELECT @@global.gtid_current_pos AS gtid")
        return str(c.fetchone()["gtid"])


def _wait_for_relay_log(c: Any, alias: str, wait_seconds: float) -> None:
    """Wait until the SQL thread has applied every event the IO thread received."""
    deadline = time.monotonic() + wait_seconds
    while True:
        c.execute("SHOW SLAVE STATUS")
        status = c.fetchone()
        received = status["Gtid_IO_Pos"]
        c.execute("SELECT MASTER_GTID_WAIT(%s, 1) AS waited", [received])
        if c.fetchone()["waited"] == 0:
            return
        if time.monotonic() > deadline:
            raise PromotionError(f"{alias} did not apply its relay log ({received}) in "
                                 f"{wait_seconds:.0f}s; not promoted")
