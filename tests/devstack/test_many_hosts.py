"""The whole stack spread over three hosts: proof that nothing assumes one machine.

Three network namespaces with their own addresses stand for three machines, joined by a bridge
in a fourth (:mod:`devstack.netns`): ``pinsite-app`` (10.231.0.1) runs the site,
``pinsite-shards`` (10.231.0.2) the MariaDB hosts, ``pinsite-services`` (10.231.0.3) Redis,
ZooKeeper, RabbitMQ and HBase. One HBase cluster (``hbase1``: its server JVM and its Thrift
gateway) stands for all three roles here, primary, standby and pools, at one address: the
other two would be four more JVMs to start on two cores, and what they would show (a cluster
reached at another host's address) this one already shows. The stack is the ``hosts``
profile (ports 30000+, below the ephemeral ports that the namespaces' own connections take;
``var/hosts``, kept between runs so that only the first run installs MariaDB), bound to those
addresses through ``PINSITE_BIND_HOST``. Inside the app namespace
the test initialises the stores, starts ``manage.py runsite`` and runs an HTTP smoke run
against it (:mod:`tests.devstack.many_hosts_smoke`): sign-up, follow, board, pin, following
feed.
Everything it started is stopped and the namespaces are deleted afterwards, also on failure.

It needs root (``ip netns``); without it the test fails, saying so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from devstack.hbase.config import zookeeper_bind_address
from devstack.hbase.service import HBaseServer, HBaseThrift
from devstack.netns import NetnsError, Network
from devstack.profile import REPO_ROOT, Profile, parse_bind_hosts
from devstack.service import Service
from devstack.services import build_services, settings_env

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

NETWORK = Network("pinsite", "10.231.0.0/24", ("app", "shards", "services"))
PROFILE = "hosts"
PORT_BASE = 30000
SITE_PORT = PORT_BASE + 80
BIND_HOST = f"mysql*={NETWORK.address('shards')},*={NETWORK.address('services')}"
PYTHON = sys.executable
STACK_TIMEOUT = 300.0
INIT = ("import django; django.setup(); from django.core.management import call_command as c; "
        "c('migrate', interactive=False, verbosity=0); c('shards', 'init', '--quiet'); "
        "c('graph', 'init'); c('feed', 'init'); c('smartfeed', 'init')")


ONE_CLUSTER = "hbase1"
HBASE_ROLES = ("PINSITE_HBASE_PRIMARY", "PINSITE_HBASE_STANDBY", "PINSITE_HBASE_POOLS")


def hosts_profile() -> Profile:
    return Profile(PROFILE, PORT_BASE, REPO_ROOT / "var" / PROFILE, parse_bind_hosts(BIND_HOST))


def started_services(services: dict[str, Service]) -> dict[str, Service]:
    """The stack's services but the HBase clusters other than :data:`ONE_CLUSTER`."""
    return {name: service for name, service in services.items()
            if not isinstance(service, HBaseServer | HBaseThrift)
            or name in (ONE_CLUSTER, f"{ONE_CLUSTER}-server")}


def services_by_host(services: dict[str, Service]) -> dict[str, list[Service]]:
    """The services of each host namespace, by the address they bind."""
    hosts = {NETWORK.address(host): host for host in NETWORK.hosts}
    placed: dict[str, list[Service]] = {host: [] for host in NETWORK.hosts}
    for service in services.values():
        placed[hosts[service.host]].append(service)
    return placed


def devstack_env() -> dict[str, str]:
    """The environment of ``python -m devstack`` for the ``hosts`` profile (nothing of the
    test suite's own ``test`` profile leaks in)."""
    clean = {key: value for key, value in os.environ.items()
             if not key.startswith(("PINSITE_", "DJANGO_"))}
    return {**clean, "PINSITE_PROFILE": PROFILE, "PINSITE_PORT_BASE": str(PORT_BASE),
            "PINSITE_BIND_HOST": BIND_HOST}


