"""Redis instances: the cache (no persistence) and the graph master/replica pairs (AOF)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

from devstack import health
from devstack.process import find_program
from devstack.resp import RespConnection, RespError, parse_info
from devstack.service import MASTER, REPLICA, SINGLE, Service, write_if_changed


class Redis(Service):
    """One ``redis-server`` with a generated config; ``persistent`` turns on AOF (everysec)."""

    kind: ClassVar[str] = "redis"
    start_timeout: ClassVar[float] = 30.0
    stop_timeout: ClassVar[float] = 30.0
    # Redis 7.0 refuses a SIGTERM that comes while it writes its first AOF (just after a
    # replica's full sync: "Writing initial AOF, can't exit.") and then runs on; asked again a
    # moment later, it stops. Without this a stop waited the whole timeout, then killed it.
    sigterm_again_after: ClassVar[float | None] = 1.0

    def __init__(self, name: str, port: int, home: Path, *, role: str = SINGLE,
                 master: Redis | None = None, host: str = "127.0.0.1",
                 persistent: bool = False) -> None:
        super().__init__(name, port, home, role=role, master=master, host=host)
        self.persistent = persistent

    @property
    def conf_file(self) -> Path:
        return self.home / "redis.conf"

    @property
    def server_log(self) -> Path:
        return self.log_dir / "redis.log"

    @property
    def marker(self) -> str:
        return str(self.conf_file)

    @property
    def server_pid_file(self) -> Path:
        return self.run_dir / "redis-server.pid"

    def prepare(self) -> None:
        super().prepare()
        write_if_changed(self.conf_file, self.render_conf())

    def command(self) -> list[str]:
        return [find_program("redis-server"), str(self.conf_file)]

    def log_files(self) -> list[Path]:
        return [self.server_log, self.console_log]

    def probe(self) -> bool:
        return health.redis_pong(self.host, self.port)

    def render_conf(self) -> str:
        """The ``redis.conf`` of this instance."""
        return "".join(f"{key} {value}\n" for key, value in self.settings())

    def settings(self) -> list[tuple[str, str]]:
        settings = [
            ("daemonize", "no"), ("bind", self.host), ("port", str(self.port)),
            ("protected-mode", "no"), ("dir", str(self.data_dir)),
            ("pidfile", str(self.server_pid_file)), ("logfile", str(self.server_log)),
            ("proc-title-template", '"{title} {listen-addr} {server-mode} {config-file}"'),
            ("save", '""'), ("appendonly", "yes" if self.persistent else "no"),
        ]
        if self.persistent:
            settings += [("appendfsync", "everysec"), ("appendfilename", '"appendonly.aof"')]
        if self.role == MASTER:
            settings += [("repl-diskless-sync", "yes"), ("repl-diskless-sync-delay", "0")]
        if self.role == REPLICA and self.master is not None:
            settings += [("replicaof", f"{self.master.host} {self.master.port}"),
                         ("replica-read-only", "yes")]
        return settings

    def info(self, section: str) -> dict[str, str]:
        """``INFO <section>`` as a dict."""
        with RespConnection(self.host, self.port) as conn:
            return parse_info(conn.command("INFO", section))

    def replication(self) -> dict[str, Any] | None:
        try:
            info = self.info("replication")
            lag = self._lag_seen_by_master()
        except (OSError, RespError) as error:
            return {"error": str(error)}
        return {"master_link_status": info.get("master_link_status"), "lag": lag,
                "master_sync_in_progress": info.get("master_sync_in_progress") == "1"}

    def _lag_seen_by_master(self) -> int | None:
        """Seconds since this replica's last acknowledgement, as its master reports it."""
        if not isinstance(self.master, Redis):
            return None
        for key, value in self.master.info("replication").items():
            fields = dict(item.partition("=")[::2] for item in value.split(","))
            if key.startswith("slave") and fields.get("port") == str(self.port):
                return int(fields["lag"]) if fields.get("lag", "").isdigit() else None
        return None

    def acts_as_master(self) -> bool:
        return self.info("replication").get("role") == "master"

    def bootstrap(self) -> None:
        """Wait until a replica's link to its master is up (if the master is up). An old
        master that runs as one still is made a replica first (it drops its data)."""
        if self.role == REPLICA and self.master is not None and self.master.probe():
            if self.acts_as_master():
                with RespConnection(self.host, self.port) as conn:
                    conn.command("REPLICAOF", self.master.host, str(self.master.port))
            self.wait_linked()

    def wait_linked(self, timeout: float = 20.0) -> None:
        """Wait for ``master_link_status:up``."""
        deadline = time.monotonic() + timeout
        while (self.replication() or {}).get("master_link_status") != "up":
            if time.monotonic() >= deadline:
                raise self.failure("replica link to its master is not up")
            time.sleep(0.1)
