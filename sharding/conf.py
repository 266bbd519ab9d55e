"""Sharding settings: the ``PINSITE_SHARDING`` dict, resolved lazily with defaults in code.

>>> from sharding.conf import sharding_settings
>>> sharding_settings.SHARD_COUNT
512
"""

from __future__ import annotations

from typing import Any

from toolkit.settings import Settings

DEFAULTS: dict[str, Any] = {
    "SHARD_COUNT": 512,
    "INITIAL_PAIRS": [],
    "ADMIN_USER": "root",
    "ADMIN_PASSWORD": "",
    "PROMOTE_WAIT_SECONDS": 60,
    # How long a use of a fenced shard (one moving to another host) waits for the move.
    "FENCE_WAIT_SECONDS": 10,
    # The replication account a new host uses to copy a master's shards (``shards split``).
    "REPL_USER": "repl",
    "REPL_PASSWORD": "repl",
    "OBJECT_CACHE": "objects",
    "LIST_CACHE": "lists",
    "LIST_CACHE_SIZE": 200,
    "CACHE_VERSION": 1,
}


sharding_settings = Settings("PINSITE_SHARDING", DEFAULTS)
