"""Graph writes: follow and unfollow users and boards. Views, the API, commands and workers all
call these.

Each action checks its input, then, under the follower's lock, records the change in the
edge log with its domain event (one MySQL transaction on the follower's shard) and applies it
to Redis: the follower's side, then the followee's. The event is handed to the process's
publisher thread after both (:mod:`events.publisher`), so its subscribers (the feed's fanout)
see the graph as changed, and the action does not wait for RabbitMQ. If Redis stays
unreachable through the retries, :class:`~graph.exceptions.GraphUnavailable` is raised; the
log already holds the change and its event (which the outbox relay publishes), and ``graph
verify`` / ``graph rebuild`` reconcile Redis.

>>> follow_user(alice, bob).changed
True
>>> unfollow_board(alice, bobs_recipes).action
'unfollow'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from events.publisher import publish_soon
from graph import edgelog, lookup, selectors, updates
from graph.edgelog import LogChange
from graph.events import Action, TargetKind
from graph.exceptions import GraphError, GraphNotFound, InvalidGraphInput
from graph.store.writes import apply
from graph.tables import USER_FOLLOWS_BOARD, USER_FOLLOWS_USER
from graph.updates import Step
from pins.selectors import users_by_id
from sharding.hosts import atomic_on_host, by_host
from sharding.ids import shard_of


@dataclass(frozen=True)
class FollowChange:
    """The outcome of an action; ``changed`` is False when it was already so."""

    follower_id: int
    target_id: int
    target_kind: TargetKind
    action: Action
    changed: bool
    action_time_us: int


def follow_user(follower_id: int | str, user_id: int | str) -> FollowChange:
    """``follower_id`` follows ``user_id`` and, through them, all their boards."""
    follower, target = _users(follower_id, user_id, "follow")
    change = _write(edgelog.record_user_follow, updates.follow_user, follower, target)
    return FollowChange(follower, target, "user", "follow", change.changed, change.time_us)


def unfollow_user(follower_id: int | str, user_id: int | str) -> FollowChange:
    """Stop following a user; boards of theirs followed explicitly stay followed."""
    follower, target = _users(follower_id, user_id, "unfollow")
    change = _write(edgelog.record_user_unfollow, updates.unfollow_user, follower, target)
    return FollowChange(follower, target, "user", "unfollow", change.changed, change.time_us)


def follow_board(follower_id: int | str, board_id: int | str) -> FollowChange:
    """Follow one board explicitly (its owner gains an implicit follower, unless followed)."""
    follower, board, owner = _board(follower_id, board_id, "follow")
    change = _write(edgelog.record_board_follow, updates.follow_board, follower, board, owner)
    return FollowChange(follower, board, "board", "follow", change.changed, change.time_us)


def unfollow_board(follower_id: int | str, board_id: int | str) -> FollowChange:
    """Stop following a board, also one followed only through its owner."""
    follower, board, owner = _board(follower_id, board_id, "unfollow")
    change = _write(edgelog.record_board_unfollow, updates.unfollow_board, follower, board,
                    owner)
    return FollowChange(follower, board, "board", "unfollow", change.changed, change.time_us)


def follow_users(pairs: Sequence[tuple[int, int]]) -> list[FollowChange | GraphError]:
    """Many follows of users at once (an import), ``(follower, user)`` each, as
    :func:`follow_user` makes one: see :func:`_write_many`. Returns, in order, each change or
    the input error that refused it."""
    found = users_by_id([user for pair in pairs for user in pair])
    results: list[FollowChange | GraphError | None] = [None] * len(pairs)
    writes = []
    for index, (follower, target) in enumerate(pairs):
        if follower == target:
            results[index] = InvalidGraphInput("a user cannot follow themselves")
        elif follower not in found or target not in found:
            results[index] = GraphNotFound(f"no user {target if follower in found else follower}")
        else:
            writes.append(_Write(index, follower, (target,)))
    return _made(results, _write_many(writes, edgelog.log_user_follows, updates.follow_user),
                 "user")


def follow_boards(pairs: Sequence[tuple[int, int]]) -> list[FollowChange | GraphError]:
    """Many follows of boards at once (an import), ``(follower, board)`` each, as
    :func:`follow_board` makes one: see :func:`_write_many`."""
    owners = lookup.board_owners([board for _, board in pairs], strict=False)
    found = users_by_id([follower for follower, _ in pairs])
    results: list[FollowChange | GraphError | None] = [None] * len(pairs)
    writes = []
    for index, (follower, board) in enumerate(pairs):
        owner = owners.get(board)
        if owner is None or follower not in found:
            results[index] = GraphNotFound(f"no board {board}" if owner is None
                                           else f"no user {follower}")
        elif owner == follower:
            results[index] = InvalidGraphInput("a user cannot follow their own board")
        else:
            writes.append(_Write(index, follower, (board, owner)))
    return _made(results, _write_many(writes, edgelog.log_board_follows, updates.follow_board),
                 "board")


def forget_board(board_id: int, owner_id: int) -> int:
    """Take a deleted board out of the graph: every follower's follow of it and unfollow mark
    (edge log and Redis, implicit follows of the owner recomputed), then its own keys.
    Idempotent and resumable; returns how many followers it took the board from."""
    forgotten = 0
    for chunk in selectors.iter_board_side(board_id):
        for follower in chunk:
            _write(edgelog.record_board_forget, updates.forget_board, follower, board_id,
                   owner_id)
            forgotten += 1
    apply([updates.forget_board_keys(board_id)])
    return forgotten


def forget_user(user_id: int) -> int:
    """Drop every follow of a user being deleted, both ways: theirs of users and boards (from
    their edge log), and their followers' of them (from Redis; followers of their boards go
    with the boards). Works while or after the user object goes; idempotent and resumable.
    Returns how many follows it dropped."""
    dropped = 0
    for target in [row[1] for row in edgelog.rows_of_follower(USER_FOLLOWS_USER, user_id)]:
        dropped += _drop_user_follow(user_id, target)
    for board in [row[1] for row in edgelog.rows_of_follower(USER_FOLLOWS_BOARD, user_id)]:
        owner = lookup.board_owners([board], strict=False).get(board)
        if owner is None:
            continue  # a deleted board: its own deletion drops this follow
        _write(edgelog.record_board_unfollow, updates.unfollow_board, user_id, board, owner)
        dropped += 1
    for chunk in selectors.iter_user_followers(user_id, explicit_only=True):
        dropped += sum(_drop_user_follow(follower, user_id) for follower in chunk)
    return dropped


@contextmanager
def follows_paused(user_ids: Iterable[int]) -> Iterator[None]:
    """No follow or unfollow by any of ``user_ids`` lands while the block runs: the
    follower's lock of every graph write, held (a feed rebuild reads the user's follows,
    then writes the feed, and a follow in between would be lost). The locks of the users of
    one shard host are taken by one statement, host after host."""
    by_shard: dict[int, list[int]] = {}
    for user in sorted(set(user_ids)):
        by_shard.setdefault(shard_of(user), []).append(user)
    with ExitStack() as paused:
        for shards in by_host(by_shard).values():
            paused.enter_context(edgelog.followers_locked(
                [user for shard in shards for user in by_shard[shard]]))
        yield


def _drop_user_follow(follower: int, target: int) -> int:
    change = _write(edgelog.record_user_unfollow, updates.unfollow_user, follower, target)
    return int(change.changed)


def _write(record: Callable[..., LogChange], update: Callable[..., list[Step]], follower: int,
           *objects: int) -> LogChange:
    """Every graph write: under the follower's lock, ``record(follower, *objects)`` in the
    edge log with its event, apply ``update(follower, *objects, change)`` to Redis, and hand
    the event to the publisher thread."""
    with edgelog.follower_lock(follower, ahead=True):
        change = record(follower, *objects)
        apply(update(follower, *objects, change))
        if change.event is not None:
            publish_soon([change.event])
    return change


@dataclass(frozen=True)
class _Write:
    """One graph write of a bulk action: where its result goes, the follower and the
    objects."""

    index: int
    follower: int
    objects: tuple[int, ...]


def _write_many(writes: list[_Write], log: Callable[[list[Any]], list[LogChange]],
                update: Callable[..., list[Step]]) -> list[tuple[_Write, LogChange]]:
    """Graph writes a shard host at a time, each host's as :func:`_write` makes one: its
    followers' locks taken by one statement (sent ahead: the transaction's first statement
    reads the answer, and a lock not granted rolls it back), every write logged with its
    event by ``log`` in one transaction there, then the Redis updates applied together and
    the events handed to the publisher thread. A host that fails raises; the hosts before it
    are done."""
    done = []
    for shards in by_host(shard_of(write.follower) for write in writes).values():
        on_host = set(shards)
        batch = [write for write in writes if shard_of(write.follower) in on_host]
        with edgelog.followers_locked([write.follower for write in batch], ahead=True):
            with atomic_on_host(shards):
                logged = log([(write.follower, *write.objects) for write in batch])
            changes = list(zip(batch, logged, strict=True))
            apply([step for write, change in changes
                   for step in update(write.follower, *write.objects, change)])
            publish_soon([change.event for _, change in changes if change.event is not None])
        done += changes
    return done


def _made(results: list[FollowChange | GraphError | None],
          done: list[tuple[_Write, LogChange]], kind: TargetKind,
          ) -> list[FollowChange | GraphError]:
    """The refusals in ``results`` with the follows ``done`` made in their places."""
    for write, change in done:
        results[write.index] = FollowChange(write.follower, write.objects[0], kind, "follow",
                                            change.changed, change.time_us)
    return [result for result in results if result is not None]


def _users(follower_id: int | str, user_id: int | str, verb: str) -> tuple[int, int]:
    follower, target = lookup.user_id(follower_id), lookup.user_id(user_id)
    if follower == target:
        raise InvalidGraphInput(f"a user cannot {verb} themselves")
    lookup.require_users(follower, target)
    return follower, target


def _board(follower_id: int | str, board_id: int | str, verb: str) -> tuple[int, int, int]:
    follower, board = lookup.user_id(follower_id), lookup.board_id(board_id)
    owner = lookup.board_owner(board)
    if owner == follower:
        raise InvalidGraphInput(f"a user cannot {verb} their own board")
    lookup.require_users(follower)
    return follower, board, owner
