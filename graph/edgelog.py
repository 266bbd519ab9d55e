"""The durable edge log on the follower's MySQL shard: recording actions and reading rows.

Every action runs under the follower's lock (a MySQL named lock on the follower's shard
host), writes its rows in one transaction, and reads from the same log what Redis must
derive from it (does the follower follow the board's owner, which of the owner's boards it
follows explicitly and since when). A change records its domain event in that transaction.

>>> with follower_lock(alice):
...     change = record_user_follow(alice, bob)
>>> change.changed, change.time_us
(True, 1718000000000000)
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from events.record import Event
from graph import events
from graph.conf import graph_settings
from graph.events import Action, TargetKind
from graph.exceptions import GraphUnavailable
from graph.lookup import board_owners
from graph.tables import USER_FOLLOWS_BOARD, USER_FOLLOWS_USER, USER_UNFOLLOWS_BOARD
from pins.types import BOARD
from sharding import mappings
from sharding.hosts import atomic
from sharding.ids import MAX_LOCAL, compose, shard_of
from sharding.locks import LockNotGranted, named_locks
from sharding.mappings import Edges, Entry, MappingTable
from toolkit.clock import now_us
from toolkit.paging import Page

Row = tuple[int, int, int]


@dataclass(frozen=True)
class LogChange:
    """What one action did to the log, and the log facts its Redis update needs."""

    changed: bool
    time_us: int
    follows_owner: bool = False
    board_follows: dict[int, int] = field(default_factory=dict)
    cleared_unfollows: list[int] = field(default_factory=list)
    event: Event | None = None


@contextmanager
def follower_lock(follower: int, ahead: bool = False) -> Iterator[None]:
    """Serialise the graph writes of one follower (log write and Redis update together): a
    named lock on the follower's shard (:func:`sharding.locks.named_lock`, whose ``ahead``
    saves a round trip on the follow path)."""
    with followers_locked([follower], ahead):
        yield


@contextmanager
def followers_locked(followers: Collection[int], ahead: bool = False) -> Iterator[None]:
    """:func:`follower_lock` of many followers whose shards are on one host (a bulk write
    there): taken in ID order by one statement, released by one."""
    ordered = sorted(set(followers))
    try:
        with named_locks(shard_of(ordered[0]), [lock_name(follower) for follower in ordered],
                         graph_settings.number("LOCK_SECONDS"), ahead=ahead):
            yield
    except LockNotGranted as exc:
        shown = ordered[0] if len(ordered) == 1 else f"{ordered[0]} (of {len(ordered)})"
        raise GraphUnavailable(f"user {shown} has another graph write in progress") from exc


def lock_name(follower: int) -> str:
    """The named lock that serialises one follower's graph writes."""
    return f"pinsite.graph.{int(follower)}"


def record_user_follow(follower: int, target: int) -> LogChange:
    """One transaction of two waits: the edge's insert and its event (recorded only if the
    edge is new) are sent ahead, unanswered, and the one query that reads the edge's time and
    the follower's rows of the target's boards reads their answers with its own; then the
    commit."""
    with atomic(shard_of(follower)):
        now = now_us()
        added = mappings.add_ahead(USER_FOLLOWS_USER, follower, target, now)
        pending = events.follow_changed_if(added, follower, target, "user", "follow", now)
        held, rows = mappings.find_edges([Edges(USER_FOLLOWS_USER, follower, (target,)),
                                          _owner_range(USER_FOLLOWS_BOARD, follower, target)])
    return LogChange(added.changed > 0, held.get(target, now),
                     board_follows=_owned(rows, target, _owners_in([rows])),
                     event=pending.event())


def log_user_follows(pairs: Sequence[tuple[int, int]]) -> list[LogChange]:
    """:func:`record_user_follow` of many ``(follower, target)`` pairs (an import), inside
    the open transaction of the followers' one host and under their locks, as one call after
    the other would log them (a pair given twice is made by the first). Where one follow
    inserts its row and reads whether it was new, many read what the log holds by one query
    for the host first, then write the new rows by one insert per shard (sent unanswered) and
    the events by one outbox insert: what the query read stays so until the commit, as every
    write of a follower's rows holds the follower's lock. (One follow made this way measured
    slower in ``bench graph``, so the single record keeps inserting first.)"""
    now = now_us()
    follows, ranges = _found_per_pair(2, mappings.find_edges(
        [Edges(USER_FOLLOWS_USER, follower, (target,)) for follower, target in pairs]
        + [_owner_range(USER_FOLLOWS_BOARD, follower, target) for follower, target in pairs]))
    owners = _owners_in(ranges)
    made: dict[tuple[int, int], int] = {}
    changes = []
    for (follower, target), held, rows in zip(pairs, follows, ranges, strict=True):
        time_us = _logged(made, follower, target, held, now)
        changes.append(LogChange(time_us is None, now if time_us is None else time_us,
                                 board_follows=_owned(rows, target, owners)))
    mappings.add_many(USER_FOLLOWS_USER, [(*pair, now) for pair in made])
    return _with_events(changes, [(follower, target, "user") for follower, target in pairs])


