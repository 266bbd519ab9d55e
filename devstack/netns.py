"""A private network of "hosts" on one machine: Linux network namespaces joined by a bridge.

Usage (as root)::

    network = Network("pinsite", "10.231.0.0/24", ("app", "shards", "services"))
    network.create()                        # pinsite-net (the bridge) + one namespace per host
    network.address("shards")               # '10.231.0.2'
    network.run("shards", ["python3", "-m", "devstack", "up", "mysql000"], env=...)
    network.remove()                        # ends every process inside, deletes the namespaces

The switch namespace ``<prefix>-net`` holds a bridge; each host namespace ``<prefix>-<host>``
has loopback and one end of a veth pair (``eth0``) whose other end is a port of the bridge. The
pairs are created inside the switch namespace, so the machine's own interfaces, routes and
firewall are never touched, and the subnet exists only inside the namespaces: no host has a
default route, so nothing sent there can leave the machine.
"""

from __future__ import annotations

import ipaddress
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from devstack.errors import DevstackError

BRIDGE = "br0"
HOST_LINK = "eth0"
NETNS_DIR = Path("/run/netns")


class NetnsError(DevstackError):
    """Namespaces could not be created or removed (not root, no ``ip``, ...)."""


class Network:
    """Host namespaces ``<prefix>-<host>`` with the addresses 1, 2, ... of ``subnet``."""

    def __init__(self, prefix: str, subnet: str, hosts: Sequence[str]) -> None:
        self.prefix = prefix
        self.subnet = ipaddress.IPv4Network(subnet)
        self.hosts = tuple(hosts)
        if len(self.hosts) >= self.subnet.num_addresses - 2:
            raise NetnsError(f"{subnet} is too small for {len(self.hosts)} hosts")

    @property
    def switch(self) -> str:
        """The namespace holding the bridge."""
        return f"{self.prefix}-net"

    def namespace(self, host: str) -> str:
        """The namespace of ``host``."""
        if host not in self.hosts:
            raise NetnsError(f"unknown host {host!r} (known: {', '.join(self.hosts)})")
        return f"{self.prefix}-{host}"

    def address(self, host: str) -> str:
        """The IPv4 address of ``host``."""
        self.namespace(host)
        return str(self.subnet.network_address + 1 + self.hosts.index(host))

    def namespaces(self) -> list[str]:
        """Every namespace of this network, the switch last."""
        return [self.namespace(host) for host in self.hosts] + [self.switch]

    def create(self) -> None:
        """Create the switch and every host (what an earlier run left is removed first)."""
        _require_ip()
        self.remove()
        try:
            _ip("netns", "add", self.switch)
            _ip("-n", self.switch, "link", "set", "lo", "up")
            _ip("-n", self.switch, "link", "add", BRIDGE, "type", "bridge")
            _ip("-n", self.switch, "link", "set", BRIDGE, "up")
            for index, host in enumerate(self.hosts):
                self._add_host(index, host)
        except BaseException:
            self.remove()
            raise

    def _add_host(self, index: int, host: str) -> None:
        namespace, port = self.namespace(host), f"port{index}"
        _ip("netns", "add", namespace)
        _ip("-n", namespace, "link", "set", "lo", "up")
        _ip("-n", self.switch, "link", "add", port, "type", "veth",
            "peer", "name", HOST_LINK, "netns", namespace)
        _ip("-n", self.switch, "link", "set", port, "master", BRIDGE)
        _ip("-n", self.switch, "link", "set", port, "up")
        _ip("-n", namespace, "addr", "add",
            f"{self.address(host)}/{self.subnet.prefixlen}", "dev", HOST_LINK)
        _ip("-n", namespace, "link", "set", HOST_LINK, "up")

    def exists(self) -> list[str]:
        """The namespaces of this network that exist now."""
        return [name for name in self.namespaces() if (NETNS_DIR / name).exists()]

    def pids(self, namespace: str) -> list[int]:
        """The processes running inside ``namespace``."""
        result = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True,
                                text=True, check=False, stdin=subprocess.DEVNULL)
        return [int(word) for word in result.stdout.split() if word.isdigit()]

    def stop_processes(self, timeout: float = 20.0) -> list[int]:
        """SIGTERM every process inside the namespaces, SIGKILL what is left after
        ``timeout``; returns the pids that were signalled."""
        signalled: list[int] = []
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = [pid for name in self.exists() for pid in self.pids(name)]
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    continue
                if pid not in signalled:
                    signalled.append(pid)
            deadline = time.monotonic() + timeout
            while pids and time.monotonic() < deadline:
                pids = [pid for pid in pids if _alive(pid)]
                time.sleep(0.1)
            if not pids:
                break
        return signalled

    def remove(self) -> None:
        """End every process inside, then delete every namespace (the veths go with them)."""
        if not self.exists():
            return
        self.stop_processes()
        for name in self.exists():
            _ip("netns", "delete", name)

    def command(self, host: str, argv: Sequence[str]) -> list[str]:
        """``argv`` prefixed to run inside the namespace of ``host``."""
        return ["ip", "netns", "exec", self.namespace(host), *argv]

    def run(self, host: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
            timeout: float | None = None, cwd: Path | None = None,
            check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` inside ``host`` and return its output; raise on a non-zero exit when
        ``check``, with the output in the message."""
        result = subprocess.run(self.command(host, argv), env=env, cwd=cwd, timeout=timeout,
                                capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                check=False)
        if check and result.returncode != 0:
            raise NetnsError(f"{' '.join(argv)} on {host} exited with {result.returncode}:\n"
                             f"{result.stdout}{result.stderr}")
        return result

    def popen(self, host: str, argv: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
        """Start ``argv`` inside ``host`` without waiting (``ip netns exec`` execs it, so the
        pid is the command's own)."""
        return subprocess.Popen(self.command(host, argv), **options)


def _require_ip() -> None:
    if os.geteuid() != 0:
        raise NetnsError("network namespaces need root (run as root, or with sudo)")
    if shutil.which("ip") is None:
        raise NetnsError("the `ip` command is missing (Debian package iproute2)")


def _ip(*args: str) -> None:
    result = subprocess.run(["ip", *args], capture_output=True, text=True, check=False,
                            stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise NetnsError(f"ip {' '.join(args)}: {result.stderr.strip() or result.returncode}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return False
