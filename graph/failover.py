"""Promoting a Redis replica when its master dies (or for a planned switchover).

If the old master still answers, its writes are paused, the replica is allowed to catch up,
and after the switch the old master becomes the new master's replica (the source's "reuse the
old master as the new slave"). Either way the replica runs ``REPLICAOF NO ONE`` and the map
changes by compare-and-set; running processes switch through their watch (and writers that
fail re-read the map at once).

Every promotion ends by reconciling the promoted instance with the edge log: its vshards
are fenced (``reconciling``) before the map switches, reconciled, and opened. A replica can be
missing only what its master did after the last stamp it holds (:func:`stamp_masters`, run by
the orchestrator every round on every master; the stamp replicates in order with the data),
and the writes whose Redis step failed meanwhile: so the reconcile replays the followers of
the follow events the outbox recorded since that stamp, less a margin
(:func:`graph.repair.rebuild_followers`), and its cost follows the outage, not the graph.
Without a stamp it rebuilds the vshards it now serves from the whole log
(:func:`graph.repair.rebuild`). Writes the dead master acknowledged but never replicated
come back either way. Writers meanwhile are refused
by the fence and wait for it (up to ``RECONCILE_WAIT_SECONDS``, then ``WRITE_ATTEMPTS`` more
tries); one that gives up first has its change in the log, where ``graph verify`` finds it.

Where Redis Sentinel watches the pairs (``PINSITE_GRAPH["SENTINELS"]``), Sentinel makes the
switch: on its own when a master dies, or when asked (``SENTINEL FAILOVER``) by
:func:`promote`. :func:`follow_sentinel`, run by the orchestrator every round, takes
Sentinel's promotions into the map the same way, fences deposed masters that come back, and
records the replicas Sentinel brings into sync.

>>> promote("redis001a").new_master
'redis001b'
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import asdict, dataclass
from typing import Any

from auditlog.operations import operation
from events import journal
from graph import repair, tail, topology
from graph.conf import graph_settings
from graph.exceptions import GraphError, PromotionError, VShardMapConflict, VShardMapError
from graph.keys import RECONCILING, STAMP
from graph.store import admin, sentinel
from graph.vshardmap import VShardMap
from toolkit.clock import now_us
from toolkit.waiting import until

SENTINEL = "Redis Sentinel"


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
    by: str = "graph promote"
    reconciled: str = ""
    """What the reconcile read: the tail's followers, or whole vshards."""

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def promote(instance: str, wait_seconds: float | None = None) -> PromotionReport:
    """Promote the replica of ``instance`` (a master), or ``instance`` itself (a replica).

    Where Redis Sentinel watches the pair, the switch is Sentinel's (``SENTINEL FAILOVER``),
    so that the two never fight over it; pinsite then takes the result into the map.
    Recorded in the operator audit log as ``graph.promote``."""
    with operation("graph.promote", instance, {"wait_seconds": wait_seconds}) as done:
        report = _promote(instance, wait_seconds)
        done.result = report.to_json()
        return report


def _promote(instance: str, wait_seconds: float | None) -> PromotionReport:
    before = topology.read_fresh()
    old, replica = _roles(before, instance)
    topology.address_of(replica)
    if not admin.ping(replica):
        raise PromotionError(f"replica {replica} does not answer; nothing changed")
    wait = float(graph_settings.PROMOTE_WAIT_SECONDS if wait_seconds is None else wait_seconds)
    group = _watching_group(old, replica)
    if group is not None:
        return _promote_through_sentinel(group, before, old, replica, wait)
    reachable = admin.ping(old)
    drained = _drain(old, replica, wait) if reachable else None
    admin.promote_replica(replica)
    return _take_over(before, old, replica, reachable, drained,
                      after_switch=(lambda: _demote(old, replica)) if reachable else None)


def _promote_through_sentinel(group: str, before: VShardMap, old: str, replica: str,
                              wait: float) -> PromotionReport:
    """Pause the old master's writes until the replica has them (when it answers), have
    Sentinel promote the replica, take the switch into the map, then make the old master the
    new one's replica and let it go (what Sentinel would do some seconds later)."""
    reachable = admin.ping(old)
    drained = None
    wanted = _resolved(topology.address_of(replica))
    if _sentinel_master(group) != wanted:  # else Sentinel promoted it already
        drained = _drain(old, replica, wait) if reachable else None
        try:
            _until(lambda: not sentinel.masters()[group].failover_in_progress, wait,
                   f"Sentinel is still finishing an earlier failover of {group}")
            _ask_failover(group, wait)
            _until(lambda: _sentinel_master(group) == wanted and _acts_as_master(replica),
                   wait, f"Sentinel did not promote {replica} within {wait:g}s")
        except BaseException:
            if reachable:
                admin.unpause(old)
            raise
    return _take_over(before, old, replica, reachable, drained, by=SENTINEL,
                      after_switch=(lambda: _demote(old, replica)) if reachable else None)


