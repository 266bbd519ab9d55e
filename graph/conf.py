"""Graph settings: the ``PINSITE_GRAPH`` dict, resolved lazily with defaults in code.

>>> from graph.conf import graph_settings
>>> graph_settings.VSHARD_COUNT
8192
"""

from __future__ import annotations

from typing import Any

from toolkit import paging
from toolkit.settings import Settings

DEFAULTS: dict[str, Any] = {
    "REDIS_HOSTS": {},
    "SENTINELS": [],
    "INITIAL_PAIRS": [],
    "VSHARD_COUNT": 8192,
    "MAP_NODE": "vshardmap",
    "SOCKET_TIMEOUT": 2.0,
    "CONNECT_TIMEOUT": 1.0,
    "WRITE_ATTEMPTS": 6,
    "RETRY_DELAY": 0.05,
    "RETRY_MAX_DELAY": 1.0,
    # How long a write waits for the follower's lock (below the MySQL read timeout, 5 s: the
    # wait is a statement on the follower's shard host).
    "LOCK_SECONDS": 4,
    "MAX_BATCH": 100,
    "PAGE_SIZE": 50,
    "MAX_PAGE": 1000,
    "FENCE_SECONDS": 30,
    "MOVED_FENCE_SECONDS": 86400,
    "PROMOTE_WAIT_SECONDS": 30,
    # The promoted instance's vshards stay fenced while they are rebuilt from the edge log,
    # at most this long (the fence expires if the promotion dies half-way).
    "RECONCILE_FENCE_SECONDS": 60,
    # The reconcile reads the edge log's changes since the promoted replica's stamp (the
    # orchestrator writes one on every master each round) less this margin, which covers a
    # write whose Redis step ran well after its log commit (retries, fence waits) and clock
    # differences between hosts. Without a stamp, it reads the whole log of those vshards.
    "RECONCILE_TAIL_MARGIN_SECONDS": 60,
    # A write refused by that fence waits for it this long before its refusals count against
    # WRITE_ATTEMPTS (below LOCK_SECONDS: the follow holds its lock meanwhile).
    "RECONCILE_WAIT_SECONDS": 3,
}

graph_settings = Settings("PINSITE_GRAPH", DEFAULTS)


def page_size(limit: int | None) -> int:
    """A checked page size of the graph's lists (:func:`toolkit.paging.page_size`)."""
    return paging.page_size(limit, default=graph_settings.number("PAGE_SIZE"),
                            maximum=graph_settings.number("MAX_PAGE"))
