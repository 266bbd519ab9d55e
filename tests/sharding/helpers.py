"""Helpers for sharding tests: objects placed on chosen shards, per-host query capture, a
shard map of the test's own."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections
from django.test.utils import CaptureQueriesContext

from coordination import registry
from coordination.documents import WatchedDocument
from coordination.zookeeper import delete_tree
from sharding import topology
from sharding.hosts import require_alias
from sharding.shardmap import ShardMap
from sharding.topology import current_map


def shard_aliases() -> list[str]:
    """Every shard host alias: the configured ones and the registered ones."""
    for name in registry.registered("mysql"):
        require_alias(name)
    return [alias for alias in settings.DATABASES if alias != "default"]


def shards_on_every_host(per_host: int) -> list[int]:
    """``per_host`` distinct open shards from each master."""
    shard_map = current_map()
    return [shard for master in shard_map.masters()
            for shard in shard_map.shards_of(master)[:per_host]]


@contextmanager
def queries_per_host(aliases: Iterable[str] | None = None,
                     ) -> Iterator[dict[str, CaptureQueriesContext]]:
    """Capture the SQL each shard host (or each database of ``aliases``) receives inside the
    block."""
    with ExitStack() as stack:
        yield {alias: stack.enter_context(CaptureQueriesContext(connections[alias]))
               for alias in (shard_aliases() if aliases is None else aliases)}


def map_name() -> str:
    """A shard map node name of the test's own."""
    return f"test-map-{uuid.uuid4().hex[:8]}"


def map_document(name: str, folder: Path) -> WatchedDocument[ShardMap]:
    """The shard map document in ZooKeeper node ``name``, its last good copy in ``folder``."""
    return WatchedDocument(name, folder / f"{name}.json", ShardMap.loads, ShardMap.dumps)


@contextmanager
def own_shard_map(folder: Path,
                  start: ShardMap | None = None) -> Iterator[WatchedDocument[ShardMap]]:
    """This process routes by a shard map of its own (a ZooKeeper node of its own, starting as
    ``start`` or a copy of the shared map), so a test can move shards without moving them for
    the other processes on the stack. Yields the map's document (``document.update(...)``)."""
    document = map_document(map_name(), folder)
    assert document.create(ShardMap((start or current_map()).ranges))
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(topology, "shard_map_document", lambda: document)
            yield document
    finally:
        delete_tree(document.path)