def _take_over(before: VShardMap, old: str, new: str, old_reachable: bool,
               drained: int | None, after_switch: Callable[[], None] | None = None,
               by: str = "graph promote") -> PromotionReport:
    """The promoted ``new`` takes ``old``'s vshards in the map: fenced first, the map switched
    by compare-and-set, then reconciled from the edge log (:func:`_reconcile`) and opened.
    Another process that took the same switch over first leaves this one only the
    (idempotent) reconcile. ``drained``: when the old master's writes were paused, if ``new``
    then caught up with all of them (:func:`_drain`)."""
    served = before.vshards_of(old)
    admin.set_fences(new, served, RECONCILING, graph_settings.decimal("RECONCILE_FENCE_SECONDS"))
    try:
        try:
            after = topology.change_map(
                lambda current: current.promoted(old, old if old_reachable else None),
                expected_version=before.version)
        except (VShardMapConflict, VShardMapError):
            after = topology.read_fresh()
            if new not in after.masters():  # not another process's take-over of this switch
                raise
        if after_switch is not None:
            after_switch()
        topology.refresh()
        started = time.monotonic()
        rebuilt = _reconcile(new, served, drained)
        took = time.monotonic() - started
    finally:
        admin.clear_fences(new, served)
    return PromotionReport(old, new, len(served), old_reachable, drained is not None,
                           old if old_reachable else None, after.version,
                           rebuilt.keys_rewritten, round(took, 2), by,
                           rebuilt.verified.scope)


def _reconcile(new: str, served: list[int], drained: int | None,
               ) -> repair.RebuildReport:
    """Restore what the promoted ``new`` can be missing of ``served``: the edge log's changes
    since it is known to hold every write (its stamp, or the drain), less the margin; the
    whole log of ``served`` when nothing says since when, or the outbox no longer keeps it."""
    since = _missing_since(new, drained)
    if since is None:
        return repair.rebuild(served)
    return repair.rebuild_followers(tail.changes_since(since, served), served)


def _missing_since(instance: str, drained: int | None) -> int | None:
    """From when on ``instance`` can be missing writes (µs, the margin taken off), or None."""
    known = [] if drained is None else [drained]
    with suppress(GraphError):
        stamp = admin.read_stamp(instance, STAMP)
        known += [] if stamp is None else [stamp]
    if not known:
        return None
    since = max(known) - int(graph_settings.decimal("RECONCILE_TAIL_MARGIN_SECONDS") * 1_000_000)
    return since if journal.covers(since) else None


def stamp_masters() -> list[dict[str, Any]]:
    """Write the time on every graph master (the orchestrator does, every round): the stamp
    replicates in order with the data, so a promoted replica's stamp says from when on it can
    be missing writes. Masters that do not answer are skipped, and so is a stack without a
    vshard map. Records no history."""
    try:
        masters = topology.current_map().masters()
    except GraphError:
        return []
    now = now_us()
    for instance in masters:
        with suppress(GraphError):
            admin.write_stamp(instance, STAMP, now)
    return []


def follow_sentinel() -> list[dict[str, Any]]:
    """One round of following Sentinel (the orchestrator's, when sentinels are configured);
    returns what it did, as history entries:

    * a promotion Sentinel made that the map does not show yet is taken into it
      (:func:`_take_over`: fenced, switched, reconciled from the edge log);
    * a deposed master that answers as a master again is made the new master's replica at
      once (Sentinel would, but only some seconds later), so it takes no writes;
    * a master without a replica in the map gets the replica Sentinel sees syncing from it.
    """
    if not sentinel.configured():
        return []
    events: list[dict[str, Any]] = []
    index = _instance_index()
    current = topology.read_fresh()
    for state in sentinel.masters().values():
        master = index.get(_resolved(state.address))
        if master is None or state.failover_in_progress or state.down:
            continue
        if master not in current.masters():
            olds = current.masters_of(master)
            if not olds or not _acts_as_master(master):
                continue
            with operation("graph.promote", olds[0], {"replica": master, "by": SENTINEL}) as done:
                report = _take_over(current, olds[0], master, False, None, by=SENTINEL)
                done.result = report.to_json()
            events.append({"kind": "promoted", "store": "graph", "master": report.old_master,
                           "replica": report.new_master, "vshards": report.vshards,
                           "keys_reconciled": report.keys_reconciled,
                           "map_version": report.map_version,
                           "seconds": report.reconcile_seconds,
                           "detail": "promoted by Redis Sentinel; reconciled from the edge "
                                     f"log ({report.reconciled})"})
            current = topology.read_fresh()
        current = _tend_replicas(state, master, current, index, events)
    return events


