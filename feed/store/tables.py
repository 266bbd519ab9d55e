"""Creating the feed table on a cluster (idempotent) and operator calls on it.

Every family is created with the region server's block cache on. The Thrift gateway's column
descriptor has it off unless asked (happybase sends that default), and without it every read
that reaches a stored file reads and parses its 64 KB block again: a meta row of the pools
read in about 85 µs of the region server's CPU instead of 25 (BENCHMARKS.md, "The block
cache"). A table made before keeps its families as they are; :func:`ensure_table` names the
families without it, and an operator turns it on (``python3 -m devstack hbase hbase3
block-cache pinsite_pools`` on the development stack, HBase's ``alter`` elsewhere).

>>> ensure_table("primary")
'created'
"""

from __future__ import annotations

from typing import Any

from feed.exceptions import FeedSchemaError
from feed.schema import families
from feed.store.pools import AnyCluster, ddl_connection, feed_table

Families = dict[str, dict[str, int]]
CACHED = {"block_cache_enabled": True}
"""Added to every family a table is created with (see above)."""


def ensure_table(cluster: AnyCluster, name: str | None = None,
                 wanted: Families | None = None) -> str:
    """Create a table (the feed table and its families by default) on ``cluster`` unless it
    exists: ``created``, ``exists``, or ``exists`` with the families whose block cache is
    off.

    An existing table must have the wanted column families, or :class:`FeedSchemaError`."""
    name = name or feed_table()
    wanted = wanted or families()
    with ddl_connection(cluster) as conn:
        if name.encode() not in conn.tables():
            conn.create_table(name, {family: {**options, **CACHED}
                                     for family, options in wanted.items()})
            return "created"
        found = _block_cache(conn.table(name).families())
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise FeedSchemaError(f"table {name} on the {cluster} cluster lacks the column "
                              f"families {', '.join(missing)}")
    uncached = sorted(family for family, cached in found.items() if not cached)
    if uncached:
        return f"exists, block cache off in families {', '.join(uncached)}"
    return "exists"


def block_cache(cluster: AnyCluster, name: str) -> dict[str, bool]:
    """Whether each family of the table ``name`` on ``cluster`` has the block cache on."""
    with ddl_connection(cluster) as conn:
        return _block_cache(conn.table(name).families())


def _block_cache(found: dict[bytes, dict[str, Any]]) -> dict[str, bool]:
    return {family.decode().rstrip(":"): bool(options.get("block_cache_enabled"))
            for family, options in found.items()}


def drop_table(cluster: AnyCluster, name: str) -> None:
    """Disable and delete the table ``name`` on ``cluster`` (a bench's scratch table)."""
    with ddl_connection(cluster) as conn:
        conn.delete_table(name, disable=True)
