"""Splitting a shard host: a new master takes over the upper half of a master's shards
(``manage.py shards split MASTER NEW_MASTER [--replica R]``), the slides' "a server is
replicated and the new replica becomes responsible for some DBs".

1. **Copy.** A consistent dump of MASTER's shard schemas (and its outbox schema, which
   replication writes to) is loaded into NEW_MASTER, which then replicates MASTER by GTID
   from the dump's position and catches up. Writers go on meanwhile.
2. **Fence.** The shard map marks MASTER's shards from the cut on as fenced (compare-and-set).
   Every process waits before using a fenced shard, and a write that was under way on MASTER
   for one when the fence came is not acknowledged (:func:`sharding.hosts.atomic`).
3. **Catch up and cut.** Once NEW_MASTER has applied everything MASTER logged, replication is
   cut, the outbox rows it copied are dropped (MASTER's relay publishes them) and it is opened
   for writes.
4. **Switch.** The fenced ranges move to NEW_MASTER (with its replica R) in one
   compare-and-set; the waiting processes go on there. The fence stands from step 2 to here:
   that is the longest pause a writer of a moving shard sees, and the report gives it.

A failure before the switch lifts the fence and leaves the map as it was; one before the
fence also takes NEW_MASTER back to where it was (not replicating, without the copy). The
moved schemas stay on MASTER, and the others on NEW_MASTER, until ``shards cleanup`` drops
them.

>>> split("mysql001a", "mysql003a", "mysql003b").fence_seconds
0.41
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings

from auditlog.operations import operation
from sharding import replication
from sharding.conf import sharding_settings
from sharding.exceptions import ShardingError, ShardMapError
from sharding.hosts import require_alias, schema_name
from sharding.outbox import SCHEMA as OUTBOX_SCHEMA
from sharding.topology import change_map, fresh_map

SETTLE_SECONDS = 0.25  # for every process to see the fence, and writes under way to finish
CATCH_UP_SECONDS = 120.0
CATCH_UP_ROUNDS = 20
SHORT_ROUND_SECONDS = 0.2
FENCE_LIMIT_SECONDS = 5.0


@dataclass(frozen=True)
class SplitReport:
    master: str
    new_master: str
    replica: str | None
    first_shard: int
    last_shard: int
    shards_moved: int
    copy_seconds: float
    fence_seconds: float
    map_version: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def split(master: str, new_master: str, replica: str | None = None,
          progress: Callable[[str], object] = lambda _: None) -> SplitReport:
    """Move the upper half of ``master``'s shards to ``new_master`` (see the module; recorded
    in the operator audit log as ``shards.split``)."""
    arguments = {"new_master": new_master, "replica": replica}
    with operation("shards.split", master, arguments) as done:
        report = _split(master, new_master, replica, progress)
        done.result = report.to_json()
        return report


def _split(master: str, new_master: str, replica: str | None,
           progress: Callable[[str], object]) -> SplitReport:
    before = fresh_map()
    shards = sorted(before.shards_of(master))
    _check(before.named(), master, new_master, replica, len(shards))
    cut = shards[len(shards) // 2]
    started = time.monotonic()
    progress(f"copying {master}'s shards to {new_master}")
    schemas = [schema_name(shard) for shard in shards]
    durability: dict[str, Any] | None = None
    try:
        _copy(master, new_master, schemas)
        durability = _replicate(new_master, master)
        progress(f"{new_master} replicates {master}; catching up")
        _close_in(new_master, master)
    except BaseException:
        _abandon(new_master, durability, schemas)
        raise
    copied = time.monotonic() - started
    progress(f"fencing shards {cut}-{shards[-1]}")
    fenced = change_map(lambda current: current.fenced_from(master, cut))
    fence_began = time.monotonic()
    try:
        time.sleep(SETTLE_SECONDS)
        _catch_up(new_master, master, FENCE_LIMIT_SECONDS)
        _cut(new_master, durability)
        moved = change_map(lambda current: current.fenced_moved(new_master, replica),
                           expected_version=fenced.version)
    except BaseException:
        change_map(lambda current: current.unfenced())
        raise
    pause = time.monotonic() - fence_began
    progress(f"shards {cut}-{shards[-1]} are on {new_master} (fenced {pause:.2f}s)")
    return SplitReport(master, new_master, replica, cut, shards[-1], shards[-1] - cut + 1,
                       round(copied, 2), round(pause, 3), moved.version)


def cleanup(dry_run: bool = False) -> dict[str, list[str]]:
    """Drop, on every master of the map, the shard schemas that another master serves now
    (those a split moved away, or copied along); ``host → schemas`` dropped (or, with
    ``dry_run``, that would be). Recorded in the operator audit log as ``shards.cleanup``
    unless ``dry_run``."""
    if dry_run:
        return _stale_schemas(drop=False)
    with operation("shards.cleanup") as done:
        dropped = _stale_schemas(drop=True)
        done.result = {host: len(schemas) for host, schemas in dropped.items()}
        return dropped


def _stale_schemas(drop: bool) -> dict[str, list[str]]:
    shard_map = fresh_map()
    served = {schema_name(shard): r.master for r in shard_map.ranges for shard in r.shards()}
    dropped: dict[str, list[str]] = {}
    for host in shard_map.masters():
        with replication.admin_cursor(host) as c:
            found = _shard_schemas(c)
            stale = sorted(name for name in found if served.get(name, host) != host)
            for name in stale if drop else []:
                c.execute(f"DROP DATABASE `{name}`")
        dropped[host] = stale
    return dropped


def _check(named: list[str], master: str, new_master: str, replica: str | None,
           shard_count: int) -> None:
    if shard_count < 2:
        raise ShardMapError(f"{master} is not a master of two shards or more in the shard map")
    if new_master in named or (replica and replica in named):
        raise ShardMapError(f"{new_master if new_master in named else replica} is in the shard "
                            "map already: a split needs a new host")
    for host in (new_master, replica):
        if host:
            require_alias(host)
    with replication.admin_cursor(new_master) as c:
        if _shard_schemas(c):
            raise ShardingError(f"{new_master} holds shard schemas already: give a new, empty "
                                "host")
        c.execute("SHOW SLAVE STATUS")
        if c.fetchone() is not None:
            raise ShardingError(f"{new_master} replicates from another server")
    if replica:
        problems = replication.replication_problems(replica, new_master)
        if problems:
            raise ShardingError(f"{replica} is not a replica of {new_master}: "
                                f"{'; '.join(problems)}")


def _shard_schemas(c: Any) -> list[str]:
    c.execute("SELECT schema_name AS name FROM information_schema.schemata "
              "WHERE schema_name LIKE 'db%'")
    return [str(row["name"]) for row in c.fetchall()]


def _copy(master: str, new_master: str, schemas: list[str]) -> None:
    """Load a consistent dump of ``schemas`` into ``new_master`` and set its replication start
    to the dump's GTID position (beside its own domain's, which its binary log holds)."""
    source = settings.DATABASES[require_alias(master)]
    target = settings.DATABASES[require_alias(new_master)]
    credentials = ["--user", sharding_settings.ADMIN_USER]
    secret = {"MYSQL_PWD": sharding_settings.ADMIN_PASSWORD}
    with tempfile.TemporaryFile() as dump:
        dumped = subprocess.run(
            [_program("mariadb-dump"), "--no-defaults", "--host", str(source["HOST"]),
             "--port", str(source["PORT"]), *credentials, "--single-transaction", "--gtid",
             "--master-data=2", "--databases", *schemas, OUTBOX_SCHEMA],
            stdin=subprocess.DEVNULL, stdout=dump, stderr=subprocess.PIPE, env=secret,
            check=False)
        if dumped.returncode != 0:
            raise ShardingError(f"dumping {master} failed: {dumped.stderr.decode()[:500]}")
        position = _dump_position(dump)
        dump.seek(0)
        loaded = subprocess.run(
            [_program("mariadb"), "--no-defaults", "--host", str(target["HOST"]), "--port",
             str(target["PORT"]), *credentials], stdin=dump, capture_output=True, env=secret,
            check=False)
    if loaded.returncode != 0:
        raise ShardingError(f"loading {master}'s dump into {new_master} failed: "
                            f"{loaded.stderr.decode().strip()[:500]}")
    with replication.admin_cursor(new_master) as c:
        c.execute("SELECT @@global.gtid_binlog_pos AS own")
        own = [part for part in str(c.fetchone()["own"]).split(",") if part]
        copied = {part.split("-")[0] for part in position.split(",") if part}
        start = ",".join([position, *(part for part in own if part.split("-")[0] not in copied)])
        c.execute("SET GLOBAL gtid_slave_pos = %s", [start.strip(",")])


def _dump_position(dump: Any) -> str:
    """The GTID position a ``--master-data=2 --gtid`` dump was taken at (a comment near its
    end)."""
    size = dump.seek(0, 2)
    dump.seek(max(0, size - 65536))
    found = re.findall(r"SET GLOBAL gtid_slave_pos\s*=\s*'([^']*)'",
                       dump.read().decode(errors="replace"))
    if not found:
        raise ShardingError("the dump names no GTID position")
    return str(found[-1])


def _replicate(new_master: str, master: str) -> dict[str, Any]:
    """Make ``new_master`` replicate ``master`` from the dump's position; returns its
    durability settings, which it applies faster without until the cut (it serves nothing
    yet, and a crash before the cut only ends the split)."""
    source = settings.DATABASES[require_alias(master)]
    with replication.admin_cursor(new_master) as c:
        c.execute("SELECT @@global.sync_binlog AS sync_binlog, "
                  "@@global.innodb_flush_log_at_trx_commit AS flush, "
                  "@@global.slave_parallel_threads AS threads")
        durability = dict(c.fetchone())
        c.execute("SET GLOBAL read_only = ON")
        c.execute("SET GLOBAL sync_binlog = 0")
        c.execute("SET GLOBAL innodb_flush_log_at_trx_commit = 2")
        c.execute("SET GLOBAL slave_parallel_mode = 'optimistic'")
        c.execute("SET GLOBAL slave_parallel_threads = 4")
        c.execute("CHANGE MASTER TO MASTER_HOST = %s, MASTER_PORT = %s, MASTER_USER = %s, "
                  "MASTER_PASSWORD = %s, MASTER_USE_GTID = slave_pos",
                  [str(source["HOST"]), int(source["PORT"]), sharding_settings.REPL_USER,
                   sharding_settings.REPL_PASSWORD])
        c.execute("START SLAVE")
    return durability


def _close_in(new_master: str, master: str) -> None:
    """Catch up again and again until a round is short: what the fence then has to wait
    for is what a short round leaves behind."""
    for _ in range(CATCH_UP_ROUNDS):
        began = time.monotonic()
        _catch_up(new_master, master, CATCH_UP_SECONDS)
        if time.monotonic() - began < SHORT_ROUND_SECONDS:
            return


def _catch_up(new_master: str, master: str, seconds: float) -> None:
    """Wait until ``new_master`` has applied everything ``master`` has logged so far."""
    with replication.admin_cursor(master) as c:
        c.execute("SELECT @@global.gtid_binlog_pos AS pos")
        target = str(c.fetchone()["pos"])
    with replication.admin_cursor(new_master, timeout=int(seconds) + 5) as c:
        c.execute("SELECT MASTER_GTID_WAIT(%s, %s) AS waited", [target, seconds])
        if c.fetchone()["waited"] != 0:
            c.execute("SHOW SLAVE STATUS")
            status = c.fetchone() or {}
            raise ShardingError(f"{new_master} did not catch up with {master} ({target}) in "
                                f"{seconds:g}s: {status.get('Last_Error') or 'still behind'}")


def _abandon(new_master: str, durability: dict[str, Any] | None, schemas: list[str]) -> None:
    """Leave ``new_master`` as it was before a split that failed before its fence: not
    replicating, durable again, without the copied schemas (best effort)."""
    try:
        with replication.admin_cursor(new_master) as c:
            c.execute("STOP SLAVE")
            c.execute("RESET SLAVE ALL")
            if durability is not None:
                _restore(c, durability)
            for name in schemas:
                c.execute(f"DROP DATABASE IF EXISTS `{name}`")
            c.execute("SET GLOBAL read_only = OFF")
    except ShardingError:
        pass  # unreachable: the split's own error says what went wrong


def _restore(c: Any, durability: dict[str, Any]) -> None:
    c.execute("SET GLOBAL slave_parallel_threads = %s", [int(durability["threads"])])
    c.execute("SET GLOBAL sync_binlog = %s", [int(durability["sync_binlog"])])
    c.execute("SET GLOBAL innodb_flush_log_at_trx_commit = %s", [int(durability["flush"])])


def _cut(new_master: str, durability: dict[str, Any]) -> None:
    with replication.admin_cursor(new_master) as c:
        c.execute("STOP SLAVE")
        c.execute("RESET SLAVE ALL")
        _restore(c, durability)
        c.execute(f"DELETE FROM {OUTBOX_SCHEMA}.outbox")  # the copies; the master relays them
        c.execute("SET GLOBAL read_only = OFF")


def _program(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise ShardingError(f"{name} is not installed (Debian's mariadb-client)")
    return found