def log_board_follows(triples: Sequence[tuple[int, int, int]]) -> list[LogChange]:
    """:func:`record_board_follow` of many ``(follower, board, owner)``, as
    :func:`log_user_follows` logs many follows of users."""
    now = now_us()
    follows, marks, owner_follows, ranges = _found_per_pair(4, mappings.find_edges(
        [Edges(USER_FOLLOWS_BOARD, follower, (board,)) for follower, board, _ in triples]
        + [Edges(USER_UNFOLLOWS_BOARD, follower, (board,)) for follower, board, _ in triples]
        + [Edges(USER_FOLLOWS_USER, follower, (owner,)) for follower, _, owner in triples]
        + [_owner_range(USER_FOLLOWS_BOARD, follower, owner) for follower, _, owner in triples]))
    owners = _owners_in(ranges)
    made: dict[tuple[int, int], int] = {}
    made_of_owner: dict[tuple[int, int], dict[int, int]] = {}
    unmarked: set[tuple[int, int]] = set()
    changes = []
    for index, (follower, board, owner) in enumerate(triples):
        time_us = _logged(made, follower, board, follows[index], now)
        if time_us is None:
            made_of_owner.setdefault((follower, owner), {})[board] = now
        marked = board in marks[index] and (follower, board) not in unmarked
        if marked:
            unmarked.add((follower, board))
        board_follows = {**_owned(ranges[index], owner, owners),
                         **made_of_owner.get((follower, owner), {})}
        changes.append(LogChange(time_us is None or marked, now if time_us is None else time_us,
                                 owner in owner_follows[index], board_follows))
    mappings.add_many(USER_FOLLOWS_BOARD, [(*pair, now) for pair in made])
    mappings.remove_many(USER_UNFOLLOWS_BOARD, sorted(unmarked))
    return _with_events(changes, [(follower, board, "board") for follower, board, _ in triples])


def _found_per_pair(lookups: int, found: list[dict[int, int]]) -> list[list[dict[int, int]]]:
    """:func:`mappings.find_edges`' answer to ``lookups`` lookups asked for every follow of a
    call (each lookup's for all the follows, then the next one's), one list per lookup."""
    size = len(found) // lookups
    return [found[size * lookup:size * (lookup + 1)] for lookup in range(lookups)]


def _logged(made: dict[tuple[int, int], int], follower: int, target: int,
            held: dict[int, int], now: int) -> int | None:
    """When ``follower``'s row of ``target`` was logged: by the log (``held``, its rows read)
    or by an earlier follow of the same call (``made``); None for a new row, which ``made``
    then holds at ``now``."""
    time_us = held.get(target, made.get((follower, target)))
    if time_us is None:
        made[follower, target] = now
    return time_us


def _with_events(changes: list[LogChange], targets: list[tuple[int, int, TargetKind]],
                 ) -> list[LogChange]:
    """``changes`` with the events of the changed ones, recorded by one outbox insert."""
    changed = [index for index, change in enumerate(changes) if change.changed]
    recorded = events.follows_changed(
        [(targets[index][0], targets[index][1], targets[index][2], "follow",
          changes[index].time_us) for index in changed])
    for index, event in zip(changed, recorded, strict=True):
        changes[index] = replace(changes[index], event=event)
    return changes


def record_user_unfollow(follower: int, target: int) -> LogChange:
    with atomic(shard_of(follower)):
        now = now_us()
        removed = mappings.remove(USER_FOLLOWS_USER, follower, target)
        cleared = list(_of_owner(USER_UNFOLLOWS_BOARD, follower, target))
        for board in cleared:
            mappings.remove(USER_UNFOLLOWS_BOARD, follower, board)
        board_follows = board_follows_of_owner(follower, target)
        event = _event(removed, follower, target, "user", "unfollow", now)
    return LogChange(removed, now, board_follows=board_follows, cleared_unfollows=cleared,
                     event=event)


def record_board_follow(follower: int, board: int, owner: int) -> LogChange:
    with atomic(shard_of(follower)):
        now = now_us()
        added = mappings.add(USER_FOLLOWS_BOARD, follower, board, now)
        time_us = now if added else _sequence(USER_FOLLOWS_BOARD, follower, board)
        unmarked = mappings.remove(USER_UNFOLLOWS_BOARD, follower, board)
        follows_owner = mappings.contains(USER_FOLLOWS_USER, follower, owner)
        board_follows = board_follows_of_owner(follower, owner)
        event = _event(added or unmarked, follower, board, "board", "follow", time_us)
    return LogChange(added or unmarked, time_us, follows_owner, board_follows, event=event)


