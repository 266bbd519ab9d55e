"""A follow or unfollow applied to the follower's feed on one cluster.

A follow writes the newest :func:`~feed.conf.backfill_pins` pins of every board it made the
follower follow, with the *follow time* as cell timestamp. An unfollow deletes the pins of every
board the follower no longer follows with the *unfollow time* as delete timestamp. So when the
queue delivers a follow after the unfollow that undid it, the follow's cells sit below the
unfollow's delete markers and stay hidden; and each side re-checks the graph when it runs, so
the outcome does not depend on the order in which the messages arrive. The re-check reads the
edge log, not Redis: the log commits a change (with its event) before Redis takes it, so the
re-check never sees the state from before the change, even when the Redis write failed or a
promoted replica has not been reconciled yet.

>>> follow("primary", alice, "user", bob, action_time_us)
True    # due for a trim
"""

from __future__ import annotations

from dataclasses import replace

from feed import sources, storage, trim
from feed.conf import backfill_pins, cap, slack
from feed.schema import Entry
from feed.store.pools import Cluster
from sharding.ids import shard_of
from toolkit.clock import now_us


def follow(cluster: Cluster, follower_id: int, target_kind: str, target_id: int,
           action_time_us: int) -> bool:
    """Backfill the followee's newest pins; True if the feed is now due for a trim."""
    boards = sources.boards_followed_by_log(follower_id, _boards(target_kind, target_id))
    count = backfill_pins()
    entries: list[Entry] = []
    horizons: list[bytes] = []
    for board in sorted(boards):
        found = sources.board_entries(board, count + 1)
        entries += found[:count]
        horizons += [found[count].qualifier] if len(found) > count else []
    if not entries:
        return False
    storage.change_feed(cluster, follower_id, action_time_us, add=entries,
                        horizons=[min(horizons)] if horizons else [])
    writes = storage.count_writes(cluster, {follower_id: len(entries)})
    return trim.due(writes[follower_id])


def unfollow(cluster: Cluster, follower_id: int, target_kind: str, target_id: int,
             action_time_us: int) -> bool:
    """Remove the pins of the boards no longer followed, and entries of the followee's shard
    whose pin is gone; True if the feed may now be short of its cap and needs a rebuild. A
    followee without boards (a deleted account's) still has its deleted pins swept.

    A pin lives on its board's shard and a board on its owner's, so only the row's entries on
    the shards of the followee and its boards are looked up: a row of 1,000 entries from many
    followees reads the few that can be the followee's, not all of them."""
    boards = _boards(target_kind, target_id)
    gone = set(boards) - sources.boards_followed_by_log(follower_id, boards)
    if boards and not gone:
        return False
    marked = {entry for board in gone for entry in sources.board_entries(board, cap() + slack())}
    row = storage.read_feed(cluster, follower_id)
    shards = {shard_of(target_id), *(shard_of(board) for board in gone)}
    theirs = [entry for entry in row.entries if shard_of(entry.pin_id) in shards]
    pins = sources.existing_pins(entry.pin_id for entry in theirs)
    dead = [entry for entry in theirs if entry.pin_id not in pins]
    marked.update(entry for entry in theirs
                  if entry.pin_id in pins and int(pins[entry.pin_id]["board_id"]) in gone)
    if marked:
        storage.change_feed(cluster, follower_id, action_time_us, remove=sorted(
            marked, key=lambda entry: entry.qualifier))
    if dead:
        storage.change_feed(cluster, follower_id, now_us(), remove=dead)
    removed = marked.union(dead)
    return replace(row, entries=[entry for entry in row.entries if entry not in removed]).is_short()


def _boards(target_kind: str, target_id: int) -> list[int]:
    if target_kind == "board":
        return [target_id]
    if target_kind == "user":
        return sources.boards_of(target_id)
    raise ValueError(f"unknown follow target kind {target_kind!r}")
