"""The process's current vshard map, kept from ZooKeeper by a watched document.

Reads never wait on ZooKeeper once the map is known (watch, then the last-known-good file).
After a failed write the store asks for :func:`refresh`, which reads the node now, so a
process learns of a promotion or a move even before its watch fires.

>>> master_for(17)
'redis001a'
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cache

from coordination import registry
from coordination.documents import WatchedDocument, cache_file
from coordination.exceptions import CoordinationError, CoordinationUnavailable, named_as
from graph.conf import graph_settings
from graph.exceptions import GraphUnavailable, VShardMapConflict, VShardMapError
from graph.vshardmap import VShardMap
from graph.vshards import vshard_count
from sharding.conf import sharding_settings

_fresh_lock = threading.Lock()
_fresh: VShardMap | None = None


@cache
def vshard_map_document() -> WatchedDocument[VShardMap]:
    """The watched ``<ZK_ROOT>/vshardmap`` node (one per process)."""
    return WatchedDocument(
        graph_settings.MAP_NODE,
        cache_file(graph_settings.MAP_NODE),
        decode=VShardMap.loads,
        encode=VShardMap.dumps,
        init_command="manage.py graph init",
    )


def current_map() -> VShardMap:
    """The vshard map this process routes by (the newest it has seen)."""
    try:
        watched = vshard_map_document().get()
    except CoordinationUnavailable as exc:
        raise GraphUnavailable(str(exc)) from exc
    fresh = _fresh
    return fresh if fresh is not None and fresh.version > watched.version else watched


def master_for(vshard: int) -> str:
    return current_map().master_for(vshard)


def refresh() -> VShardMap:
    """Read the map from ZooKeeper now (keeping the cached one if ZooKeeper fails)."""
    global _fresh
    try:
        value = vshard_map_document().read_fresh()
    except CoordinationError:
        return current_map()
    with _fresh_lock:
        if _fresh is None or value.version > _fresh.version:
            _fresh = value
    return current_map()


def initial_map() -> VShardMap:
    """The map ``graph init`` creates: all vshards split evenly over ``INITIAL_PAIRS``."""
    return VShardMap.initial(vshard_count(), sharding_settings.number("SHARD_COUNT"),
                             graph_settings.INITIAL_PAIRS)


def publish_initial_map() -> bool:
    """Create the map in ZooKeeper unless one exists; True when created."""
    with _map_errors():
        return vshard_map_document().create(initial_map())


def change_map(change: Callable[[VShardMap], VShardMap],
               expected_version: int | None = None) -> VShardMap:
    """Compare-and-set update of the map (fails closed when ZooKeeper is unreachable)."""
    with _map_errors():
        return vshard_map_document().update(change, expected_version)


def read_fresh() -> VShardMap:
    """The map as ZooKeeper holds it now (operations read this before changing it)."""
    with _map_errors():
        return vshard_map_document().read_fresh()


def _map_errors() -> AbstractContextManager[None]:
    return named_as(GraphUnavailable, VShardMapConflict,
                    "the vshard map changed meanwhile; run the command again")


def address_of(instance: str) -> tuple[str, int]:
    """The ``(host, port)`` of a Redis instance: configured, or registered
    (:mod:`coordination.registry`; a process reaches one registered after it started)."""
    hosts = graph_settings.REDIS_HOSTS
    if instance in hosts:
        host, port = hosts[instance]
        return str(host), int(port)
    found = registry.lookup("redis", instance)
    if found is None:
        raise VShardMapError(f"Redis instance {instance} is neither configured "
                             f"(PINSITE_REDIS_GRAPH_HOSTS) nor registered (manage.py graph "
                             "hosts add)")
    return found


def configured_instances() -> dict[str, tuple[str, int]]:
    """The configured instances (``PINSITE_REDIS_GRAPH_HOSTS``), which seed the registry."""
    return {name: (str(host), int(port))
            for name, (host, port) in graph_settings.REDIS_HOSTS.items()}


def instance_addresses() -> dict[str, tuple[str, int]]:
    """Every instance this process can reach: the registered ones and the configured ones."""
    return {**registry.registered("redis"), **configured_instances()}

