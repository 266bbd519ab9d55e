"""The Django database router: shard numbers and object IDs (as hints) → the master's alias.

Django's own tables live on ``default``; shard hosts never get migrations. The arithmetic is in
:mod:`sharding.ids` and the map lookup in :mod:`sharding.shardmap`: no I/O happens here once the
shard map is cached.

>>> from django.db import router
>>> router.db_for_write(None, object_id=241294492511762325)
'mysql002a'
"""

from __future__ import annotations

from typing import Any

from sharding.hosts import alias_for_shard
from sharding.ids import shard_of


def alias_from_hints(hints: dict[str, Any]) -> str | None:
    """The alias for a ``shard`` or ``object_id`` hint; ``None`` (no opinion) without one."""
    if hints.get("shard") is not None:
        return alias_for_shard(int(hints["shard"]))
    if hints.get("object_id") is not None:
        return alias_for_shard(shard_of(int(hints["object_id"])))
    return None


class ShardRouter:
    """Routes sharded access by hints; keeps migrations off the shard hosts."""

    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        return alias_from_hints(hints)

    def db_for_write(self, model: Any, **hints: Any) -> str | None:
        return alias_from_hints(hints)

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        return None

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None,
                      **hints: Any) -> bool | None:
        return False if db != "default" else None  # every other alias is a shard host
