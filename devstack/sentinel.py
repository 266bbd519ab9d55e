"""Redis Sentinel: three of them watch the graph's Redis pairs and fail a dead master over.

Each monitored group is named after its pair (``redis001`` for ``redis001a``/``redis001b``)
and starts from the pair's master as the stack's recorded roles have it now. The quorum is
two of three. Sentinel rewrites its own configuration file as it learns (replicas, other
sentinels, epochs, promotions), so devstack writes that file only when there is none:
from then on it belongs to the sentinel.

pinsite follows Sentinel's promotions into the vshard map (``manage.py orchestrator run``);
``devstack`` follows them into its recorded roles like any other promotion.

>>> sentinel = Sentinel("sentinel1", 13401, home, groups=[("redis001", (a, b))])
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from devstack import health
from devstack.process import find_program
from devstack.resp import RespConnection
from devstack.service import MASTER, Service

QUORUM = 2
DOWN_AFTER_MS = 3000
"""Silence after which a sentinel counts a master as down. Generous for the shared local
stacks, whose two cores a test run keeps busy; the graph failover tests start
sentinels of their own with a shorter one."""
FAILOVER_TIMEOUT_MS = 10_000


class Sentinel(Service):
    """One ``redis-sentinel`` watching ``groups``: ``(group name, the pair's two services)``;
    a group starts from whichever of its pair is master in the recorded roles."""

    kind: ClassVar[str] = "sentinel"
    start_timeout: ClassVar[float] = 30.0
    stop_timeout: ClassVar[float] = 30.0

    def __init__(self, name: str, port: int, home: Path, *,
                 groups: Sequence[tuple[str, tuple[Service, Service]]], host: str = "127.0.0.1",
                 down_after_ms: int = DOWN_AFTER_MS) -> None:
        super().__init__(name, port, home, host=host)
        self.groups = groups
        self.down_after_ms = down_after_ms

    @property
    def depends_on(self) -> list[Service]:
        return [service for _, pair in self.groups for service in pair]

    @property
    def conf_file(self) -> Path:
        return self.home / "sentinel.conf"

    @property
    def marker(self) -> str:
        return str(self.conf_file)

    @property
    def server_log(self) -> Path:
        return self.log_dir / "sentinel.log"

    def prepare(self) -> None:
        super().prepare()
        if not self.conf_file.exists():  # the sentinel keeps it up to date from here on
            self.conf_file.write_text(self.render_conf())

    def command(self) -> list[str]:
        return [find_program("redis-sentinel"), str(self.conf_file)]

    def log_files(self) -> list[Path]:
        return [self.server_log, self.console_log]

    def probe(self) -> bool:
        return health.redis_pong(self.host, self.port)

    def render_conf(self) -> str:
        """The first ``sentinel.conf`` of this sentinel."""
        lines = [
            "daemonize no", f"bind {self.host}", f"port {self.port}", "protected-mode no",
            f"dir {self.data_dir}", f"logfile {self.server_log}",
            f'proc-title-template "{{title}} {{listen-addr}} {{server-mode}} {self.conf_file}"',
        ]
        for group, pair in self.groups:
            master = next((service for service in pair if service.role == MASTER), pair[0])
            lines += [f"sentinel monitor {group} {master.host} {master.port} {QUORUM}",
                      f"sentinel down-after-milliseconds {group} {self.down_after_ms}",
                      f"sentinel failover-timeout {group} {FAILOVER_TIMEOUT_MS}",
                      f"sentinel parallel-syncs {group} 1"]
        return "".join(f"{line}\n" for line in lines)

    def monitor(self, group: str, master: Service) -> None:
        """Watch one more group from now on (``SENTINEL MONITOR``, with this stack's
        settings); the sentinel records it in its file. A group watched already is left."""
        with RespConnection(self.host, self.port) as conn:
            if conn.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", group) is not None:
                return
            conn.command("SENTINEL", "MONITOR", group, master.host, master.port, QUORUM)
            for option, value in (("down-after-milliseconds", self.down_after_ms),
                                  ("failover-timeout", FAILOVER_TIMEOUT_MS),
                                  ("parallel-syncs", 1)):
                conn.command("SENTINEL", "SET", group, option, value)

    def masters(self) -> dict[str, str]:
        """``group → "host:port"`` of the master this sentinel names now."""
        found = {}
        with RespConnection(self.host, self.port) as conn:
            for group, _ in self.groups:
                reply = conn.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", group)
                if isinstance(reply, list) and len(reply) == 2:
                    found[group] = ":".join(str(part) for part in reply)
        return found

