"""The shard map page: ranges, masters, replicas, their health and replica lag; the
orchestrator's automatic failovers; promoting a master's replica
(:func:`sharding.failover.promote`)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse

from pinsite.admin.pages import attempt, confirmed_action, render_page
from sharding import failover, orchestrator
from sharding.replication import HostHealth, host_health
from sharding.topology import current_map

HISTORY_SHOWN = 20


@dataclass(frozen=True)
class RangeRow:
    first: int
    last: int
    size: int
    master: HostHealth
    replica: HostHealth | None


@dataclass(frozen=True)
class ShardMapView:
    version: int
    shard_count: int
    rows: list[RangeRow]


def shard_map_view() -> ShardMapView:
    """The current map with every host's health, probed in parallel (short timeouts)."""
    shard_map = current_map()
    hosts = shard_map.hosts()
    with ThreadPoolExecutor(max_workers=max(1, len(hosts))) as pool:
        health = dict(zip(hosts, pool.map(host_health, hosts), strict=True))
    rows = [RangeRow(r.first, r.last, r.size, health[r.master],
                     health[r.replica] if r.replica else None) for r in shard_map.ranges]
    return ShardMapView(shard_map.version, shard_map.shard_count(), rows)


def shard_map(request: HttpRequest) -> HttpResponse:
    """Ranges, masters, replicas, health and lag; the newest orchestrator events."""
    view, error = attempt(shard_map_view)
    events, history_error = attempt(lambda: orchestrator.recent(HISTORY_SHOWN))
    return render_page(request, "shards.html", "Shard map",
                       {"map": view, "error": error, "failovers": events or [],
                        "failovers_error": history_error})


def promote(request: HttpRequest, master: str) -> HttpResponse:
    """Confirm, then promote ``master``'s replica for all of ``master``'s ranges."""
    found, error = attempt(lambda: current_map().ranges_of(master))
    ranges = found or []
    replica = ranges[0].replica if ranges else None
    details = [*([f"The shard map cannot be read: {error}"] if error else []),
               f"Master {master} serves {sum(r.size for r in ranges)} shards "
               f"({', '.join(f'{r.first}-{r.last}' for r in ranges) or 'none'}).",
               f"Its replica {replica or '(none)'} applies its relay log, opens for writes and "
               "takes over these ranges; the old master is fenced read-only if it answers.",
               "Every process switches on the map change, without a restart. The promoted "
               "master has no replica until one is attached."]
    return confirmed_action(request, title=f"Promote the replica of {master}", details=details,
                            perform=lambda: _report(master), done="admin:operations-shards")


def _report(master: str) -> str:
    report = failover.promote(master)
    return (f"Promoted {report.new_master} in place of {report.old_master} for "
            f"{report.shards} shards (map version {report.map_version}, GTID {report.gtid}); "
            f"old master {'fenced read-only' if report.fenced else 'unreachable, not fenced'}.")
