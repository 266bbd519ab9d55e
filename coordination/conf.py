"""Coordination settings: the ``PINSITE_COORDINATION`` dict, resolved lazily with defaults in
code.

>>> from coordination.conf import coordination_settings
>>> coordination_settings.ZK_ROOT
'/pinsite'
"""

from __future__ import annotations

from typing import Any

from toolkit.settings import Settings

DEFAULTS: dict[str, Any] = {
    "ZK_HOSTS": "127.0.0.1:2181",
    # The folder under ZooKeeper of this deployment's nodes.
    "ZK_ROOT": "/pinsite",
    # How long a process waits for its first ZooKeeper session (once per outage).
    "CONNECT_TIMEOUT": 3.0,
    # Where each watched document keeps its last-known-good copy (``<name>.json``); empty:
    # no copies.
    "CACHE_DIR": "",
}

coordination_settings = Settings("PINSITE_COORDINATION", DEFAULTS)
