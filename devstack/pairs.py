"""Throwaway MariaDB master/replica pairs outside the shared stack, for failover tests.

Usage::

    master, replica = mysql_pair("mysqlf1a", "mysqlf1b", 24411, 24412, tmp_path)
    try:
        master.kill()           # SIGKILL, without harming the shared stack
    finally:
        destroy(master, replica)
"""

from __future__ import annotations

import shutil
from pathlib import Path

from devstack.errors import DevstackError
from devstack.mariadb import MariaDB
from devstack.schedule import run_ordered
from devstack.service import MASTER, REPLICA, Service


def mysql_pair(name_a: str, name_b: str, port_a: int, port_b: int,
               root_dir: Path, net_timeout: int = 20) -> tuple[MariaDB, MariaDB]:
    """Start (or reuse) a GTID + semi-sync pair under ``root_dir``: ``name_a`` replicated to
    ``name_b`` (which notices a silent master after ``net_timeout`` seconds). Both are
    healthy, bootstrapped and replicating on return."""
    master = MariaDB(name_a, port_a, Path(root_dir) / name_a, role=MASTER,
                     gtid_domain_id=port_a, net_timeout=net_timeout)
    replica = MariaDB(name_b, port_b, Path(root_dir) / name_b, role=REPLICA, master=master,
                      gtid_domain_id=port_a, net_timeout=net_timeout)
    errors = run_ordered([master, replica], lambda service: service.up(),
                         after=lambda service: service.depends_on,
                         early=lambda service: service.prepare())
    if errors:
        destroy(master, replica)
        raise DevstackError("; ".join(f"{error}" for error in errors.values()))
    return master, replica


def destroy(*services: Service) -> None:
    """Stop ``services`` (in parallel, no ordering) and delete their folders."""
    run_ordered(services, lambda service: service.stop(timeout=20), after=lambda service: [])
    for service in services:
        shutil.rmtree(service.home, ignore_errors=True)


__all__ = ["MASTER", "REPLICA", "destroy", "mysql_pair"]
