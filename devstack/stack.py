"""The :class:`Stack`: every service of one profile, started and stopped together.

Usage::

    stack = Stack("test")
    stack.up()                      # idempotent; masters before replicas, the rest in parallel
    os.environ.update(stack.env())  # the settings contract of the Django project
    stack.kill("redis001a")         # failover tests
    stack.start("redis001a")
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from devstack import process, roles
from devstack.errors import DevstackError, FencedError, StartError
from devstack.mariadb import MariaDB
from devstack.pairs import mysql_pair
from devstack.profile import Profile, resolve_profile
from devstack.reclone import reclone
from devstack.redis import Redis
from devstack.schedule import run_ordered
from devstack.sentinel import Sentinel
from devstack.service import FENCED, MASTER, REPLICA, Service
from devstack.services import (
    build_services,
    pair_partner,
    record_extra_pair,
    sentinel_group,
    settings_env,
)


class StackError(DevstackError):
    """One or more services failed; ``failures`` maps service names to their errors."""

    def __init__(self, action: str, failures: dict[str, BaseException]) -> None:
        super().__init__(f"{action} failed for: {', '.join(sorted(failures))}")
        self.failures = failures


class Stack:
    """All services of one profile (``dev``, ``test`` or another), by name in ``services``."""

    def __init__(self, profile: str | None = None) -> None:
        self.profile: Profile = resolve_profile(profile)
        self.services: dict[str, Service] = self._load_services()
        self.promotions_seen: list[str] = []

    def _load_services(self) -> dict[str, Service]:
        """The profile's services with the roles promotions left them."""
        services = build_services(self.profile)
        roles.apply(services, roles.load(self.profile.var_dir))
        return services

    def follow_promotions(self) -> None:
        """Take on the promotions made while the stack ran (see :mod:`devstack.roles`); what
        changed is added to ``promotions_seen``. The caller holds :meth:`exclusive`."""
        if self.profile.var_dir.exists():
            self.promotions_seen += roles.follow_promotions(self.services,
                                                            self.profile.var_dir)

    def select(self, names: Iterable[str] | None = None) -> list[Service]:
        """The named services (all when ``names`` is empty), in definition order."""
        wanted = list(names or [])
        unknown = [name for name in wanted if name not in self.services]
        if unknown:
            raise DevstackError(f"unknown service(s): {', '.join(unknown)} "
                                f"(known: {', '.join(self.services)})")
        return [service for name, service in self.services.items() if not wanted or name in wanted]

    def up(self, names: Iterable[str] | None = None) -> list[str]:
        """Start what is not running, wait for health, bootstrap; returns the started names.

        The masters of named replicas are brought up too, with the roles that promotions
        left (:mod:`devstack.roles`).
        """
        started: list[str] = []

        def bring_up(service: Service) -> None:
            if service.up():
                started.append(service.name)

        with self.exclusive():
            self.follow_promotions()
            chosen = _with_dependencies(self.select(names))
            errors = run_ordered(chosen, bring_up, after=lambda s: s.depends_on,
                                 early=lambda s: s.prepare())
        if errors:
            raise StackError("up", errors)
        return [service.name for service in chosen if service.name in started]

    def down(self, names: Iterable[str] | None = None) -> list[str]:
        """Stop the services (replicas before their masters); returns the stopped names."""
        chosen = self.select(names)
        stopped: list[str] = []

        def bring_down(service: Service) -> None:
            if service.stop():
                stopped.append(service.name)

        if not self.profile.var_dir.exists():
            return []
        with self.exclusive():
            errors = run_ordered(chosen, bring_down, after=lambda s: self._dependents(s))
        if errors:
            raise StackError("down", errors)
        return [service.name for service in chosen if service.name in stopped]

    def status(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """One dict per service: name, kind, role, host, port, pid, healthy, master, replication
        (with the roles promotions left: ``up`` and the ``status`` command follow them)."""
        chosen = self.select(names)
        with ThreadPoolExecutor(max_workers=len(chosen) or 1) as pool:
            return list(pool.map(lambda service: service.status(), chosen))

    def env(self) -> dict[str, str]:
        """The environment variables the Django settings read (the settings contract)."""
        return settings_env(self.profile, self.services)

    def add_pair(self, kind: str, name: str) -> list[Service]:
        """Add the pair ``name`` of ``kind`` (``mysql003``, ``redis003``) to the stack for good
        and start it; a Redis pair is also watched by the running sentinels from now on.
        Returns the pair's two services."""
        with self.exclusive():
            record_extra_pair(self.profile, kind, name)
            self.services = self._load_services()
        master, replica = self.service(f"{name}a"), self.service(f"{name}b")
        self.up([replica.name])
        if isinstance(master, Redis):
            for sentinel in self.services.values():
                if isinstance(sentinel, Sentinel) and sentinel.is_running():
                    sentinel.monitor(sentinel_group(master.name), master)
        return [master, replica]

    def start(self, name: str) -> str:
        """Start one service (not its dependencies) in the role promotions left it, wait for
        health and bootstrap it; returns one line saying what was done. A fenced old master
        is not started: :class:`FencedError` says why and what to run instead."""
        service = self.service(name)
        with self.exclusive():
            self.follow_promotions()
            started = service.up()
            if service.role == FENCED:
                raise FencedError(self._fenced_text(service))
        role = {MASTER: " as a master", REPLICA: " as a replica"}.get(service.role, "")
        if service.role == REPLICA and service.master is not None:
            role = f" as {service.master.name}'s replica"
        return f"started {name}{role}" if started else f"{name} already runs{role}"

    def stop(self, name: str) -> None:
        """Stop one service cleanly."""
        service = self.service(name)
        with self.exclusive():
            service.stop()

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to one service's process (SIGKILL: its whole process group)."""
        self.service(name).kill(sig)

    def healthy(self, name: str) -> bool:
        """True if the service runs and answers its health probe."""
        return self.service(name).healthy()

    def wait_healthy(self, name: str, timeout: float = 60.0) -> None:
        """Wait until the service is healthy; raise :class:`StartError` on timeout."""
        service = self.service(name)
        if not service.is_running():
            raise service.failure("is not running")
        service.wait_healthy(timeout)

    def service(self, name: str) -> Service:
        """The service called ``name``."""
        try:
            return self.services[name]
        except KeyError:
            raise DevstackError(f"unknown service {name!r}") from None

    def mysql_pair(self, name_a: str, name_b: str, port_a: int, port_b: int,
                   root_dir: Path) -> tuple[MariaDB, MariaDB]:
        """Start a throwaway MariaDB master/replica pair outside the stack (see :mod:`pairs`)."""
        return mysql_pair(name_a, name_b, port_a, port_b, root_dir)

    def reclone(self, replica_name: str, master_name: str) -> None:
        """Rebuild ``replica_name`` from scratch as a replica of ``master_name``."""
        replica, master = self.service(replica_name), self.service(master_name)
        if not isinstance(replica, MariaDB) or not isinstance(master, MariaDB):
            raise DevstackError("reclone works on MariaDB services only")
        with self.exclusive():
            self.follow_promotions()  # a promotion since the last command: take it on first
            reclone(replica, master)
            master.accept_replica()
            roles.recloned(self.services, self.profile.var_dir, replica, master)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Serialise commands that start or stop services of this profile across processes."""
        with process.exclusive(self.profile.var_dir / ".devstack.lock"):
            yield

    def _fenced_text(self, service: Service) -> str:
        name, partner = service.name, pair_partner(self.profile, service.name) or "NEW_MASTER"
        state = "runs read-only" if service.is_running() else "was left stopped"
        profile = "" if self.profile.name == "dev" else f" --profile {self.profile.name}"
        return (f"{name} is an old master, fenced since {partner} was promoted in its place: "
                f"its binlog may hold transactions {partner} never got, so it {state}. Rebuild "
                f"it as {partner}'s replica with `python3 -m devstack{profile} reclone {name} "
                f"{partner}`, then `manage.py shards attach-replica {partner} {name}`.")

    def _dependents(self, service: Service) -> list[Service]:
        return [other for other in self.services.values() if service in other.depends_on]


def _with_dependencies(services: list[Service]) -> list[Service]:
    chosen: dict[str, Service] = {}

    def add(service: Service) -> None:
        for dependency in service.depends_on:
            add(dependency)
        chosen.setdefault(service.name, service)

    for service in services:
        add(service)
    return list(chosen.values())


__all__ = ["Stack", "StackError", "StartError"]
