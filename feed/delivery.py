"""Writing one pin into (or out of) a chunk of followers' feeds on one cluster.

A delivery re-checks the follow edges of the whole chunk in the graph first (one round trip),
so a pin never lands in the feed of someone who unfollowed, even after a major compaction has
purged the unfollow's delete markers; it also skips a pin that no longer exists. Then it is one
batch put: cells carry the pin's creation time, so a later unfollow's or deletion's delete
markers mask a delivery that arrives late. The writes are counted afterwards, in their own
message (:func:`feed.trim.count_writes`). Both calls are idempotent: an entry is one cell.

>>> deliver("primary", pin_id, board_id, created_us, [alice, bob])
[alice, bob]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from feed import sources, storage, trim
from feed.schema import Entry
from feed.store.pools import Cluster
from toolkit.clock import now_us

CELLS_PER_WRITE = 20_000
"""Feed cells per batch put of a backlog (users x pins)."""


def deliver(cluster: Cluster, pin_id: int, board_id: int, created_us: int,
            followers: Sequence[int]) -> list[int]:
    """Put the pin into the feeds of those ``followers`` who still follow its board; returns
    the users whose feeds got it."""
    if not followers or not sources.existing_pins([pin_id]):
        return []
    receiving = sorted(sources.followers_among(board_id, followers))
    if receiving:
        entry = Entry(created_us=created_us, pin_id=pin_id)
        storage.add_entry(cluster, receiving, entry, timestamp=created_us)
    return receiving


@dataclass(frozen=True)
class Backlog:
    """A board's pins for a chunk of its followers (a drained celebrity board): those who
    still follow it, the pins that still exist, and when the follows were checked."""

    receiving: list[int]
    entries: list[Entry]
    checked_us: int


def check_backlog(board_id: int, entries: Sequence[Entry], followers: Sequence[int],
                  ) -> Backlog:
    """Which of ``followers`` still follow the board and which of ``entries`` still exist
    (once for every cluster the backlog is then written to)."""
    checked_us = now_us()
    receiving = sorted(sources.followers_among(board_id, followers))
    alive = sources.existing_pins(entry.pin_id for entry in entries) if receiving else {}
    return Backlog(receiving, [entry for entry in entries if entry.pin_id in alive],
                   checked_us)


def write_backlog(cluster: Cluster, backlog: Backlog) -> list[int]:
    """Put the backlog's pins into its receivers' feeds on ``cluster``; returns the feeds now
    due for a trim. The cells carry the time the follows were checked, so an unfollow after
    the check masks them, as it masks a follow's backfill."""
    if not backlog.receiving or not backlog.entries:
        return []
    per_write = max(1, CELLS_PER_WRITE // len(backlog.entries))
    for start in range(0, len(backlog.receiving), per_write):
        users = backlog.receiving[start:start + per_write]
        storage.add_entries(cluster, dict.fromkeys(users, backlog.entries),
                            timestamp=backlog.checked_us)
    return trim.count_writes(cluster, backlog.receiving, len(backlog.entries))


def retract(cluster: Cluster, pin_id: int, created_us: int, deleted_us: int,
            followers: Sequence[int]) -> list[int]:
    """Delete the pin from the feeds of ``followers`` at ``deleted_us``; returns the feeds that
    held it within their complete part, which may now be short (see :mod:`feed.rebuild`)."""
    if not followers:
        return []
    entry = Entry(created_us=created_us, pin_id=pin_id)
    storage.remove_entry(cluster, followers, entry, timestamp=max(deleted_us, created_us))
    horizons = storage.read_horizons(cluster, followers)
    return sorted(user for user, horizon in horizons.items() if entry.qualifier < horizon)
