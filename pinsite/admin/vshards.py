"""The graph's vshard map page: ranges on Redis masters and replicas, each instance's health;
promoting a replica (:func:`graph.failover.promote`)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse

from graph import failover, topology
from graph.health import InstanceHealth, instance_health
from graph.vshardmap import VShardRange
from pinsite.admin.pages import attempt, confirmed_action, render_page


@dataclass(frozen=True)
class VShardMapView:
    version: int
    count: int
    ranges: list[VShardRange]
    instances: list[InstanceHealth]


def vshard_map_view() -> VShardMapView:
    current = topology.current_map()
    names = current.instances()
    masters = {r.replica: r.master for r in current.ranges if r.replica}
    with ThreadPoolExecutor(max_workers=max(1, len(names))) as pool:
        health = list(pool.map(lambda name: instance_health(name, masters.get(name)), names))
    return VShardMapView(current.version, current.count, list(current.ranges), health)


def vshard_map(request: HttpRequest) -> HttpResponse:
    """Ranges, masters, replicas and every instance's health."""
    view, error = attempt(vshard_map_view)
    return render_page(request, "vshards.html", "Graph vshard map",
                       {"map": view, "error": error})


def promote(request: HttpRequest, instance: str) -> HttpResponse:
    """Confirm, then promote ``instance``'s replica (or the replica ``instance`` itself)."""
    current, error = attempt(topology.current_map)
    ranges = current.ranges_of(instance) if current else []
    details = [*([f"The vshard map cannot be read: {error}"] if error else []),
               f"{instance} is master of {sum(r.size for r in ranges)} vshards"
               f"{' and its replica is ' + str(ranges[0].replica) if ranges else ''}."
               if ranges else f"{instance} is not a master: if it is a replica, it is promoted.",
               "If the old master answers, its writes pause until the replica has caught up, "
               "and afterwards it replicates the new master.",
               "Then the promoted instance's vshards are rebuilt from the edge log (writes "
               "to them wait meanwhile), which restores what a dead master never replicated."]
    return confirmed_action(request, title=f"Promote the Redis replica of {instance}",
                            details=details, perform=lambda: _report(instance),
                            done="admin:operations-vshards")


def _report(instance: str) -> str:
    report = failover.promote(instance)
    if not report.old_master_reachable:
        old = "unreachable"
    elif report.caught_up:
        old = "now replicates it"
    else:
        old = "now replicates it (its replica had not caught up in time)"
    return (f"Promoted {report.new_master} in place of {report.old_master} for "
            f"{report.vshards} vshards (map version {report.map_version}); old master {old}; "
            f"{report.keys_reconciled} keys rewritten from the edge log ({report.reconciled}) "
            f"in {report.reconcile_seconds:.2f}s.")
