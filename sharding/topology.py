"""The process's current shard map, kept from ZooKeeper by a watched document.

>>> current_map().master_for(3429)
'mysql001a'
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from sharding.conf import sharding_settings
from sharding.coordination import WatchedDocument, zookeeper
from sharding.shardmap import ShardMap

MAP_NODE = "shardmap"


@cache
def shard_map_document() -> WatchedDocument[ShardMap]:
    """The watched ``<ZK_ROOT>/shardmap`` node (one per process)."""
    return WatchedDocument(
        MAP_NODE,
        sharding_settings.MAP_CACHE_FILE or None,
        decode=ShardMap.loads,
        encode=ShardMap.dumps,
    )


def current_map() -> ShardMap:
    """The shard map this process routes by; never waits on ZooKeeper once known."""
    return shard_map_document().get()


def initial_map() -> ShardMap:
    """The map ``shards init`` creates: ``SHARD_COUNT`` shards over ``INITIAL_PAIRS``."""
    return ShardMap.initial(sharding_settings.SHARD_COUNT, sharding_settings.INITIAL_PAIRS)


def publish_initial_map() -> bool:
    """Create the map in ZooKeeper unless one exists; True when created."""
    return shard_map_document().create(initial_map())


def change_map(change: Callable[[ShardMap], ShardMap],
               expected_version: int | None = None) -> ShardMap:
    """Compare-and-set update of the map in ZooKeeper (fails closed when it is unreachable)."""
    return shard_map_document().update(change, expected_version)


def copy_map(root: str) -> None:
    """Create, under another ZooKeeper ``root`` (a bench's deployment of its own on the same
    hosts), the shard map this process routes by: its masters are the ones serving now."""
    zookeeper.require().create(f"{root.rstrip('/')}/{MAP_NODE}",
                               ShardMap.dumps(current_map()), makepath=True)
