"""Which server of each pair is the master now: the configured roles, changed by promotions.

``shards promote`` and ``graph promote`` turn a replica into a master without telling the
local stack. The stack finds out by looking: a server it knows as a replica that runs as a
master (a Redis ``role:master``; a MariaDB without replication and writable) was promoted.
It records that in ``var/<profile>/roles.json`` so that every later command configures each
server for the role it has now, also after both were stopped:

* the promoted server is a master (a Redis one without ``replicaof``);
* an old Redis master becomes the new master's replica (Redis copies the data over whole);
* an old MariaDB master is **fenced**: ``up`` leaves it stopped, since its binlog may hold
  transactions the new master never got. ``reclone OLD NEW`` rebuilds it as the new master's
  replica, and that is recorded too.

A pair promoted back to its configured roles simply records those again.

>>> follow_promotions(services, var_dir)   # before up and status
['redis001b is master, redis001a its replica (promoted while the stack ran)']
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from devstack.errors import CommandFailed
from devstack.mariadb import MariaDB
from devstack.resp import RespError
from devstack.service import FENCED, MASTER, REPLICA, Service

FILE = "roles.json"


def load(var_dir: Path) -> dict[str, dict[str, object]]:
    """The recorded roles: ``name → {"role": ..., "master": name or None}``."""
    try:
        found = json.loads((var_dir / FILE).read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def apply(services: dict[str, Service], recorded: dict[str, dict[str, object]]) -> None:
    """Give each recorded service its recorded role and master."""
    for name, entry in recorded.items():
        service = services.get(name)
        if service is None:
            continue
        master = entry.get("master")
        service.role = str(entry.get("role") or service.role)
        service.master = services.get(str(master)) if master else None
        service.without_replica = bool(entry.get("without_replica"))


def record(services: dict[str, Service], var_dir: Path, names: Iterable[str]) -> None:
    """Write the current roles of ``names`` into the record (others stay as recorded)."""
    recorded = load(var_dir)
    for name in names:
        service = services[name]
        recorded[name] = {"role": service.role,
                          "master": service.master.name if service.master else None,
                          "without_replica": service.without_replica}
    var_dir.mkdir(parents=True, exist_ok=True)
    (var_dir / FILE).write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")


def recloned(services: dict[str, Service], var_dir: Path, replica: MariaDB,
             master: MariaDB) -> None:
    """``replica`` was rebuilt as ``master``'s replica: record both (``master`` as the master,
    whatever was recorded for it before)."""
    master.role, master.master = MASTER, None
    record(services, var_dir, [replica.name, master.name])


def follow_promotions(services: dict[str, Service], var_dir: Path) -> list[str]:
    """Find replicas that run as masters, make them masters (their old masters replicas or
    fenced), record it; one line per change."""
    changes = []
    for service in list(services.values()):
        old = service.master
        if service.role != REPLICA or old is None or not service.healthy():
            continue
        try:
            promoted = service.acts_as_master()
        except (CommandFailed, OSError, RespError):  # it went away meanwhile: look next time
            continue
        if not promoted:
            continue
        service.role, service.master = MASTER, None
        if old.fenced_when_replaced:
            old.role, old.master = FENCED, None
            service.without_replica = True
            changes.append(f"{service.name} is master, {old.name} fenced (promoted while the "
                           f"stack ran; `reclone {old.name} {service.name}` makes it a replica)")
        else:
            old.role, old.master = REPLICA, service
            changes.append(f"{service.name} is master, {old.name} its replica (promoted while "
                           "the stack ran)")
        record(services, var_dir, [service.name, old.name])
    return changes
