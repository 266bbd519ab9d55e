"""Helpers for sharding tests: objects placed on chosen shards, per-host query capture."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from django.conf import settings
from django.db import connections
from django.test.utils import CaptureQueriesContext

from sharding import registry
from sharding.hosts import require_alias
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
