"""RabbitMQ run from its own scripts (not the /usr/sbin wrapper, which switches user).

The node gets a private HOME (Erlang cookie), config, plugin list and data folder, and its own
``epmd`` on the profile's ERL_EPMD_PORT, started by devstack (so ``down`` can stop it by pid).
The application user comes from ``default_user`` on first boot; bootstrap verifies it with an
AMQP login and falls back to ``rabbitmqctl`` if it is missing.
"""

from __future__ import annotations

import os
import secrets
import string
import subprocess
import time
from pathlib import Path
from typing import ClassVar

from devstack import health, process
from devstack.amqp import amqp_login
from devstack.errors import CommandFailed
from devstack.process import find_program
from devstack.service import Service, write_if_changed

SCRIPTS = Path("/usr/lib/rabbitmq/bin")
USER = "pinsite"
PASSWORD = "pinsite"
VHOST = "/"


class RabbitMQ(Service):
    """One RabbitMQ node named ``nodename`` with its distribution and epmd ports."""

    kind: ClassVar[str] = "rabbitmq"
    start_timeout: ClassVar[float] = 90.0
    stop_timeout: ClassVar[float] = 60.0

    def __init__(self, name: str, port: int, home: Path, *, nodename: str, dist_port: int,
                 epmd_port: int, host: str = "127.0.0.1") -> None:
        super().__init__(name, port, home, host=host)
        self.nodename = nodename
        self.dist_port = dist_port
        self.epmd_port = epmd_port

    @property
    def marker(self) -> str:
        return f"-pinsite_devstack {self.home}"

    @property
    def server_pid_file(self) -> Path:
        """Written by RabbitMQ: the pid of ``beam.smp`` (devstack's own file has the wrapper's)."""
        return self.run_dir / "beam.pid"

    @property
    def epmd_pid_file(self) -> Path:
        return self.run_dir / "epmd.pid"

    @property
    def epmd_marker(self) -> str:
        return f"epmd -port {self.epmd_port}"

    @property
    def config_file(self) -> Path:
        return self.home / "rabbitmq.conf"

    def prepare(self) -> None:
        super().prepare()
        write_if_changed(self.config_file, self.render_config())
        write_if_changed(self.home / "enabled_plugins", "[].\n")
        write_if_changed(self.home / "rabbitmq-env.conf", "")
        cookie = self.home / ".erlang.cookie"
        if not cookie.exists():
            alphabet = string.ascii_uppercase
            write_if_changed(cookie, "".join(secrets.choice(alphabet) for _ in range(32)), 0o400)

    def render_config(self) -> str:
        """The ``rabbitmq.conf`` (new-style) of this node."""
        settings = {
            "default_vhost": VHOST, "default_user": USER, "default_pass": PASSWORD,
            "default_user_tags.administrator": "true",
            "default_permissions.configure": ".*", "default_permissions.read": ".*",
            "default_permissions.write": ".*", "disk_free_limit.absolute": "50MB",
            "log.file.level": "info", "log.console": "false",
        }
        return "".join(f"{key} = {value}\n" for key, value in settings.items())

    def environ(self) -> dict[str, str]:
        return {
            **os.environ, "HOME": str(self.home), "RABBITMQ_NODENAME": self.nodename,
            "RABBITMQ_NODE_IP_ADDRESS": self.host, "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(self.dist_port), "ERL_EPMD_PORT": str(self.epmd_port),
            "ERL_EPMD_ADDRESS": self.host,
            "RABBITMQ_CTL_DIST_PORT_MIN": str(self.dist_port + 1),
            "RABBITMQ_CTL_DIST_PORT_MAX": str(self.dist_port + 11),
            "RABBITMQ_MNESIA_BASE": str(self.data_dir), "RABBITMQ_LOG_BASE": str(self.log_dir),
            "RABBITMQ_PID_FILE": str(self.server_pid_file),
            "RABBITMQ_CONFIG_FILE": str(self.config_file),
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(self.home / "advanced.config"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.home / "enabled_plugins"),
            "RABBITMQ_CONF_ENV_FILE": str(self.home / "rabbitmq-env.conf"),
            # Erlang distribution serves only rabbitmqctl on this host: it stays on loopback
            # (as does epmd, which always adds loopback to its addresses) whatever ``host`` is.
            "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
        }

    def command(self) -> list[str]:
        return [str(SCRIPTS / "rabbitmq-server"), "-pinsite_devstack", str(self.home)]

    def log_files(self) -> list[Path]:
        return [self.log_dir / f"{self.nodename}.log", self.console_log]

    def listen_addresses(self) -> list[tuple[str, int]]:
        """AMQP on ``host``; Erlang distribution on loopback (see :meth:`environ`)."""
        return [(self.host, self.port), ("127.0.0.1", self.dist_port)]

    def probe(self) -> bool:
        return health.amqp_greeting(self.host, self.port)

    def before_start(self) -> None:
        """Start this profile's epmd unless one already listens on its port."""
        if process.live_pid(self.epmd_pid_file, self.epmd_marker) is not None:
            return
        if health.port_open(self.host, self.epmd_port, timeout=0.3):
            return
        argv = [find_program("epmd"), "-port", str(self.epmd_port), "-address", self.host]
        process.spawn(argv, self.log_dir / "epmd.log", self.epmd_pid_file)
        deadline = time.monotonic() + 10
        while not health.epmd_names(self.host, self.epmd_port):
            if time.monotonic() >= deadline:
                raise self.failure(f"epmd did not listen on port {self.epmd_port}")
            time.sleep(0.05)

    def after_stop(self) -> None:
        """Stop the epmd of this profile (by pid, or ``epmd -kill`` if Erlang spawned it)."""
        if process.stop(self.epmd_pid_file, self.epmd_marker, 10.0):
            return
        if health.port_open(self.host, self.epmd_port, timeout=0.3):
            subprocess.run([find_program("epmd"), "-kill"], env=self.environ(), check=False,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=10)

    def bootstrap(self) -> None:
        """Make sure the application user can log in to its vhost."""
        if amqp_login(self.host, self.port, USER, PASSWORD, VHOST):
            return
        self.ctl("add_user", USER, PASSWORD, check=False)
        self.ctl("change_password", USER, PASSWORD)
        self.ctl("set_user_tags", USER, "administrator")
        self.ctl("set_permissions", "-p", VHOST, USER, ".*", ".*", ".*")

    def ctl(self, *args: str, check: bool = True) -> str:
        """Run ``rabbitmqctl -n <node> ARGS`` with this node's environment."""
        argv = [str(SCRIPTS / "rabbitmqctl"), "-n", self.nodename, *args]
        result = subprocess.run(argv, env=self.environ(), capture_output=True, text=True,
                                stdin=subprocess.DEVNULL, timeout=120, check=False)
        if check and result.returncode != 0:
            raise CommandFailed(f"rabbitmqctl {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout
