"""Replica promotion: when a master dies, its hot-standby replica takes over its shard ranges.

Steps, in this order: fence the old master (read-only) if it answers, let the replica apply its
relay log, open the replica for writes, then switch the shard map by compare-and-set. Every
process watching the map moves its traffic to the new master without a restart.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from auditlog.operations import operation
from sharding import replication
from sharding.conf import sharding_settings
from sharding.exceptions import PromotionError
from sharding.shardmap import ShardMap
from sharding.topology import change_map, fresh_map


@dataclass(frozen=True)
class PromotionReport:
    old_master: str
    new_master: str
    shards: int
    fenced: bool
    gtid: str
    map_version: int


def promote(master: str, wait_seconds: float | None = None) -> PromotionReport:
    """Promote ``master``'s replica to serve all of ``master``'s ranges (recorded in the
    operator audit log as ``shards.promote``)."""
    with operation("shards.promote", master, {"wait_seconds": wait_seconds}) as done:
        report = _promote(master, wait_seconds)
        done.result = asdict(report)
        return report


def _promote(master: str, wait_seconds: float | None) -> PromotionReport:
    before = fresh_map()
    ranges = before.ranges_of(master)
    if not ranges:
        raise PromotionError(f"{master} is not a master in the shard map "
                             f"(masters: {', '.join(before.masters())})")
    replica = ranges[0].replica
    if replica is None:
        raise PromotionError(f"{master} has no replica to promote")
    before.promoted(master)
    fenced = replication.fence(master)
    wait = sharding_settings.PROMOTE_WAIT_SECONDS if wait_seconds is None else wait_seconds
    gtid = replication.promote_replica(replica, wait)
    after: ShardMap = change_map(lambda current: current.promoted(master),
                                 expected_version=before.version)
    return PromotionReport(master, replica, len(before.shards_of(master)), fenced, gtid,
                           after.version)
