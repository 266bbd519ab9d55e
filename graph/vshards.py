"""Virtual shards: which of the 8,192 vshards an object's graph keys live in.

A vshard is the object's MySQL shard modulo the vshard count. A user's boards live on the
user's MySQL shard, so a user and all of that user's boards share a vshard, and every update
about one user and their boards runs on one Redis instance, atomically.

>>> vshard_of(241294492511762325)  # shard 3429
3429
"""

from __future__ import annotations

from graph.conf import graph_settings
from sharding.ids import MAX_ID, SHARD_SHIFT, shard_of


def vshard_count() -> int:
    return graph_settings.number("VSHARD_COUNT")


def vshard_of(object_id: int) -> int:
    """The vshard of a user or board ID (pure arithmetic, no I/O)."""
    if type(object_id) is int and 0 < object_id <= MAX_ID:
        return vshard_of_shard(object_id >> SHARD_SHIFT)
    return vshard_of_shard(shard_of(object_id))


def vshard_of_shard(shard: int) -> int:
    """The vshard that the users and boards of a logical MySQL shard belong to."""
    return shard % vshard_count()
