"""Recomputing a feed from the graph and the boards' pins: repair, and refill when removals
left a trimmed feed short of its cap.

The target is the newest :func:`~feed.trim.keep` pins of every board the user follows now. The
rebuild writes it and deletes everything else in the row in one mutation stamped *now* (its
puts land before its deletes), so it overrides older delete markers (a trim's, say) but not
later ones. It holds the follower's graph lock meanwhile, so no follow or unfollow of that user
is half applied (logged with an earlier time but not yet visible) while the target is computed.

>>> rebuild("primary", alice)
Rebuilt(entries=1050, removed=3)
>>> rebuild_feeds([alice, bob], ["primary", "standby"])[("standby", bob)]
Rebuilt(entries=40, removed=0)
>>> refill("standby", alice)   # rebuilds only if the feed is short
False
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
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
    return targets([user_id])[user_id]


def targets(user_ids: Sequence[int]) -> dict[int, Target]:
    """:func:`target` of several users, their boards' pins read together (one query per host
    for the heads of every board they follow)."""
    size = trim.keep()
    followed = sources.followed_boards_of(user_ids)
    pins = sources.newest_pins(set().union(*followed.values()), size + 1)
    found = {}
    for user, boards in followed.items():
        ordered = newest_first(list({entry for board in boards for entry in pins[board]}))
        found[user] = Target(ordered[:size],
                             ordered[size].qualifier if len(ordered) > size else None)
    return found


def rebuild(cluster: Cluster, user_id: int) -> Rebuilt:
    """Make the user's feed on ``cluster`` equal to :func:`target`."""
    return rebuild_feeds([user_id], [cluster])[(cluster, user_id)]


def rebuild_feeds(user_ids: Iterable[int], clusters: Sequence[Cluster],
                  ) -> dict[tuple[Cluster, int], Rebuilt]:
    """Rebuild the feeds of several users on each of ``clusters``: their follows are paused
    together (the locks of a host's users taken by one statement), each target is computed
    once, and each cluster gets one multi-row read and one write of every feed's change (and a
    second for the horizons)."""
    users = sorted(set(user_ids))
    done = {}
    with sources.follows_paused(users):
        now = now_us()
        goals = targets(users)
        for cluster in clusters:
            rows = storage.read_feeds(cluster, users)
            changes, horizons = {}, {}
            for user in users:
                goal, row = goals[user], rows[user]
                wanted = set(goal.entries)
                stale = [entry for entry in row.entries if entry not in wanted]
                changes[user] = storage.Change(add=goal.entries, remove=stale,
                                               drop_horizons=row.horizon_columns)
                if goal.horizon is not None:
                    horizons[user] = storage.Change(horizons=[goal.horizon])
                done[(cluster, user)] = Rebuilt(len(goal.entries), len(stale))
            storage.change_feeds(cluster, changes, now)
            if horizons:
                storage.change_feeds(cluster, horizons, now + 1)
            for user in users:
                if rows[user].writes:  # writes counted since the read stay counted: a trim
                    storage.reset_writes(cluster, user, rows[user].writes)  # takes them
    return done


def is_short(cluster: Cluster, user_id: int) -> bool:
    """Whether removals left the complete part of a trimmed feed below the cap."""
    return storage.read_feed(cluster, user_id).is_short()


def refill(cluster: Cluster, user_id: int) -> bool:
    """Rebuild the feed if it is short; True if it was rebuilt."""
    if not is_short(cluster, user_id):
        return False
    rebuild(cluster, user_id)
    return True
