"""Helpers for sharding tests: objects placed on chosen shards, per-host query capture, a
shard map of the test's own."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections
from django.test.utils import CaptureQueriesContext

from sharding import registry, topology
from sharding.coordination import WatchedDocument, zookeeper
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
def queries_per_host() -> Iterator[dict[str, CaptureQueriesContext]]:
    """Capture the SQL each shard host receives inside the block."""
    with ExitStack() as stack:
        yield {alias: stack.enter_context(CaptureQueriesContext(connections[alias]))
               for alias in shard_aliases()}


@contextmanager
def own_shard_map(monkeypatch: pytest.MonkeyPatch, folder: Path,
                  start: ShardMap | None = None) -> Iterator[WatchedDocument[ShardMap]]:
    """This process routes by a shard map of its own (a ZooKeeper node of its own, starting as
    ``start`` or a copy of the shared map), so a test can move shards without moving them for
    the other processes on the stack. Yields the map's document (``document.update(...)``)."""
    name = f"test-map-{uuid.uuid4().hex[:8]}"
    document = WatchedDocument(name, folder / f"{name}.json", ShardMap.loads, ShardMap.dumps)
    assert document.create(ShardMap((start or current_map()).ranges))
    monkeypatch.setattr(topology, "shard_map_document", lambda: document)
    try:
        yield document
    finally:
        monkeypatch.undo()
        zookeeper.require().delete(document.path)
