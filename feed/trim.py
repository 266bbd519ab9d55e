"""Keeping feeds to their cap without random reads on the write path.

Writers never read a feed. Every write is counted in the row's write counter (``meta:n``):
a follow adds its entries at once, a delivery's chunk is counted right after it by its own
message (one increment call and one read of the counters per chunk). A row whose counter
reached :func:`threshold` gets a trim message. The trim, in its own actor, reads the row once,
deletes everything after the newest :func:`keep` entries, records a *horizon* (the newest
entry it removed: older entries may be missing from now on) and sets the counter back to zero
if it still holds the writes it saw.

A row therefore holds at most ``keep + threshold - 1 < CAP + SLACK`` entries once the queue has
drained, and its entries newer than the horizon are complete. Half the slack is kept as a
reserve, so a few removals (unfollows, deleted pins) do not leave the newest ``CAP`` short;
when they do, :mod:`feed.rebuild` refills the feed.

>>> keep(), threshold()   # CAP 1000, SLACK 100
(1050, 50)
"""

from __future__ import annotations

from feed import storage
from feed.conf import cap, slack
from feed.store.pools import Cluster
from toolkit.clock import now_us


def reserve() -> int:
    """Entries kept beyond the cap by a trim, for removals to eat into."""
    return slack() // 2


def keep() -> int:
    """How many entries a trim keeps."""
    return cap() + reserve()


def threshold() -> int:
    """Writes after which a row is trimmed."""
    return max(1, slack() - reserve())


def due(writes: int) -> bool:
    return writes >= threshold()


def count_writes(cluster: Cluster, user_ids: list[int], amount: int = 1) -> list[int]:
    """Count ``amount`` writes in each of the users' feeds; returns those now due for a
    trim."""
    if not user_ids:
        return []
    writes = storage.count_writes(cluster, dict.fromkeys(user_ids, amount))
    return sorted(user for user, count in writes.items() if due(count))


def trim(cluster: Cluster, user_id: int) -> int:
    """Trim one feed on ``cluster`` to :func:`keep` entries; returns how many were removed.

    The counter goes back to zero only if it still holds the writes read with the row (a
    check-and-put). If it changed meanwhile, writes were counted after the read (and the count
    that took the row past :func:`threshold` again sent another trim), or another trim of the
    row reset it first: either way a trim that read the row later covers it, and this one
    leaves the counter alone. (Taking the writes seen off the counter would take them twice
    when two trims of a row overlap, and the row would then outgrow its bound.)"""
    row = storage.read_feed(cluster, user_id)
    extra = row.entries[keep():]
    if extra:
        storage.change_feed(cluster, user_id, now_us(), remove=extra,
                            horizons=[extra[0].qualifier])
    if row.writes:
        storage.reset_writes(cluster, user_id, row.writes)
    return len(extra)
