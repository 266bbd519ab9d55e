"""Changes to the shard layout besides promotion: opening ranges, attaching replicas.

>>> open_range(ShardRange(4096, 6143, "mysql003a", "mysql003b"))
"""

from __future__ import annotations

from auditlog.operations import operation
from sharding.exceptions import ShardMapError
from sharding.hosts import require_alias
from sharding.replication import replication_problems
from sharding.schema import HostReport, init_host
from sharding.shardmap import ShardMap, ShardRange
from sharding.topology import change_map, fresh_map


def _check_configured(*hosts: str | None) -> None:
    """Every named host is configured or registered (:func:`sharding.hosts.require_alias`)."""
    for host in hosts:
        if host:
            require_alias(host)


def attach_replica(master: str, replica: str | None) -> ShardMap:
    """Record ``replica`` (or none) as the hot standby of every range ``master`` serves,
    once it is one: replicating from ``master`` by GTID, both threads running, read-only.
    A promotion picks the standby blindly, so a stale or divergent one must never be
    recorded. Recorded in the operator audit log as ``shards.attach_replica``."""
    with operation("shards.attach_replica", master, {"replica": replica}) as done:
        _check_configured(master, replica)
        if replica:
            problems = replication_problems(replica, master)
            if problems:
                raise ShardMapError(
                    f"{replica} is not a replica of {master}: {'; '.join(problems)}. Make it "
                    f"one first (in the local stack: python3 -m devstack reclone {replica} "
                    f"{master}); the map is unchanged")
        changed = change_map(lambda current: current.with_replica(master, replica))
        done.result = {"map_version": changed.version}
        return changed


def open_range(new: ShardRange) -> tuple[ShardMap, HostReport]:
    """Open more logical shards: create their schemas on the master, then add them to the map
    (recorded in the operator audit log as ``shards.open``)."""
    with operation("shards.open", f"{new.first}-{new.last}", new.to_json()) as done:
        _check_configured(new.master, new.replica)
        fresh_map().with_range(new)
        report = init_host(new.master, list(new.shards()))
        changed = change_map(lambda current: current.with_range(new))
        done.result = {"map_version": changed.version, "schemas_created": report.created_schemas}
        return changed, report
