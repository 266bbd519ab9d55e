"""Helpers for sharding tests: objects placed on chosen shards, per-host query capture."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from django.db import connections
from django.test.utils import CaptureQueriesContext

from sharding.hosts import shard_aliases
from sharding.topology import current_map


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
