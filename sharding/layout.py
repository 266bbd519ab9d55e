"""Changes to the shard layout besides promotion: opening ranges, attaching replicas.

>>> open_range(ShardRange(4096, 6143, "mysql003a", "mysql003b"))
"""

from __future__ import annotations

from sharding.exceptions import ShardMapError
from sharding.hosts import shard_aliases
from sharding.schema import HostReport, init_host
from sharding.shardmap import ShardMap, ShardRange
from sharding.topology import change_map, shard_map_document


def _check_configured(*hosts: str | None) -> None:
    unknown = [host for host in hosts if host and host not in shard_aliases()]
    if unknown:
        raise ShardMapError(f"not configured in PINSITE_SHARD_HOSTS: {', '.join(unknown)}")


def attach_replica(master: str, replica: str | None) -> ShardMap:
    """Record ``replica`` (or none) as the hot standby of every range ``master`` serves."""
    _check_configured(master, replica)
    return change_map(lambda current: current.with_replica(master, replica))


def open_range(new: ShardRange) -> tuple[ShardMap, HostReport]:
    """Open more logical shards: create their schemas on the master, then add them to the map."""
    _check_configured(new.master, new.replica)
    shard_map_document().read_fresh().with_range(new)
    report = init_host(new.master, list(new.shards()))
    return change_map(lambda current: current.with_range(new)), report
