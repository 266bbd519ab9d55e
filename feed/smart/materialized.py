"""The materialized feed: the frozen view of what a pinner was shown, newest chunk first.

It lives on the primary and standby clusters (table ``<prefix>_home``), written by each
cluster's own queue like the following feed and read speculatively, so it answers while the
pools cluster or the generator is down. A write adds a chunk, keeps each pin only where it was
shown last (two visits close together, before the queue applied the first, can both show it),
and trims the row to ``HOME_CAP`` entries.

>>> write("primary", alice, [Shown(now, 0, pin_id, "interests")])
>>> read("primary", alice)[0].pin_id == pin_id
True
"""

from __future__ import annotations

from collections.abc import Sequence

from feed.smart.conf import home_cap, table
from feed.smart.schema import HOME_PREFIX, Shown, user_row
from feed.store import rows
from feed.store.pools import Cluster


def home_table() -> str:
    return table("home")


def read(cluster: Cluster, user_id: int) -> list[Shown]:
    """The whole materialized feed of a user on ``cluster``, newest first (one row read)."""
    found = rows.read_row(cluster, home_table(), user_row(user_id), [HOME_PREFIX[:-1]])
    return [Shown.from_cell(column, found[column]) for column in sorted(found)]


def write(cluster: Cluster, user_id: int, chunk: Sequence[Shown]) -> int:
    """Add a chunk to the user's materialized feed, drop older showings of the same pins and
    trim it to the cap; returns how many entries went."""
    row = user_row(user_id)
    if chunk:
        rows.write(cluster, home_table(),
                   puts={row: {shown.column: shown.value for shown in chunk}})
    kept: list[bytes] = []
    excess: list[bytes] = []
    seen: set[int] = set()
    cap = home_cap()
    for entry in read(cluster, user_id):
        fresh = entry.pin_id not in seen and len(kept) < cap
        (kept if fresh else excess).append(entry.column)
        seen.add(entry.pin_id)
    if excess:
        rows.write(cluster, home_table(), deletes={row: excess})
    return len(excess)


def forget(cluster: Cluster, user_id: int) -> None:
    """Delete a user's materialized feed (account deletion, rebuilds)."""
    rows.delete_row(cluster, home_table(), user_row(user_id))
