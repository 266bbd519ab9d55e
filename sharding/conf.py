"""Sharding settings: the ``PINSITE_SHARDING`` dict, resolved lazily with defaults in code.

>>> from sharding.conf import sharding_settings
>>> sharding_settings.ZK_ROOT
'/pinsite'
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

DEFAULTS: dict[str, Any] = {
    "SHARD_COUNT": 512,
    "INITIAL_PAIRS": [],
    "ZK_HOSTS": "127.0.0.1:2181",
    "ZK_ROOT": "/pinsite",
    "ZK_CONNECT_TIMEOUT": 3.0,
    "MAP_CACHE_FILE": "",
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


class Settings:
    """Attribute access to ``settings.PINSITE_SHARDING`` falling back to :data:`DEFAULTS`."""

    def __init__(self, name: str, defaults: dict[str, Any]) -> None:
        self._name = name
        self._defaults = defaults

    def __getattr__(self, key: str) -> Any:
        if key not in self._defaults:
            raise AttributeError(f"{self._name} has no setting {key!r}")
        return getattr(settings, self._name, {}).get(key, self._defaults[key])


sharding_settings = Settings("PINSITE_SHARDING", DEFAULTS)
