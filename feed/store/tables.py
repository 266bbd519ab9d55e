"""Creating the feed table on a cluster (idempotent) and operator calls on it.

>>> ensure_table("primary")
True
"""

from __future__ import annotations

from feed.exceptions import FeedSchemaError
from feed.schema import families
from feed.store.pools import AnyCluster, ddl_connection, feed_table

Families = dict[str, dict[str, int]]


def ensure_table(cluster: AnyCluster, name: str | None = None,
                 wanted: Families | None = None) -> bool:
    """Create a table (the feed table and its families by default) on ``cluster`` unless it
    exists; True if it was created.

    An existing table must have the wanted column families, or :class:`FeedSchemaError`."""
    name = name or feed_table()
    wanted = wanted or families()
    with ddl_connection(cluster) as conn:
        if name.encode() not in conn.tables():
            conn.create_table(name, wanted)
            return True
        found = {family.decode().rstrip(":") for family in conn.table(name).families()}
    missing = sorted(set(wanted) - found)
    if missing:
        raise FeedSchemaError(f"table {name} on the {cluster} cluster lacks the column "
                              f"families {', '.join(missing)}")
    return False


def drop_table(cluster: AnyCluster, name: str) -> None:
    """Disable and delete the table ``name`` on ``cluster`` (a bench's scratch table)."""
    with ddl_connection(cluster) as conn:
        conn.delete_table(name, disable=True)
