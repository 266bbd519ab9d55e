"""The one error kind every layer shares: a store that cannot answer now.

Each store's own "unavailable" error (a shard host, the shard map, the graph's Redis, an HBase
cluster) is also a :class:`StoreUnavailable`, so that code below the apps (the queue workers'
log lines, :mod:`toolkit.logs`) can tell an outage, which the work's retries ride out, from a
bug, without knowing the apps.
"""


class StoreUnavailable(Exception):
    """A store could not be reached, timed out, or failed the call: worth retrying later."""
