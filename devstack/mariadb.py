"""MariaDB instances: the Django database and the shard host master/replica pairs.

Shard hosts replicate with GTIDs and semi-sync (wait point AFTER_SYNC). Users are created on
every instance with ``sql_log_bin=0``, so no instance has a transaction of its own in its GTID
set and any replica can be promoted later without errant transactions.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, ClassVar

from devstack import health
from devstack.errors import CommandFailed
from devstack.mysql_client import (
    ADMIN_PASSWORD,
    ADMIN_USER,
    APP_PASSWORD,
    APP_USER,
    REPL_PASSWORD,
    REPL_USER,
    Login,
    quote,
    run_sql,
)
from devstack.process import find_program
from devstack.profile import is_loopback
from devstack.service import MASTER, REPLICA, SINGLE, Service, write_if_changed

APP_PRIVILEGES = ("SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, REFERENCES, "
                  "CREATE TEMPORARY TABLES, LOCK TABLES, SHOW VIEW, PROCESS, SLAVE MONITOR, "
                  "BINLOG MONITOR")
INNODB_SETTINGS = {
    "innodb_buffer_pool_size": "64M",
    "innodb_log_file_size": "48M",
    "innodb_file_per_table": "OFF",
}
BOOTSTRAP_VERSION = "1"
SOCKET_PATH_LIMIT = 100


class MariaDB(Service):
    """One ``mariadbd`` with a generated ``my.cnf``.

    ``role`` is ``single`` (no binlog), ``master`` or ``replica`` (of ``master``);
    ``database`` is created at bootstrap when given.
    """

    kind: ClassVar[str] = "mariadb"
    fenced_when_replaced: ClassVar[bool] = True
    start_timeout: ClassVar[float] = 60.0
    stop_timeout: ClassVar[float] = 60.0

    def __init__(self, name: str, port: int, home: Path, *, role: str = SINGLE,
                 master: MariaDB | None = None, host: str = "127.0.0.1",
                 server_id: int | None = None, gtid_domain_id: int = 0,
                 database: str | None = None, net_timeout: int = 20) -> None:
        super().__init__(name, port, home, role=role, master=master, host=host)
        self.server_id = server_id or port
        self.gtid_domain_id = gtid_domain_id
        self.database = database
        # A replica that hears nothing from its master for this long reconnects (it sends a
        # heartbeat every half of it): how soon a replica notices a stopped master.
        self.net_timeout = net_timeout

    @property
    def cnf_file(self) -> Path:
        return self.home / "my.cnf"

    @property
    def error_log(self) -> Path:
        return self.log_dir / "error.log"

    @property
    def socket(self) -> Path:
        """The Unix socket; moved under /tmp if the folder path is too long for a socket."""
        path = self.run_dir / "mysqld.sock"
        if len(str(path)) <= SOCKET_PATH_LIMIT:
            return path
        digest = hashlib.sha1(str(path).encode()).hexdigest()[:12]
        return Path(f"/tmp/pinsite-mysqld-{digest}.sock")

    @property
    def marker(self) -> str:
        return f"--defaults-file={self.cnf_file}"

    @property
    def server_pid_file(self) -> Path:
        return self.run_dir / "mariadbd.pid"

    @property
    def tmp_dir(self) -> Path:
        return self.home / "tmp"

    @property
    def install_marker(self) -> Path:
        return self.home / "install.done"

    @property
    def bootstrap_marker(self) -> Path:
        return self.home / "bootstrap.done"

    def root_login(self) -> Login:
        return Login(self.host, self.port, socket=self.socket)

    def admin_login(self) -> Login:
        return Login(self.host, self.port, user=ADMIN_USER, password=ADMIN_PASSWORD)

    def sql(self, statement: str) -> list[dict[str, str]]:
        """Run ``statement`` as root over the socket and return the rows."""
        return run_sql(self.root_login(), statement)

    def prepare(self) -> None:
        super().prepare()
        self.tmp_dir.mkdir(exist_ok=True)
        write_if_changed(self.cnf_file, self.render_cnf())
        if not self.install_marker.exists() and not self.is_running():
            self.install_data()

    def install_data(self) -> None:
        """(Re)create the data folder with ``mariadb-install-db``; a half-done one is wiped."""
        self.bootstrap_marker.unlink(missing_ok=True)
        shutil.rmtree(self.data_dir, ignore_errors=True)
        self.data_dir.mkdir(parents=True)
        argv = [find_program("mariadb-install-db"), "--no-defaults", f"--datadir={self.data_dir}",
                f"--tmpdir={self.tmp_dir}", "--auth-root-authentication-method=normal",
                "--skip-test-db",
                *(f"--{key.replace('_', '-')}={value}" for key, value in INNODB_SETTINGS.items())]
        if os.geteuid() == 0:
            argv.append("--user=root")
        log = self.log_dir / "install.log"
        with open(log, "wb") as out:
            code = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out,
                                  stderr=subprocess.STDOUT, check=False).returncode
        if code != 0:
            raise self.failure(f"mariadb-install-db exited with {code}", logs=[log])
        self.install_marker.write_text("ok\n")

    def command(self) -> list[str]:
        return [find_program("mariadbd"), f"--defaults-file={self.cnf_file}"]

    def log_files(self) -> list[Path]:
        return [self.error_log, self.console_log]

    def probe(self) -> bool:
        return health.mysql_greeting(self.host, self.port)

    def render_cnf(self) -> str:
        """The ``my.cnf`` of this instance (its role decides the replication settings)."""
        lines = ["[mysqld]"]
        lines += [f"{key}={value}" for key, value in self.settings().items()]
        return "\n".join(lines) + "\n"

    def settings(self) -> dict[str, str]:
        settings = {
            "datadir": str(self.data_dir), "port": str(self.port), "bind-address": self.host,
            "socket": str(self.socket), "pid-file": str(self.server_pid_file),
            "tmpdir": str(self.tmp_dir),
            "log-error": str(self.error_log), "skip-name-resolve": "ON",
            "max_connect_errors": "1000000", "max_connections": "300",
            "performance_schema": "OFF", "innodb_flush_log_at_trx_commit": "1",
            "character-set-server": "utf8mb4", "collation-server": "utf8mb4_unicode_ci",
            "table_open_cache": "4000", "table_definition_cache": "4000",
            "open_files_limit": "65535", **INNODB_SETTINGS,
        }
        if os.geteuid() == 0:
            settings["user"] = "root"
        if self.role in (MASTER, REPLICA):
            settings.update(self.replication_settings())
        return settings

    def replication_settings(self) -> dict[str, str]:
        settings = {
            "server_id": str(self.server_id), "log_bin": "mysql-bin", "relay_log": "relay-bin",
            "binlog_format": "ROW", "log_slave_updates": "ON", "sync_binlog": "1",
            "gtid_strict_mode": "ON", "gtid_domain_id": str(self.gtid_domain_id),
            "binlog_expire_logs_seconds": "259200", "max_binlog_size": "64M",
            "slave_net_timeout": str(self.net_timeout),
            "rpl_semi_sync_master_wait_point": "AFTER_SYNC",
            # Under the application's MySQL read timeout: a commit waiting for a lost replica
            # falls back to asynchronous before its client gives up on it.
            "rpl_semi_sync_master_timeout": "3000",
        }
        if self.role == REPLICA:
            settings.update(rpl_semi_sync_slave_enabled="ON", read_only="ON")
        elif not self.without_replica:
            settings["rpl_semi_sync_master_enabled"] = "ON"
        return settings

    @property
    def client_host(self) -> str:
        """The host part of the users' accounts: 127.0.0.1 on loopback; any address ('%')
        when the server binds a network address, so that other hosts (the application,
        replicas) can log in."""
        return "127.0.0.1" if is_loopback(self.host) else "%"

    @property
    def bootstrap_version(self) -> str:
        """What ``bootstrap.done`` holds once the users of ``client_host`` exist."""
        if self.client_host == "127.0.0.1":
            return BOOTSTRAP_VERSION
        return f"{BOOTSTRAP_VERSION} {self.client_host}"

    def bootstrap(self) -> None:
        """Create users (and the database) once; point a replica at its master if needed."""
        if not self._bootstrapped():
            self.sql(self.users_sql())
            self.mark_bootstrapped()
        if self.role == REPLICA:
            self.ensure_replicating()

    def mark_bootstrapped(self) -> None:
        self.bootstrap_marker.write_text(self.bootstrap_version + "\n")

    def accept_replica(self) -> None:
        """A replica was (re)built from this master: wait for its acknowledgements again."""
        self.sql("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        self.without_replica = False

    def _bootstrapped(self) -> bool:
        try:
            return self.bootstrap_marker.read_text().strip() == self.bootstrap_version
        except OSError:
            return False

    def users_sql(self) -> str:
        """Idempotent, unlogged SQL creating the three users (and the database)."""
        users = [(APP_USER, APP_PASSWORD, APP_PRIVILEGES, ""),
                 (ADMIN_USER, ADMIN_PASSWORD, "ALL PRIVILEGES", " WITH GRANT OPTION"),
                 (REPL_USER, REPL_PASSWORD, "REPLICATION SLAVE, SLAVE MONITOR", "")]
        statements = ["SET SESSION sql_log_bin=0"]
        for user, password, privileges, suffix in users:
            account = f"{quote(user)}@{quote(self.client_host)}"
            statements += [f"CREATE USER IF NOT EXISTS {account} IDENTIFIED BY {quote(password)}",
                           f"ALTER USER {account} IDENTIFIED BY {quote(password)}",
                           f"GRANT {privileges} ON *.* TO {account}{suffix}"]
        if self.database:
            statements.append(f"CREATE DATABASE IF NOT EXISTS `{self.database}` "
                              "CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
        return ";\n".join(statements) + ";"

    def slave_status(self) -> dict[str, str]:
        """``SHOW SLAVE STATUS`` as a dict (empty when replication is not configured)."""
        rows = self.sql("SHOW SLAVE STATUS")
        return rows[0] if rows else {}

    def ensure_replicating(self, timeout: float = 20.0) -> None:
        """Configure and start replication from ``master`` unless configured (a promoted,
        writable replica is left alone); wait for it while the master is up."""
        master = self.master_or_fail()
        if not self.slave_status() and self._is_read_only():
            self.sql(change_master_sql(master) + "; START SLAVE")
        if master.probe():
            self.wait_replicating(timeout)

    def wait_replicating(self, timeout: float = 20.0) -> None:
        """Wait until both replication threads run; raise with the last error otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.slave_status()
            if state.get("Slave_IO_Running") == "Yes" and state.get("Slave_SQL_Running") == "Yes":
                return
            if time.monotonic() >= deadline:
                error = _last_error(state) or "not configured"
                raise self.failure(f"replication is not running: {error}")
            time.sleep(0.2)

    def master_or_fail(self) -> MariaDB:
        if not isinstance(self.master, MariaDB):
            raise CommandFailed(f"{self.name} is a replica without a MariaDB master")
        return self.master

    def acts_as_master(self) -> bool:
        """A promoted replica: it replicates from nothing and takes writes."""
        return not self.slave_status() and not self._is_read_only()

    def fence(self) -> None:
        if self.healthy():
            self.sql("SET GLOBAL read_only = ON")

    def _is_read_only(self) -> bool:
        rows = self.sql("SELECT @@GLOBAL.read_only AS ro")
        return bool(rows) and rows[0]["ro"] == "1"

    def replication(self) -> dict[str, Any] | None:
        try:
            state = run_sql(self.admin_login(), "SHOW SLAVE STATUS", timeout=5)
        except CommandFailed as error:
            return {"error": str(error)}
        if not state:
            return {"configured": False}
        row = state[0]
        return {"io_running": row.get("Slave_IO_Running"),
                "sql_running": row.get("Slave_SQL_Running"),
                "seconds_behind_master": _number(row.get("Seconds_Behind_Master")),
                "gtid_io_pos": row.get("Gtid_IO_Pos"), "last_error": _last_error(row)}


def change_master_sql(master: MariaDB) -> str:
    """``CHANGE MASTER TO`` pointing at ``master`` with GTID auto-positioning."""
    return (f"CHANGE MASTER TO MASTER_HOST={quote(master.host)}, MASTER_PORT={master.port}, "
            f"MASTER_USER={quote(REPL_USER)}, MASTER_PASSWORD={quote(REPL_PASSWORD)}, "
            "MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1")


def _last_error(state: dict[str, str]) -> str:
    return state.get("Last_IO_Error") or state.get("Last_SQL_Error") or ""


def _number(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None