def record_board_unfollow(follower: int, board: int, owner: int) -> LogChange:
    with atomic(shard_of(follower)):
        now = now_us()
        removed = mappings.remove(USER_FOLLOWS_BOARD, follower, board)
        follows_owner = mappings.contains(USER_FOLLOWS_USER, follower, owner)
        marked = follows_owner and mappings.add(USER_UNFOLLOWS_BOARD, follower, board, now)
        board_follows = board_follows_of_owner(follower, owner)
        event = _event(removed or marked, follower, board, "board", "unfollow", now)
    return LogChange(removed or marked, now, follows_owner, board_follows, event=event)


def record_board_forget(follower: int, board: int, owner: int) -> LogChange:
    """A deleted board's rows of one follower go: its follow and its unfollow mark. An explicit
    follow that goes is announced as an unfollow (the feed sweeps the board's pins)."""
    with atomic(shard_of(follower)):
        now = now_us()
        removed = mappings.remove(USER_FOLLOWS_BOARD, follower, board)
        unmarked = mappings.remove(USER_UNFOLLOWS_BOARD, follower, board)
        follows_owner = mappings.contains(USER_FOLLOWS_USER, follower, owner)
        board_follows = board_follows_of_owner(follower, owner)
        event = _event(removed, follower, board, "board", "unfollow", now)
    return LogChange(removed or unmarked, now, follows_owner, board_follows, event=event)


def _event(changed: bool, follower: int, target: int, kind: TargetKind, action: Action,
           time_us: int) -> Event | None:
    return events.follow_changed(follower, target, kind, action, time_us) if changed else None


def _sequence(table: MappingTable, from_id: int, to_id: int) -> int:
    sequence = mappings.sequence_of(table, from_id, to_id)
    return now_us() if sequence is None else sequence


def board_follows_of_owner(follower: int, owner: int) -> dict[int, int]:
    """``board → time`` of the follower's explicit follows of ``owner``'s boards."""
    return _of_owner(USER_FOLLOWS_BOARD, follower, owner)


def _of_owner(table: MappingTable, follower: int, owner: int) -> dict[int, int]:
    """Rows of ``follower`` in ``table`` whose board belongs to ``owner``."""
    [rows] = mappings.find_edges([_owner_range(table, follower, owner)])
    return _owned(rows, owner, _owners_in([rows]))


def _owner_range(table: MappingTable, follower: int, owner: int) -> Edges:
    """The rows of ``follower`` in ``table`` that may be of ``owner``'s boards (a range scan on
    the primary key: an owner's boards all live on the owner's shard)."""
    shard = shard_of(owner)
    return Edges(table, follower, between=(compose(shard, BOARD.type_id, 1),
                                           compose(shard, BOARD.type_id, MAX_LOCAL)))


def _owners_in(found: Sequence[dict[int, int]]) -> dict[int, int]:
    """``board → owner`` of the boards in ``found`` (rows of :func:`_owner_range`)."""
    boards = [board for rows in found for board in rows]
    return board_owners(boards, strict=False) if boards else {}


def _owned(rows: dict[int, int], owner: int, owners: dict[int, int]) -> dict[int, int]:
    return {board: time_us for board, time_us in rows.items() if owners.get(board) == owner}


def board_follow_rows(follower: int, boards: Collection[int], owners: Collection[int],
                      ) -> tuple[set[int], set[int], set[int]]:
    """Of ``boards`` and their ``owners``, what the log holds for ``follower``: the boards it
    follows explicitly, the boards it marked unfollowed, the owners it follows. One query on
    the follower's shard, whatever Redis holds: what the log committed is the truth even while
    the graph's Redis is behind it (a write that failed, a promoted replica not reconciled)."""
    explicit, unfollowed, owners_followed = mappings.held(follower, [
        (USER_FOLLOWS_BOARD, boards), (USER_UNFOLLOWS_BOARD, boards),
        (USER_FOLLOWS_USER, owners)])
    return explicit, unfollowed, owners_followed


def followed_boards_page(follower: int, limit: int, after: str | None) -> Page[Entry]:
    """The boards the follower follows explicitly, newest first (``InvalidCursor`` for a
    cursor that is not one)."""
    return mappings.page(USER_FOLLOWS_BOARD, follower, limit=limit, after=after)


def unfollowed_boards_page(follower: int, limit: int, after: str | None) -> Page[Entry]:
    """The boards the follower unfollowed while following their owners, newest first
    (``InvalidCursor`` for a cursor that is not one)."""
    return mappings.page(USER_UNFOLLOWS_BOARD, follower, limit=limit, after=after)


def rows_of_follower(table: MappingTable, follower: int) -> list[Row]:
    """Every row of one follower in ``table``."""
    return [(follower, entry.to_id, entry.sequence)
            for entry in mappings.iterate(table, follower)]
