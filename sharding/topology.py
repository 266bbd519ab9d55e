"""The process's current shard map, kept from ZooKeeper by a watched document. ZooKeeper's
failures leave here as the shard map's own errors (:class:`ShardMapUnavailable`,
:class:`ShardMapConflict`).

>>> current_map().master_for(3429)
'mysql001a'
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial

from coordination.documents import WatchedDocument, cache_file
from coordination.exceptions import CoordinationUnavailable, named_as
from coordination.zookeeper import create_node
from sharding.conf import sharding_settings
from sharding.exceptions import ShardMapConflict, ShardMapUnavailable
from sharding.shardmap import ShardMap

MAP_NODE = "shardmap"


@cache
def shard_map_document() -> WatchedDocument[ShardMap]:
    """The watched ``<ZK_ROOT>/shardmap`` node (one per process)."""
    return WatchedDocument(MAP_NODE, cache_file(MAP_NODE), decode=ShardMap.loads,
                           encode=ShardMap.dumps)


def current_map() -> ShardMap:
    """The shard map this process routes by; never waits on ZooKeeper once known."""
    try:
        return shard_map_document().get()
    except CoordinationUnavailable as exc:
        raise ShardMapUnavailable(str(exc)) from exc


def fresh_map() -> ShardMap:
    """The map as ZooKeeper holds it now (changes read this before they are made)."""
    with _map_errors():
        return shard_map_document().read_fresh()


def initial_map() -> ShardMap:
    """The map ``shards init`` creates: ``SHARD_COUNT`` shards over ``INITIAL_PAIRS``."""
    return ShardMap.initial(sharding_settings.SHARD_COUNT, sharding_settings.INITIAL_PAIRS)


def publish_initial_map() -> bool:
    """Create the map in ZooKeeper unless one exists; True when created."""
    with _map_errors():
        return shard_map_document().create(initial_map())


def change_map(change: Callable[[ShardMap], ShardMap],
               expected_version: int | None = None) -> ShardMap:
    """Compare-and-set update of the map in ZooKeeper (fails closed when it is unreachable)."""
    with _map_errors():
        return shard_map_document().update(change, expected_version)


def copy_map(root: str) -> None:
    """Create, under another ZooKeeper ``root`` (a bench's deployment of its own on the same
    hosts), the shard map this process routes by: its masters are the ones serving now."""
    with _map_errors():
        create_node(f"{root.rstrip('/')}/{MAP_NODE}", ShardMap.dumps(current_map()))


_map_errors = partial(named_as, ShardMapUnavailable, ShardMapConflict)
"""Inside the block, coordination's errors leave as the shard map's."""