def site_env(profile: Profile, services: dict[str, Service]) -> dict[str, str]:
    """The environment of the Django processes in the app namespace."""
    cluster = services[ONE_CLUSTER]
    one_cluster = dict.fromkeys(HBASE_ROLES, f"{cluster.host}:{cluster.port}")
    return {**devstack_env(), **settings_env(profile, services), **one_cluster,
            "DJANGO_SETTINGS_MODULE": "pinsite.settings", "PINSITE_SHARD_COUNT": "64",
            "PINSITE_ALLOWED_HOSTS": NETWORK.address("app"),
            # the smoke run reads /readyz from the app's own network address, not loopback
            "PINSITE_STATUS_ALLOW": NETWORK.address("app") + "/32",
            "PINSITE_WEB_WORKERS": "2", "PINSITE_WEB_THREADS": "2"}


def listening(host: str) -> set[tuple[str, int]]:
    """The (address, port) of every IPv4 TCP socket listening inside ``host``'s namespace."""
    table = NETWORK.run(host, ["cat", "/proc/net/tcp"]).stdout.splitlines()[1:]
    found = set()
    for line in table:
        local, state = line.split()[1], line.split()[3]
        if state == "0A":
            address, port = local.split(":")
            octets = bytes.fromhex(address)[::-1]
            found.add((".".join(str(octet) for octet in octets), int(port, 16)))
    return found


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


@contextlib.contextmanager
def network() -> Iterator[Network]:
    """The namespaces, created now and removed (with every process inside) on exit."""
    try:
        NETWORK.create()
    except NetnsError as error:
        pytest.fail(f"cannot create the network namespaces of the many-hosts test: {error}",
                    pytrace=False)
    try:
        yield NETWORK
    finally:
        NETWORK.remove()


@contextlib.contextmanager
def stack(placed: dict[str, list[Service]]) -> Iterator[None]:
    """Each host's services started inside its namespace; stopped by ``devstack down``."""
    env = devstack_env()

    def up(host: str) -> None:
        names = [service.name for service in placed[host]]
        NETWORK.run(host, [PYTHON, "-m", "devstack", "up", *names], env=env, cwd=REPO_ROOT,
                    timeout=STACK_TIMEOUT)

    try:
        with ThreadPoolExecutor(max_workers=2) as hosts:  # the two hosts start side by side
            for started in [hosts.submit(up, host) for host in ("shards", "services")]:
                started.result()
        yield
    finally:
        for host in ("services", "shards"):
            names = [service.name for service in placed[host]]
            with contextlib.suppress(subprocess.TimeoutExpired):
                NETWORK.run(host, [PYTHON, "-m", "devstack", "down", *names], env=env,
                            cwd=REPO_ROOT, timeout=STACK_TIMEOUT, check=False)


@contextlib.contextmanager
def site(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``manage.py runsite`` in the app namespace; SIGTERM on exit."""
    with open(log, "wb") as out:
        process = NETWORK.popen("app", [PYTHON, "manage.py", "runsite",
                                        f"{NETWORK.address('app')}:{SITE_PORT}"],
                                env=env, cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=45)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.mark.slow
def test_the_stack_runs_over_three_hosts() -> None:
    profile = hosts_profile()
    services = build_services(profile)
    placed = services_by_host(started_services(services))
    assert not placed["app"], "no store may live on the app host"
    env = site_env(profile, services)
    log = profile.var_dir / "runsite.log"
    with network(), stack(placed):
        for host in ("shards", "services"):
            sockets = listening(host)
            for service in placed[host]:
                bound = zookeeper_bind_address(service.host) if isinstance(
                    service, HBaseServer) else service.host
                assert (bound, service.port) in sockets, (
                    f"{service.name} does not listen on {service.host}:{service.port} "
                    f"in {NETWORK.namespace(host)}: {sorted(sockets)}")
        NETWORK.run("app", [PYTHON, "-c", INIT], env=env, cwd=REPO_ROOT, timeout=300)
        with site(env, log) as running:
            smoke = NETWORK.run("app", [PYTHON, "-m", "tests.devstack.many_hosts_smoke",
                                        f"http://{NETWORK.address('app')}:{SITE_PORT}"],
                                env=env, cwd=REPO_ROOT, timeout=180, check=False)
            assert smoke.returncode == 0, (
                f"{smoke.stdout}{smoke.stderr}\n--- runsite (exit {running.poll()}):\n"
                f"{tail(log)}")
