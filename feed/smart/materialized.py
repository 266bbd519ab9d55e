"""The materialized feed: the frozen view of what a pinner was shown, newest chunk first.

It lives on the primary and standby clusters (table ``<prefix>_home``), written by each
cluster's own queue like the following feed and read speculatively, so it answers while the
pools cluster or the generator is down. A write adds a chunk, keeps each pin only where it was
shown last (two visits close together, before the queue applied the first, can both show it),
and trims the row to ``HOME_CAP`` entries. A visit has read the whole row to pick its chunk,
so it names the entries its chunk pushes out (:func:`excess`) and the write puts and deletes
in one call; a write that is not told reads the row to find them. Visits close together each
trim from what they read, so until the next visit the row can pass the cap by the chunks in
flight and hold a pin twice; :func:`read` shows each pin once.

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
    """The whole materialized feed of a user on ``cluster``, newest first, each pin where it
    was shown last (one row read)."""
    return unique(read_all(cluster, user_id))


def read_all(cluster: Cluster, user_id: int) -> list[Shown]:
    """Every entry of the user's row on ``cluster``, newest first, older showings of a pin
    included (what :func:`excess` is found among)."""
    found = rows.read_row(cluster, home_table(), user_row(user_id), [HOME_PREFIX[:-1]])
    return [Shown.from_cell(column, found[column]) for column in sorted(found)]


def unique(entries: Sequence[Shown]) -> list[Shown]:
    """``entries`` (newest first) without the older showings of a pin."""
    seen: set[int] = set()
    kept = []
    for entry in entries:
        if entry.pin_id not in seen:
            seen.add(entry.pin_id)
            kept.append(entry)
    return kept


def excess(entries: Sequence[Shown]) -> list[Shown]:
    """Of a row's entries, newest first, those a trim drops: older showings of a pin and
    every entry past the cap."""
    cap = home_cap()
    dropped: list[Shown] = []
    seen: set[int] = set()
    for entry in entries:  # one pass: a visit's request runs it over the whole row
        if entry.pin_id in seen or len(seen) >= cap:
            dropped.append(entry)
        seen.add(entry.pin_id)
    return dropped


def write(cluster: Cluster, user_id: int, chunk: Sequence[Shown],
          trimmed: Sequence[Shown] | None = None) -> int:
    """Add a chunk to the user's materialized feed, drop older showings of the same pins and
    trim it to the cap; returns how many entries went. ``trimmed``: the entries to drop, as
    the visit found them (:func:`excess` of the chunk and the row it read), put and deleted
    in one call; None reads the row after the put to find them."""
    row = user_row(user_id)
    if trimmed is not None:
        dropped = {entry.column for entry in trimmed}
        rows.write(cluster, home_table(),
                   puts={row: {shown.column: shown.value for shown in chunk
                               if shown.column not in dropped}},
                   deletes={row: list(dropped)})
        return len(dropped)
    if chunk:
        rows.write(cluster, home_table(),
                   puts={row: {shown.column: shown.value for shown in chunk}})
    excess_columns = [entry.column for entry in excess(read_all(cluster, user_id))]
    if excess_columns:
        rows.write(cluster, home_table(), deletes={row: excess_columns})
    return len(excess_columns)


def forget(cluster: Cluster, user_id: int) -> None:
    """Delete a user's materialized feed (account deletion, rebuilds)."""
    rows.delete_row(cluster, home_table(), user_row(user_id))
