"""Automatic failover of shard masters: ``manage.py orchestrator run``.

Run two or more. One leads (:mod:`coordination.election`, under
``<ZK_ROOT>/orchestrator/election``) and the others wait to take over. Every ``interval``
seconds the leader probes each master of the shard map
(:func:`sharding.replication.host_health`). It fails a master over only when both of these
hold:

* the master failed ``failures`` probes in a row;
* its replica has lost it too (its replication I/O thread is not running).

A master that is only slow (stopped for less than the detection window), or cut off from the
orchestrator alone, is left alone. The failover is :func:`sharding.failover.promote`, the
code of ``shards promote``: fence the old master if it answers, let the replica apply its
relay log, open it, and switch the map by compare-and-set. A second orchestrator acting on
the same failure loses the compare-and-set, and the old master is no longer in the map. Every
promotion, and every refusal that is worth an operator's eye, goes to the history
(``orchestrator history``, the admin's shard page). After every round the leader records
what it saw (``orchestrator status``): who leads, how many rounds it has run, when the last
one ended, the masters failing their probes and what went wrong in that round. A quiet
history with rounds going on is how "nothing needed doing" looks.

A deposed master that answers again is set read-only at once. Writes it had in flight when
it was replaced are not acknowledged to their clients (:func:`sharding.hosts.atomic`).

Each round acts as the orchestrator (:func:`toolkit.acting.orchestrator`, ``host:pid`` of the
leader): its promotions and fences are in the operator audit log under that name.

Other stores' failover engines are followed in the same rounds through ``followers``:
callables that return history entries (tagged with their ``store``), such as the graph's
:func:`graph.failover.follow_sentinel`. ``manage.py orchestrator`` composes them.

>>> Orchestrator(interval=1.0, failures=3).check_once()
[]
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from auditlog.operations import operation
from coordination import election
from coordination.exceptions import CoordinationError
from coordination.zookeeper import append_json, read_json, write_json
from sharding import failover, replication
from sharding.exceptions import ShardingError, ShardMapError, ShardUnavailable
from sharding.hosts import require_alias
from sharding.topology import current_map
from toolkit import acting

log = logging.getLogger("pinsite.orchestrator")

ELECTION = "orchestrator/election"
HISTORY = "orchestrator/history"
STATUS = "orchestrator/status"
KEPT = 200  # history entries kept


@dataclass
class Orchestrator:
    """The leader's loop: probes, decisions, promotions, fences."""

    interval: float = 1.0
    failures: int = 3
    misses: dict[str, int] = field(default_factory=dict)
    followers: list[Callable[[], list[dict[str, Any]]]] = field(default_factory=list)
    rounds: int = 0
    errors: list[str] = field(default_factory=list)  # what went wrong in the last round

    def check_once(self) -> list[dict[str, Any]]:
        """One round over every master of the map, then each follower; returns the events
        it recorded."""
        self.errors = []
        events = self._check_shard_masters()
        for follow in self.followers:
            try:
                followed = follow()
            except Exception as exc:  # one engine's trouble must not stop the others' rounds
                name = getattr(follow, "__name__", str(follow))
                log.warning("orchestrator: %s failed: %s", name, exc)
                self.errors.append(f"{name}: {exc}")
                continue
            for event in followed:
                log.warning("%s: %s %s%s", event.get("store"), event["kind"], event["master"],
                            f" -> {event['replica']}" if event.get("replica") else "")
            events += followed
        for event in events:
            record(event)
        return events

    def _check_shard_masters(self) -> list[dict[str, Any]]:
        events = []
        shard_map = current_map()
        for master in shard_map.masters():
            health = replication.host_health(master)
            if health.reachable:
                self.misses.pop(master, None)
                continue
            self.misses[master] = self.misses.get(master, 0) + 1
            log.warning("%s failed probe %d of %d: %s", master, self.misses[master],
                        self.failures, health.error)
            if self.misses[master] >= self.failures:
                event = self._decide(master, shard_map.ranges_of(master)[0].replica)
                if event is not None:
                    events.append(event)
        events += self._fence_deposed(current_map().masters())  # after this round's promotions
        return events

    def _decide(self, master: str, replica: str | None) -> dict[str, Any] | None:
        if replica is None:
            return self._once(master, "no replica to promote")
        seen = replication.host_health(replica)
        if not seen.reachable:
            return self._once(master, f"its replica {replica} is unreachable too")
        if seen.replicating:
            log.warning("%s: its replica %s still replicates from it: not failed over",
                        master, replica)
            return None
        detail = f"{self.misses[master]} failed probes in a row; {replica} had lost it too"
        started = time.monotonic()
        report = failover.promote(master)
        self.misses.pop(master, None)
        log.warning("promoted %s in place of %s", report.new_master, master)
        return {"kind": "promoted", "master": master, "replica": report.new_master,
                "fenced": report.fenced, "gtid": report.gtid, "shards": report.shards,
                "map_version": report.map_version,
                "seconds": round(time.monotonic() - started, 2), "detail": detail}

    def _once(self, master: str, why: str) -> dict[str, Any] | None:
        """A refusal, recorded once per outage (when the count first reaches the limit)."""
        if self.misses[master] != self.failures:
            return None
        return {"kind": "not failed over", "master": master, "detail": why}

    def _fence_deposed(self, masters: list[str]) -> list[dict[str, Any]]:
        """Set read-only every deposed master that answers again and is not yet fenced."""
        fenced = []
        for old in deposed(history(), masters):
            try:
                require_alias(old)
            except ShardMapError:
                continue  # no longer configured or registered: nothing to reach
            health = replication.host_health(old)
            if health.reachable and not health.read_only and _fence(old):
                fenced.append({"kind": "fenced", "master": old,
                               "detail": "deposed master answered again: set read-only"})
        return fenced


