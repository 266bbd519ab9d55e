"""Creating the smart feed's tables (idempotent, like ``feed init``): the pools table on the
pools cluster, the materialized feed's table on the primary and the standby.

>>> init_tables()
{'pools': 'created', 'primary': 'created', 'standby': 'exists'}
"""

from __future__ import annotations

from feed.exceptions import FeedUnavailable
from feed.smart.materialized import home_table
from feed.smart.pools import pools_table
from feed.smart.schema import home_families, pool_families
from feed.store.pools import CLUSTERS, POOLS
from feed.store.tables import ensure_table


def init_tables() -> dict[str, str]:
    """``created``, ``exists`` or the error, per cluster (the others are still set up)."""
    plan = [(POOLS, pools_table(), pool_families()),
            *((cluster, home_table(), home_families()) for cluster in CLUSTERS)]
    outcome: dict[str, str] = {}
    for cluster, name, families in plan:
        try:
            outcome[cluster] = ensure_table(cluster, name, families)
        except FeedUnavailable as exc:
            outcome[cluster] = f"unavailable: {exc}"
    return outcome
