"""What the feeds read from the graph and the content store: followers, follow checks, boards
and their newest pins (as feed entries), pins, interests and related pins. The feeds (the
following feed and the smart feed) reach ``pins`` and ``graph`` through this module alone
(an import contract in ``pyproject.toml`` holds them to it), so their dependencies are in view.

>>> board_entries(board_id, limit=3)
[Entry(created_us=1718000000000000, pin_id=...), ...]
>>> followers_among(board_id, [alice, bob])
{alice}
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from feed.schema import Entry
from graph import selectors
from graph.actions import follows_paused
from graph.conf import graph_settings
from graph.exceptions import GraphNotFound
from graph.interests import followed_interests, iter_interest_followers
from pins.interest_pins import interest_pin_ids
from pins.interests import interest, interest_by_id
from pins.related import related_pins
from pins.selectors import pins_by_id, repin_count, repin_counts, sample_pinner_ids
from pins.types import BOARD_HAS_PINS, USER_HAS_BOARDS, USER_HAS_PINS
from sharding import mappings, objects
from sharding.mappings import MAX_PAGE

LISTS_PER_QUERY = 200
"""Followees whose board lists one query per host reads (deep feed pages, rebuilds)."""


def board_followers(board_id: int, chunk: int) -> Iterator[list[int]]:
    """Every follower of a board (explicit, and the owner's minus its unfollowers), in chunks;
    nothing for a board that no longer exists."""
    try:
        yield from selectors.iter_board_followers(board_id, chunk=chunk)
    except GraphNotFound:
        return


def user_followers(user_id: int, chunk: int) -> Iterator[list[int]]:
    """Every follower of a user (explicit, then implicit), in chunks; nothing for a user that
    no longer exists."""
    try:
        yield from selectors.iter_user_followers(user_id, chunk=chunk)
    except GraphNotFound:
        return


def board_follower_count(board_id: int) -> int | None:
    """How many users follow the board (explicitly or through its owner); None for a board
    that no longer exists."""
    try:
        return selectors.board_follower_count(board_id)
    except GraphNotFound:
        return None


def followers_among(board_id: int, user_ids: Sequence[int]) -> set[int]:
    """Those of ``user_ids`` who follow the board now, in one round trip to the board's
    instance (explicit followers, or followers of its owner who did not unfollow it)."""
    if not user_ids:
        return set()
    try:
        return set(selectors.board_followers_among(board_id, user_ids))
    except GraphNotFound:
        return set()


def boards_followed_among(user_id: int, board_ids: Iterable[int]) -> set[int]:
    """Those of ``board_ids`` that the user follows now (any number, in one round trip;
    boards deleted meanwhile are not followed)."""
    return selectors.boards_followed_of({user_id: board_ids})[user_id]


def boards_followed_by_log(user_id: int, board_ids: Iterable[int]) -> set[int]:
    """Those of ``board_ids`` that the edge log says the user follows now: what a follow or an
    unfollow acts on, so that a change the log committed reaches the feed even when the
    graph's Redis did not take it (a failed write, a promoted replica behind the log)."""
    return _in_batches(selectors.which_boards_followed_in_log, user_id, board_ids)


def _in_batches(select: Callable[[int, list[int]], list[int]], user_id: int,
                board_ids: Iterable[int]) -> set[int]:
    wanted = list(dict.fromkeys(board_ids))
    size = graph_settings.number("MAX_BATCH")
    followed: set[int] = set()
    for start in range(0, len(wanted), size):
        followed.update(select(user_id, wanted[start:start + size]))
    return followed


def boards_of(user_id: int) -> list[int]:
    """Every board of a user, newest first."""
    return [entry.to_id for entry in mappings.iterate(USER_HAS_BOARDS, user_id)]


def followed_boards(user_id: int) -> set[int]:
    """Every board the user follows: boards of the users followed explicitly or implicitly
    (their board lists read a host at a time), checked against the graph's board rules."""
    return followed_boards_of([user_id])[user_id]


def followed_boards_of(user_ids: Iterable[int]) -> dict[int, set[int]]:
    """:func:`followed_boards` of several users, the board lists of all their followees read
    together, and the boards checked against the graph together."""
    followees = {user: list(_followees(user)) for user in user_ids}
    lists = board_lists(followee for found in followees.values() for followee in found)
    return selectors.boards_followed_of({user: [board for followee in theirs
                                                for board in lists[followee]]
                                         for user, theirs in followees.items()})


def board_lists(user_ids: Iterable[int]) -> dict[int, list[int]]:
    """Every board of each user, newest first: the heads of ``LISTS_PER_QUERY`` users' lists
    per query (one per host), and the rest of a list whose head is full read on alone."""
    everyone = list(dict.fromkeys(user_ids))
    lists: dict[int, list[int]] = {}
    for start in range(0, len(everyone), LISTS_PER_QUERY):
        batch = everyone[start:start + LISTS_PER_QUERY]
        found = mappings.heads(USER_HAS_BOARDS, batch, MAX_PAGE)
        for user in batch:
            listed = found.get(user, [])
            lists[user] = (boards_of(user) if len(listed) == MAX_PAGE
                           else [entry.to_id for entry in listed])
    return lists


@dataclass(frozen=True)
class FollowedBoard:
    """A board followed, as the edge log has it: since when (µs), and how (one by one, or
    through its owner)."""

    board_id: int
    owner_id: int | None
    since_us: int
    explicit: bool


@dataclass(frozen=True)
class LoggedBoards:
    """The boards a user follows by the edge log, and the owners' boards it unfollowed
    (``board → time``)."""

    followed: dict[int, FollowedBoard]
    unfollowed: dict[int, int]


def followed_boards_logged(user_id: int) -> LoggedBoards:
    """Every board the user follows by the edge log (not the graph's Redis): boards followed
    one by one, and the boards of users followed, less those unfollowed."""
    log = selectors.logged_follows(user_id)
    followed = {board: FollowedBoard(board, None, since, True)
                for board, since in log.boards.items()}
    for owner, boards in board_lists(log.users).items():
        for board in boards:
            through_owner = FollowedBoard(board, owner, log.users[owner], False)
            if board in followed:
                explicit = followed[board]
                followed[board] = FollowedBoard(board, owner,
                                                min(explicit.since_us, log.users[owner]), True)
            elif board not in log.unfollowed:
                followed[board] = through_owner
    return LoggedBoards(followed, log.unfollowed)


def board_entries(board_id: int, limit: int) -> list[Entry]:
    """The newest ``limit`` pins of a board as feed entries (newest first)."""
    chunk = max(1, min(limit, MAX_PAGE))
    found = islice(mappings.iterate(BOARD_HAS_PINS, board_id, chunk=chunk), limit)
    return [Entry(created_us=entry.sequence, pin_id=entry.to_id) for entry in found]


def board_heads(board_ids: Iterable[int], limit: int, at_or_before: int | None = None,
                ) -> dict[int, list[Entry]]:
    """The newest ``limit`` pins of each board (created at or before ``at_or_before`` when
    given) as feed entries, in the board's list order (newest first, ties by descending pin
    ID): the list cache first, then one query per host."""
    found = mappings.heads(BOARD_HAS_PINS, board_ids, min(limit, MAX_PAGE), at_or_before)
    return {board: [Entry(created_us=entry.sequence, pin_id=entry.to_id) for entry in entries]
            for board, entries in found.items()}


def newest_pins(boards: Collection[int], limit: int) -> dict[int, list[Entry]]:
    """The newest ``limit`` pins of each board as entries: a head of each (one query per
    host), and the rest of a board whose head is full read on alone."""
    heads = board_heads(boards, limit)
    return {board: (board_entries(board, limit)
                    if limit > MAX_PAGE and len(heads.get(board, [])) == MAX_PAGE
                    else heads.get(board, []))
            for board in boards}


def user_pin_ids(user_id: int, limit: int) -> list[int]:
    """The user's newest ``limit`` pins (on all their boards), newest first."""
    return mappings.page(USER_HAS_PINS, user_id, limit=min(limit, MAX_PAGE)).ids


def existing_pins(pin_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """The stored pins among ``pin_ids`` (object cache first, one query per host)."""
    return objects.get_many(pin_ids)


def _followees(user_id: int) -> Iterator[int]:
    cursor: str | None = None
    while True:
        page = selectors.followings_page(user_id, limit=graph_settings.number("MAX_PAGE"),
                                         cursor=cursor)
        yield from page.ids
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


__all__ = [
    "FollowedBoard",
    "LoggedBoards",
    "board_entries",
    "board_follower_count",
    "board_followers",
    "board_heads",
    "board_lists",
    "boards_followed_among",
    "boards_followed_by_log",
    "boards_of",
    "existing_pins",
    "followed_boards",
    "followed_boards_logged",
    "followed_boards_of",
    "followed_interests",
    "followers_among",
    "follows_paused",
    "interest",
    "interest_by_id",
    "interest_pin_ids",
    "iter_interest_followers",
    "newest_pins",
    "pins_by_id",
    "related_pins",
    "repin_count",
    "repin_counts",
    "sample_pinner_ids",
    "user_followers",
    "user_pin_ids",
]