def _fence(old: str) -> bool:
    """Set the deposed master ``old`` read-only (``shards.fence`` in the audit log; failed
    when it stopped answering meanwhile)."""
    try:
        with operation("shards.fence", old, {"why": "deposed master answered again"}):
            if not replication.fence(old):
                raise ShardUnavailable(f"{old} stopped answering before it was fenced")
    except ShardUnavailable:
        return False
    return True


def deposed(entries: list[dict[str, Any]], masters: list[str]) -> list[str]:
    """Old masters of recorded promotions that no later entry fenced, that no later promotion
    made a master again, and that are not masters now."""
    pending: dict[str, bool] = {}
    for entry in entries:
        if entry.get("store", "mysql") != "mysql":
            continue
        if entry["kind"] == "promoted":
            pending.pop(entry["replica"], None)  # it serves from here on
            if not entry.get("fenced"):
                pending[entry["master"]] = True
        elif entry["kind"] == "fenced":
            pending.pop(entry["master"], None)
    return [old for old in pending if old not in masters]


def run(orchestrator: Orchestrator, stop: threading.Event) -> None:
    """Wait for leadership, then lead until ``stop`` is set (or the session is lost)."""
    identifier = acting.process_name()

    def lead() -> None:
        log.warning("orchestrator %s leads", identifier)
        while not stop.is_set():
            run_round(orchestrator, identifier)
            stop.wait(orchestrator.interval)

    election.stand(ELECTION, identifier, lead, stop, retry_every=orchestrator.interval)


def run_round(orchestrator: Orchestrator, leader: str) -> None:
    """One round of the leader (acting as the orchestrator ``leader``), then its record in
    the status node; a failing round is logged and recorded, never raised (one bad round must
    not end the leader's watch)."""
    try:
        with acting.acting_as(acting.orchestrator(leader)):
            orchestrator.check_once()
    except (ShardingError, CoordinationError) as exc:
        log.warning("orchestrator round failed: %s", exc)
        orchestrator.errors.append(f"round failed: {exc}")
    except Exception as exc:
        log.exception("orchestrator round failed")
        orchestrator.errors.append(f"round failed: {exc!r}")
    orchestrator.rounds += 1
    try:
        record_round(orchestrator, leader)
    except CoordinationError as exc:
        log.warning("orchestrator round %d not recorded: %s", orchestrator.rounds, exc)


def record_round(orchestrator: Orchestrator, leader: str) -> None:
    """Write the leader's latest round to the status node (one small write per round; the
    node is made on the first). ZooKeeper failing raises :class:`CoordinationUnavailable`."""
    write_json(STATUS, {
        "leader": leader, "rounds": orchestrator.rounds, "time": round(time.time(), 3),
        "failing": dict(orchestrator.misses), "failures": orchestrator.failures,
        "errors": list(orchestrator.errors)})


def status() -> dict[str, Any]:
    """The last recorded round (``leader``, ``rounds``: how many that leader has run,
    ``time`` it ended (:func:`ended_at`), ``failing``: failed probes in a row by master,
    ``failures``, ``errors``) and ``contenders``: the orchestrators running now, the leader
    first. ``rounds`` is None before any leader finished a round."""
    latest: dict[str, Any] = read_json(STATUS) or {"leader": None, "rounds": None}
    return {**latest, "contenders": election.contenders(ELECTION)}


def record(event: dict[str, Any]) -> None:
    """Append ``event`` (with its time) to the history node, keeping the newest ``KEPT``."""
    append_json(HISTORY, {"time": round(time.time(), 3), **event}, keep=KEPT)


def recent(limit: int | None = None) -> list[dict[str, Any]]:
    """The newest ``limit`` events (all when None), newest first, each with ``when`` (UTC)."""
    entries = history()
    return [{**entry, "when": ended_at(entry)}
            for entry in reversed(entries[-limit:] if limit else entries)]


def ended_at(entry: dict[str, Any]) -> datetime:
    """When a recorded round or event ended (its ``time``), in UTC."""
    return datetime.fromtimestamp(float(entry["time"]), UTC)


def history() -> list[dict[str, Any]]:
    """Every recorded event, oldest first."""
    found: list[dict[str, Any]] = read_json(HISTORY, default=[])
    return found
