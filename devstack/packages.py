"""Install the Debian packages the stack needs (as root, without starting their services)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from devstack.errors import DevstackError

PACKAGES = ("mariadb-server", "mariadb-client", "libmariadb-dev", "pkg-config", "redis-server",
            "zookeeper", "libslf4j-java", "liblog4j1.2-java", "rabbitmq-server", "procps",
            "chromium", "chromium-driver", "iproute2", "redis-sentinel")
"""The servers of the stack, the headers mysqlclient builds against, the headless browser
of the end-to-end tests, ``ip`` for the network namespaces of the many-hosts test, and
Redis Sentinel, which watches the graph's Redis pairs."""
POLICY_RC = Path("/usr/sbin/policy-rc.d")
POLICY_RC_DENY = "#!/bin/sh\n# written by pinsite devstack: do not start services\nexit 101\n"


def missing_packages(packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """The packages of ``packages`` that dpkg does not report as installed."""
    result = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Status}\n", *packages],
                            capture_output=True, text=True, check=False)
    installed = {line.split()[0] for line in result.stdout.splitlines()
                 if line.endswith(" install ok installed")}
    return [name for name in packages if name not in installed]


def install_packages(packages: tuple[str, ...] = PACKAGES) -> list[str]:
    """Install what is missing; returns the names installed (empty when nothing was)."""
    missing = missing_packages(packages)
    if not missing:
        return []
    if os.geteuid() != 0:
        raise DevstackError(f"missing Debian packages: {' '.join(missing)}; "
                            "run `sudo python3 -m devstack packages`")
    created = _deny_service_starts()
    try:
        _apt("update")
        _apt("install", "-y", "--no-install-recommends", *missing)
    finally:
        if created:
            POLICY_RC.unlink(missing_ok=True)
    return missing


def _deny_service_starts() -> bool:
    """Write a policy-rc.d that stops Debian from starting services; True if we created it."""
    if POLICY_RC.exists():
        return False
    POLICY_RC.write_text(POLICY_RC_DENY)
    POLICY_RC.chmod(0o755)
    return True


def _apt(*args: str) -> None:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    result = subprocess.run(["apt-get", *args], env=env, stdin=subprocess.DEVNULL, check=False)
    if result.returncode != 0:
        raise DevstackError(f"apt-get {args[0]} failed with exit code {result.returncode}")
