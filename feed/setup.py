"""Creating the feed's tables on every cluster (idempotent, like ``shards init``).

>>> init_tables()
{'primary': 'created', 'standby': 'exists'}
"""

from __future__ import annotations

from feed.exceptions import FeedUnavailable
from feed.store.pools import CLUSTERS
from feed.store.tables import ensure_table


def init_tables() -> dict[str, str]:
    """Create the feed table on each cluster that lacks it: ``created``, ``exists``, or the
    error of a cluster that cannot be reached (the others are still set up)."""
    outcome: dict[str, str] = {}
    for cluster in CLUSTERS:
        try:
            outcome[cluster] = ensure_table(cluster)
        except FeedUnavailable as exc:
            outcome[cluster] = f"unavailable: {exc}"
    return outcome
