"""The base class of every kind of service: folders, process lifecycle and hooks.

A kind of service (MariaDB, Redis, ...) subclasses :class:`Service` and fills in a few hooks:

* ``prepare()``   write configuration and initialise data (idempotent, no other service needed)
* ``command()``   the argv of the server process, ``environ()`` its environment
* ``probe()``     one cheap health check
* ``bootstrap()`` one-time setup once healthy (users, replication); must be idempotent
* ``replication()`` replica state for ``status``; ``before_start``/``after_stop`` for helpers

Everything else (pid files, detached start, waiting, stopping, log tails) lives here.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any, ClassVar

from devstack import health, process
from devstack.errors import StartError, StopError
from devstack.profile import HOST

SINGLE, MASTER, REPLICA, FENCED = "single", "master", "replica", "fenced"


class Service:
    """One server process with its own folder ``home`` holding ``data/``, ``log/`` and ``run/``."""

    kind: ClassVar[str] = "service"
    start_timeout: ClassVar[float] = 60.0
    stop_timeout: ClassVar[float] = 30.0
    sigterm_again_after: ClassVar[float | None] = None
    """Send SIGTERM again this often while the server runs (see :class:`~devstack.redis.Redis`)."""
    # An old master of this kind is fenced, not made a replica, when its replica is promoted
    # (see :mod:`devstack.roles`).
    fenced_when_replaced: ClassVar[bool] = False

    def __init__(self, name: str, port: int, home: Path, *, role: str = SINGLE,
                 master: Service | None = None, host: str = HOST) -> None:
        self.name = name
        self.port = port
        self.home = home
        self.role = role
        self.master = master
        self.host = host
        # A master whose replica is fenced (after a promotion) has none to wait for.
        self.without_replica = False
        self._log_starts: dict[Path, int] = {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self.role} {self.host}:{self.port}>"

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def log_dir(self) -> Path:
        return self.home / "log"

    @property
    def run_dir(self) -> Path:
        return self.home / "run"

    @property
    def pid_file(self) -> Path:
        return self.run_dir / f"{self.name}.pid"

    @property
    def server_pid_file(self) -> Path | None:
        """The pid file the server writes itself, used if devstack's own one was lost."""
        return None

    @property
    def console_log(self) -> Path:
        """Where the process's stdout and stderr go."""
        return self.log_dir / "console.log"

    @property
    def marker(self) -> str:
        """Text that the server's ``/proc/<pid>/cmdline`` must contain (proves the pid is ours)."""
        raise NotImplementedError

    @property
    def depends_on(self) -> list[Service]:
        """Services that must be healthy and bootstrapped before this one starts."""
        return [self.master] if self.master is not None else []

    def prepare(self) -> None:
        """Create folders, write configuration and initialise data (idempotent)."""
        for folder in (self.data_dir, self.log_dir, self.run_dir):
            folder.mkdir(parents=True, exist_ok=True)

    def command(self) -> list[str]:
        raise NotImplementedError

    def environ(self) -> dict[str, str] | None:
        return None

    def probe(self) -> bool:
        raise NotImplementedError

    def bootstrap(self) -> None:
        """One-time setup after the first healthy start; safe to call on every ``up``."""

    def replication(self) -> dict[str, Any] | None:
        """Replica state for ``status``; None for services that do not replicate."""
        return None

    def acts_as_master(self) -> bool:
        """Whether this running server serves as a master now (a promoted replica does)."""
        return False

    def fence(self) -> None:
        """Refuse writes if running (a fenced old master); ``up`` does not start it."""

    def before_start(self) -> None:
        """Start helper processes the server needs (e.g. epmd)."""

    def after_stop(self) -> None:
        """Stop helper processes started by ``before_start``."""

    def log_files(self) -> list[Path]:
        """Logs whose tail explains a failed start."""
        return [self.console_log]

    def listen_addresses(self) -> list[tuple[str, int]]:
        """Every ``(host, port)`` the server listens on: free again once it has stopped."""
        return [(self.host, self.port)]

    def pid(self) -> int | None:
        """The pid of the running server, or None (a stale pid file is removed)."""
        pid = process.live_pid(self.pid_file, self.marker)
        if pid is None and self.server_pid_file is not None:
            pid = process.live_pid(self.server_pid_file, self.marker)
            if pid is not None:
                process.write_pid(self.pid_file, pid)
        return pid

    def is_running(self) -> bool:
        return self.pid() is not None

    def healthy(self) -> bool:
        """True if the server process runs and answers its health probe."""
        return self.is_running() and self.probe()

    def ensure_running(self) -> bool:
        """Start the server unless it already runs, then wait for health.

        Returns True if a process was started.
        """
        self.prepare()
        started = False
        if not self.is_running():
            self._refuse_foreign_port()
            self.before_start()
            self.spawn()
            started = True
        self.wait_healthy(self.start_timeout)
        return started

    def spawn(self) -> int:
        """Start the server process detached (no waiting)."""
        self._log_starts = {path: process.file_size(path) for path in self.log_files()}
        return process.spawn(self.command(), self.console_log, self.pid_file,
                             env=self.environ(), cwd=self.home)

    def up(self) -> bool:
        """Make the service run, healthy and bootstrapped; True if it was started. A fenced
        server is only fenced (if running) and left as it is."""
        if self.role == FENCED:
            self.fence()
            return False
        started = self.ensure_running()
        self.bootstrap()
        return started

    def wait_healthy(self, timeout: float | None = None) -> None:
        """Wait until the probe succeeds; raise :class:`StartError` if the process dies."""
        deadline = time.monotonic() + (timeout or self.start_timeout)
        while not self.probe():
            if not self.is_running():
                raise self.failure("exited during start")
            if time.monotonic() >= deadline:
                raise self.failure(f"not healthy after {timeout or self.start_timeout:.0f}s")
            time.sleep(0.1)

    def stop(self, timeout: float | None = None) -> bool:
        """Stop the server (SIGTERM, then SIGKILL); True if it was running. Returns once the
        process is gone and its ports are free (:class:`StopError` if not in time)."""
        pid = self.pid()
        if pid is not None:
            if not process.terminate(pid, self.marker, timeout or self.stop_timeout,
                                     resend=self.sigterm_again_after):
                raise StopError(self.name, f"pid {pid} still runs "
                                f"{process.KILL_WAIT_SECONDS:.0f}s after it was signalled")
            self.wait_ports_free(pid, process.KILL_WAIT_SECONDS)
        self.pid_file.unlink(missing_ok=True)
        self.after_stop()
        return pid is not None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to the server (its whole process group for SIGKILL), for failover tests.

        After SIGKILL or SIGTERM it returns once the process is gone and its ports are free,
        so that a ``start`` right after it finds the port unused (:class:`StopError` past
        :data:`process.KILL_WAIT_SECONDS`, or ``stop_timeout`` for SIGTERM). After SIGSTOP it
        returns once every thread of the server is stopped, so nothing it answers comes from
        after the stop (:class:`StopError` past :data:`process.KILL_WAIT_SECONDS`). Other
        signals (SIGCONT, ...) return at once.
        """
        pid = self.pid()
        if pid is None:
            return
        process.send_signal(pid, sig, group=sig == signal.SIGKILL)
        if sig == signal.SIGSTOP and not process.wait_suspended(pid, process.KILL_WAIT_SECONDS):
            raise StopError(self.name, f"pid {pid} still runs {process.KILL_WAIT_SECONDS:.0f}s "
                            "after SIGSTOP")
        if sig == signal.SIGKILL:
            self.wait_stopped(pid, process.KILL_WAIT_SECONDS)
        elif sig == signal.SIGTERM:
            self.wait_stopped(pid, self.stop_timeout)

    def wait_stopped(self, pid: int, timeout: float) -> None:
        """Wait until ``pid`` is gone (reaped, or no thread of it left) and nothing listens on
        :meth:`listen_addresses`; :class:`StopError` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        if not process.wait_gone(pid, self.marker, timeout):
            raise StopError(self.name, f"pid {pid} still runs {timeout:.0f}s after it was "
                            "signalled")
        self.wait_ports_free(pid, max(0.0, deadline - time.monotonic()))

    def wait_ports_free(self, pid: int, timeout: float) -> None:
        """Wait until nothing listens on :meth:`listen_addresses` once ``pid`` has exited;
        :class:`StopError` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while busy := [f"{host}:{port}" for host, port in self.listen_addresses()
                       if health.port_open(host, port, timeout=0.3)]:
            if time.monotonic() >= deadline:
                raise StopError(self.name, f"{', '.join(busy)} still in use {timeout:.0f}s after "
                                f"pid {pid} exited: another process listens there")
            time.sleep(process.POLL_SECONDS)

    def failure(self, reason: str, logs: list[Path] | None = None) -> StartError:
        """A :class:`StartError` carrying the tails of ``logs`` (default: ``log_files()``)."""
        tails = []
        for path in self.log_files() if logs is None else logs:
            text = process.tail(path, start=self._log_starts.get(path, 0))
            if text.strip():
                tails.append(f"--- {path}\n{text}")
        return StartError(self.name, reason, "\n".join(tails))

    def status(self) -> dict[str, Any]:
        """One row of ``status``."""
        pid = self.pid()
        healthy = pid is not None and self.probe()
        return {
            "name": self.name, "kind": self.kind, "role": self.role, "host": self.host,
            "port": self.port, "pid": pid, "healthy": healthy,
            "master": self.master.name if self.master else None,
            "replication": self.replication() if healthy and self.role == REPLICA else None,
        }

    def _refuse_foreign_port(self) -> None:
        if health.port_open(self.host, self.port, timeout=0.3):
            raise self.failure(f"port {self.port} is in use by a process devstack did not start",
                               logs=[])


def write_if_changed(path: Path, text: str, mode: int | None = None) -> bool:
    """Write ``text`` to ``path`` unless it already holds it; True if written."""
    try:
        if path.read_text() == text:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is not None and path.exists():
        os.chmod(path, 0o600)
    path.write_text(text)
    if mode is not None:
        os.chmod(path, mode)
    return True
