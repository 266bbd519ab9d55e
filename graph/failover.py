"""Promoting a Redis replica when its master dies (or for a planned switchover).

If the old master still answers, its writes are paused, the replica is allowed to catch up,
and after the switch the old master becomes the new master's replica (the source's "reuse the
old master as the new slave"). Either way the replica runs ``REPLICAOF NO ONE`` and the map
changes by compare-and-set; running processes switch through their watch (and writers that
fail re-read the map at once).

Every promotion ends by reconciling the promoted instance with the edge log: its vshards
are fenced (``reconciling``) before the map switches, rebuilt from the log
(:func:`graph.repair.rebuild`, only the vshards it now serves), and opened. Writes the dead
master acknowledged but never replicated come back this way. Writers meanwhile are refused
by the fence and retry (``WRITE_ATTEMPTS``); one that gives up first has its change in the
log, where ``graph verify`` finds it.

>>> promote("redis001a").new_master
'redis001b'
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from graph import repair, topology
from graph.conf import graph_settings
from graph.exceptions import GraphError, PromotionError
from graph.store import admin
from graph.vshardmap import VShardMap

RECONCILING = "reconciling"


@dataclass(frozen=True)
class PromotionReport:
    old_master: str
    new_master: str
    vshards: int
    old_master_reachable: bool
    caught_up: bool
    new_replica: str | None
    map_version: int
    keys_reconciled: int
    reconcile_seconds: float

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def promote(instance: str, wait_seconds: float | None = None) -> PromotionReport:
    """Promote the replica of ``instance`` (a master), or ``instance`` itself (a replica)."""
    before = topology.read_fresh()
    old, replica = _roles(before, instance)
    topology.address_of(replica)
    if not admin.ping(replica):
        raise PromotionError(f"replica {replica} does not answer; nothing changed")
    wait = float(graph_settings.PROMOTE_WAIT_SECONDS if wait_seconds is None else wait_seconds)
    reachable = admin.ping(old)
    caught_up = _drain(old, replica, wait) if reachable else False
    served = before.vshards_of(old)
    admin.promote_replica(replica)
    admin.set_fences(replica, served, RECONCILING, float(graph_settings.RECONCILE_FENCE_SECONDS))
    try:
        after = topology.change_map(
            lambda current: current.promoted(old, old if reachable else None),
            expected_version=before.version)
        if reachable:
            _demote(old, replica)
        topology.refresh()
        started = time.monotonic()
        rebuilt = repair.rebuild(served)
        took = time.monotonic() - started
    finally:
        admin.clear_fences(replica, served)
    return PromotionReport(old, replica, len(served), reachable, caught_up,
                           old if reachable else None, after.version, rebuilt.keys_rewritten,
                           round(took, 2))


def attach_replica(master: str, replica: str, wait_seconds: float = 60.0) -> VShardMap:
    """Make ``replica`` replicate ``master`` (dropping its own data), wait for the initial
    sync, and name it as ``master``'s replica in the map."""
    topology.read_fresh().with_replica(master, replica)
    admin.follow_master(replica, topology.address_of(master))
    deadline = time.monotonic() + wait_seconds
    while admin.replication(replica).get("master_link_status") != "up":
        if time.monotonic() > deadline:
            raise PromotionError(f"{replica} did not finish syncing from {master} in "
                                 f"{wait_seconds:.0f}s; the map is unchanged")
        time.sleep(0.1)
    return topology.change_map(lambda current: current.with_replica(master, replica))


def _roles(current: VShardMap, instance: str) -> tuple[str, str]:
    if instance in current.masters():
        replica = current.replica_of(instance)
        if replica is None:
            raise PromotionError(f"{instance} has no replica to promote")
        return instance, replica
    masters = [r.master for r in current.ranges if r.replica == instance]
    if not masters:
        raise PromotionError(f"{instance} is neither a master nor a replica in the vshard map "
                             f"(masters: {', '.join(current.masters())})")
    return masters[0], instance


def _drain(old: str, replica: str, wait: float) -> bool:
    """Pause writes on the old master and wait until the replica has all of them."""
    try:
        admin.pause_writes(old, wait + 10)
        target = int(admin.replication(old).get("master_repl_offset", 0))
    except GraphError:
        return False
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if int(admin.replication(replica).get("slave_repl_offset", -1)) >= target:
            return True
        time.sleep(0.05)
    return False


def _demote(old: str, new_master: str) -> None:
    try:
        admin.follow_master(old, topology.address_of(new_master))
    finally:
        admin.unpause(old)
