"""Recomputing a feed from the graph and the boards' pins: repair, and refill when removals
left a trimmed feed short of its cap.

The target is the newest :func:`~feed.trim.keep` pins of every board the user follows now. The
rebuild writes it and deletes everything else in the row in one mutation stamped *now* (its
puts land before its deletes), so it overrides older delete markers (a trim's, say) but not
later ones. It holds the follower's graph lock meanwhile, so no follow or unfollow of that user
is half applied (logged with an earlier time but not yet visible) while the target is computed.

>>> rebuild("primary", alice)
Rebuilt(entries=1050, removed=3)
>>> refill("standby", alice)   # rebuilds only if the feed is short
False
"""

from __future__ import annotations

from dataclasses import dataclass

from feed import sources, storage, trim
from feed.schema import Entry, newest_first
from feed.store.pools import Cluster
from toolkit.clock import now_us


@dataclass(frozen=True)
class Target:
    """What a feed should hold now, and the newest pin left out (its horizon), if any."""

    entries: list[Entry]
    horizon: bytes | None


@dataclass(frozen=True)
class Rebuilt:
    entries: int
    removed: int


def target(user_id: int) -> Target:
    """The newest :func:`~feed.trim.keep` pins of the boards ``user_id`` follows."""
    size = trim.keep()
    candidates: set[Entry] = set()
    for board in sources.followed_boards(user_id):
        candidates.update(sources.board_entries(board, size + 1))
    ordered = newest_first(list(candidates))
    return Target(ordered[:size], ordered[size].qualifier if len(ordered) > size else None)


def rebuild(cluster: Cluster, user_id: int) -> Rebuilt:
    """Make the user's feed on ``cluster`` equal to :func:`target`."""
    with sources.follows_paused(user_id):
        now = now_us()
        goal = target(user_id)
        row = storage.read_feed(cluster, user_id)
        wanted = set(goal.entries)
        stale = [entry for entry in row.entries if entry not in wanted]
        storage.change_feed(cluster, user_id, now, add=goal.entries, remove=stale,
                            drop_horizons=row.horizon_columns)
        if goal.horizon is not None:
            storage.change_feed(cluster, user_id, now + 1, horizons=[goal.horizon])
        if row.writes:  # writes counted since the read stay counted: a trim takes them
            storage.reset_writes(cluster, user_id, row.writes)
    return Rebuilt(len(goal.entries), len(stale))


def is_short(cluster: Cluster, user_id: int) -> bool:
    """Whether removals left the complete part of a trimmed feed below the cap."""
    return storage.read_feed(cluster, user_id).is_short()


def refill(cluster: Cluster, user_id: int) -> bool:
    """Rebuild the feed if it is short; True if it was rebuilt."""
    if not is_short(cluster, user_id):
        return False
    rebuild(cluster, user_id)
    return True