def _tend_replicas(state: sentinel.GroupState, master: str, current: VShardMap,
                   index: dict[tuple[str, int], str],
                   events: list[dict[str, Any]]) -> VShardMap:
    """Fence ``master``'s deposed masters that came back, record a replica in sync; what was
    done goes to ``events``. Returns the map as it is afterwards."""
    for seen in sentinel.replicas(state.group):
        instance = index.get(_resolved((str(seen["ip"]), int(seen["port"]))))
        if instance is None or instance in (master, *current.masters()):
            continue
        try:
            found = admin.replication(instance)  # one INFO: is it up, and in what role
        except GraphError:
            continue
        if found.get("role") == "master":  # a deposed master, back: no writes for it
            with operation("graph.fence", instance, {"replicates": master}):
                admin.follow_master(instance, state.address)
            events.append({"kind": "fenced", "store": "graph", "master": instance,
                           "detail": f"deposed master acting as a master: made {master}'s "
                                     "replica"})
        elif current.replica_of(master) is None and _replicates(found, state.address):
            with operation("graph.attach_replica", master, {"replica": instance}):
                current = topology.change_map(_with_replica(master, instance))
            events.append({"kind": "replica", "store": "graph", "master": master,
                           "replica": instance, "detail": "in sync: recorded as its standby"})
    return current


def attach_replica(master: str, replica: str, wait_seconds: float = 60.0) -> VShardMap:
    """Make ``replica`` replicate ``master`` (dropping its own data), wait for the initial
    sync, and name it as ``master``'s replica in the map (``graph.attach_replica`` in the
    operator audit log)."""
    with operation("graph.attach_replica", master, {"replica": replica}):
        topology.read_fresh().with_replica(master, replica)
        admin.follow_master(replica, topology.address_of(master))
        _until(lambda: admin.replication(replica).get("master_link_status") == "up",
               wait_seconds, f"{replica} did not finish syncing from {master} in "
               f"{wait_seconds:.0f}s; the map is unchanged", every=0.1)
        return topology.change_map(lambda current: current.with_replica(master, replica))


def _roles(current: VShardMap, instance: str) -> tuple[str, str]:
    if instance in current.masters():
        replica = current.replica_of(instance)
        if replica is None:
            raise PromotionError(f"{instance} has no replica to promote")
        return instance, replica
    masters = current.masters_of(instance)
    if not masters:
        raise PromotionError(f"{instance} is neither a master nor a replica in the vshard map "
                             f"(masters: {', '.join(current.masters())})")
    return masters[0], instance


def _drain(old: str, replica: str, wait: float) -> int | None:
    """Pause writes on the old master and wait until the replica has all of them; the time
    (µs) the pause began, or None if the replica did not catch up."""
    paused_at = now_us()
    try:
        admin.pause_writes(old, wait + 10)
        target = int(admin.replication(old).get("master_repl_offset", 0))
    except GraphError:
        return None
    caught_up = until(
        lambda: int(admin.replication(replica).get("slave_repl_offset", -1)) >= target, wait)
    return paused_at if caught_up else None


def _demote(old: str, new_master: str) -> None:
    try:
        admin.follow_master(old, topology.address_of(new_master))
    finally:
        admin.unpause(old)


def _with_replica(master: str, replica: str) -> Callable[[VShardMap], VShardMap]:
    return lambda current: current.with_replica(master, replica)


def _watching_group(old: str, replica: str) -> str | None:
    """The Sentinel group that watches the pair (None: no sentinel is configured, or none
    watches it)."""
    if not sentinel.configured():
        return None
    pair = {_resolved(topology.address_of(old)), _resolved(topology.address_of(replica))}
    return next((state.group for state in sentinel.masters().values()
                 if _resolved(state.address) in pair), None)


def watched_by_sentinel() -> bool:
    """Whether Redis Sentinels are configured to watch the graph's pairs."""
    return bool(sentinel.configured())


def _sentinel_master(group: str) -> tuple[str, int]:
    """The (resolved) address Sentinel names as ``group``'s master now."""
    return _resolved(sentinel.masters()[group].address)


def _ask_failover(group: str, wait: float) -> None:
    """``SENTINEL FAILOVER``, asked again while no replica is good enough yet (a sentinel
    that has not heard from the replica lately)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            sentinel.failover(group)
            return
        except GraphError as exc:
            if "NOGOODSLAVE" not in str(exc) or time.monotonic() > deadline:
                raise PromotionError(f"Sentinel would not fail {group} over: {exc}") from exc
            time.sleep(0.5)


def _instance_index() -> dict[tuple[str, int], str]:
    """``resolved address → name`` of every instance this process can reach (configured or
    registered), looked up once per round."""
    return {_resolved(where): name for name, where in topology.instance_addresses().items()}


def _resolved(address: tuple[str, int]) -> tuple[str, int]:
    try:
        return socket.gethostbyname(address[0]), address[1]
    except OSError:
        return address


def _acts_as_master(instance: str) -> bool:
    try:
        return admin.replication(instance).get("role") == "master"
    except GraphError:
        return False


def _replicates(found: dict[str, Any], master: tuple[str, int]) -> bool:
    """Whether an instance's replication section (``found``) shows a replica of ``master``
    with its link up."""
    if found.get("role") != "slave" or found.get("master_link_status") != "up":
        return False
    return _resolved((str(found.get("master_host")),
                      int(found.get("master_port", 0)))) == _resolved(master)


def _until(condition: Callable[[], bool], wait: float, failure: str,
           every: float = 0.05) -> None:
    if not until(condition, wait, every):
        raise PromotionError(failure)
