"""Graph reads: follow checks, batch checks, exact counts, newest-first pages and fanout scans.

Every call reads from one Redis instance: a follower's questions from the follower's vshard,
a user's or board's followers from the user's (owner's) vshard. Board questions look the
board's owner up in the object store first (object cache), since "follows board X" means
"follows X explicitly, or follows X's owner and has not unfollowed X".

>>> is_following_user(alice, bob)
True
>>> which_users_followed(alice, [bob, carol, dave])
[bob, dave]
>>> page = followers_page(bob, limit=50)
>>> [(f.user_id, f.explicit) for f in page.items], page.next_cursor
([(alice, True), (erin, False)], None)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from graph import edgelog, lookup
from graph.conf import graph_settings, page_size
from graph.exceptions import InvalidGraphInput
from graph.keys import (
    BOARD_FOLLOWERS,
    BOARD_OVERLAP,
    BOARD_UNFOLLOWERS,
    BOARDS_FOLLOWED,
    BOARDS_UNFOLLOWED,
    FOLLOWERS,
    FOLLOWING,
    IMPLICIT_FOLLOWERS,
    IMPLICIT_FOLLOWING,
    board_key,
    user_key,
)
from graph.store import reads
from graph.store.reads import Cursor, Scored
from graph.tables import EDGE_LOG
from graph.vshards import vshard_of
from sharding.mappings import Entry, InvalidCursor, decode_cursor, encode_cursor
from toolkit.paging import Page


@dataclass(frozen=True)
class Follow:
    """One entry of a page: who, since when (µs), and whether explicitly."""

    user_id: int
    time_us: int
    explicit: bool

    @property
    def id(self) -> int:
        return self.user_id


FollowPage = Page[Follow]


@dataclass(frozen=True)
class BoardFollow:
    """A board followed explicitly, and since when (µs)."""

    board_id: int
    time_us: int

    @property
    def id(self) -> int:
        return self.board_id


def is_following_user(follower_id: int | str, user_id: int | str) -> bool:
    """Does the follower follow the user explicitly (all their boards)?"""
    follower, target = lookup.user_id(follower_id), lookup.user_id(user_id)
    return reads.score(vshard_of(follower), user_key(follower, FOLLOWING), target) is not None


FollowKind = Literal["explicit", "implicit"]


def follow_kind(follower_id: int | str, user_id: int | str) -> FollowKind | None:
    """``explicit`` (the user), ``implicit`` (some of their boards only) or ``None``."""
    follower, target = lookup.user_id(follower_id), lookup.user_id(user_id)
    explicit, implicit = reads.execute(vshard_of(follower), [
        ("zscore", user_key(follower, FOLLOWING), target),
        ("zscore", user_key(follower, IMPLICIT_FOLLOWING), target)])
    if explicit is not None:
        return "explicit"
    return "implicit" if implicit is not None else None


def is_following_board(follower_id: int | str, board_id: int | str) -> bool:
    """Does the follower follow the board, explicitly or through its owner?"""
    board = lookup.board_id(board_id)
    return which_boards_followed(follower_id, [board]) == [board]


def which_users_followed(follower_id: int | str, user_ids: Sequence[int | str]) -> list[int]:
    """The users among ``user_ids`` (at most ``MAX_BATCH``) followed explicitly, in input
    order; one ``ZMSCORE``."""
    follower = lookup.user_id(follower_id)
    targets = lookup.user_ids(_batch(user_ids))
    if not targets:
        return []
    found = reads.scores(vshard_of(follower), user_key(follower, FOLLOWING), targets)
    return [target for target, score in zip(targets, found, strict=True) if score is not None]


def which_boards_followed(follower_id: int | str, board_ids: Sequence[int | str],
                          missing_ok: bool = False) -> list[int]:
    """The boards among ``board_ids`` (at most ``MAX_BATCH``) the follower follows, in input
    order; one round trip to the follower's instance after the owner lookup. Boards that do
    not exist raise :class:`GraphNotFound`, or with ``missing_ok`` are not followed."""
    follower = lookup.user_id(follower_id)
    boards, owners = _boards_and_owners(board_ids, strict=not missing_ok)
    if not boards:
        return []
    explicit, owner_scores, unfollowed = reads.execute(vshard_of(follower), [
        ("smismember", user_key(follower, BOARDS_FOLLOWED), boards),
        ("zmscore", user_key(follower, FOLLOWING), [owners[b] for b in boards]),
        ("smismember", user_key(follower, BOARDS_UNFOLLOWED), boards)])
    return [board for board, mine, owner, unfollow
            in zip(boards, explicit, owner_scores, unfollowed, strict=True)
            if _follows_board(bool(mine), owner is not None, bool(unfollow))]


def boards_followed_of(wanted: Mapping[int, Iterable[int]]) -> dict[int, set[int]]:
    """For many followers, those of their boards (follower → boards, any number) each
    follows now, as :func:`which_boards_followed` with ``missing_ok`` answers: the boards'
    owners looked up together, and the checks of the followers one instance serves sent in
    one round trip."""
    asked = {lookup.user_id(follower): list(dict.fromkeys(boards))
             for follower, boards in wanted.items()}
    owners = lookup.board_owners([board for boards in asked.values() for board in boards],
                                 strict=False)
    commands: dict[int, list[tuple[Any, ...]]] = {}
    checked: dict[int, list[tuple[int, list[int]]]] = {}  # vshard → (follower, boards)
    size = graph_settings.number("MAX_BATCH")
    for follower, boards in asked.items():
        present = [board for board in boards if board in owners]
        vshard = vshard_of(follower)
        for start in range(0, len(present), size):
            chunk = present[start:start + size]
            commands.setdefault(vshard, []).extend([
                ("smismember", user_key(follower, BOARDS_FOLLOWED), chunk),
                ("zmscore", user_key(follower, FOLLOWING), [owners[board] for board in chunk]),
                ("smismember", user_key(follower, BOARDS_UNFOLLOWED), chunk)])
            checked.setdefault(vshard, []).append((follower, chunk))
    followed: dict[int, set[int]] = {follower: set() for follower in asked}
    for vshard, replies in reads.execute_many(commands).items():
        for index, (follower, chunk) in enumerate(checked[vshard]):
            explicit, owner_scores, unfollowed = replies[3 * index:3 * index + 3]
            followed[follower].update(
                board for board, mine, owner, unfollow
                in zip(chunk, explicit, owner_scores, unfollowed, strict=True)
                if _follows_board(bool(mine), owner is not None, bool(unfollow)))
    return followed


def which_boards_followed_in_log(follower_id: int | str,
                                 board_ids: Sequence[int | str]) -> list[int]:
    """:func:`which_boards_followed` as the edge log has it (boards that no longer exist are
    not followed): one query on the follower's shard after the owner lookup, for work that
    must act on what was committed even while Redis is behind the log (the feed applying a
    follow or an unfollow)."""
    follower = lookup.user_id(follower_id)
    boards, owners = _boards_and_owners(board_ids, strict=False)
    explicit, unfollowed, owners_followed = edgelog.board_follow_rows(follower, boards,
                                                                      owners.values())
    return [board for board in boards
            if _follows_board(board in explicit, owners[board] in owners_followed,
                              board in unfollowed)]


def _boards_and_owners(board_ids: Sequence[int | str], strict: bool,
                       ) -> tuple[list[int], dict[int, int]]:
    """The distinct existing boards among ``board_ids`` (at most ``MAX_BATCH``), in input
    order, and their owners; with ``strict`` a board that does not exist raises."""
    boards = list(dict.fromkeys(lookup.board_ids(_batch(board_ids))))
    owners = lookup.board_owners(boards, strict=strict) if boards else {}
    return [board for board in boards if board in owners], owners


def _follows_board(explicitly: bool, follows_owner: bool, unfollowed: bool) -> bool:
    """The board rule: followed explicitly, or through its owner unless unfollowed."""
    return explicitly or (follows_owner and not unfollowed)


def followers_among(user_id: int | str, user_ids: Sequence[int | str]) -> list[int]:
    """Those of ``user_ids`` (at most ``MAX_BATCH``) who follow the user or some of their
    boards, in input order; one round trip to the user's instance."""
    return _among(lookup.user_id(user_id), FOLLOWERS, IMPLICIT_FOLLOWERS, user_ids)


def followings_among(follower_id: int | str, user_ids: Sequence[int | str]) -> list[int]:
    """Those of ``user_ids`` (at most ``MAX_BATCH``) the follower follows, or some of whose
    boards, in input order; one round trip to the follower's instance."""
    return _among(lookup.user_id(follower_id), FOLLOWING, IMPLICIT_FOLLOWING, user_ids)


def _among(user: int, explicit_kind: str, implicit_kind: str,
           user_ids: Sequence[int | str]) -> list[int]:
    others = list(dict.fromkeys(lookup.user_ids(_batch(user_ids))))
    if not others:
        return []
    explicit, implicit = reads.execute(vshard_of(user), [
        ("zmscore", user_key(user, explicit_kind), others),
        ("zmscore", user_key(user, implicit_kind), others)])
    return [other for other, mine, through_boards in zip(others, explicit, implicit, strict=True)
            if mine is not None or through_boards is not None]


def which_boards_followed_explicitly(follower_id: int | str,
                                    board_ids: Sequence[int | str]) -> list[int]:
    """The boards among ``board_ids`` (at most ``MAX_BATCH``) the follower follows one by
    one (not through their owners), in input order; one ``SMISMEMBER``."""
    follower = lookup.user_id(follower_id)
    boards = list(dict.fromkeys(lookup.board_ids(_batch(board_ids))))
    if not boards:
        return []
    [members] = reads.execute(vshard_of(follower), [
        ("smismember", user_key(follower, BOARDS_FOLLOWED), boards)])
    return [board for board, member in zip(boards, members, strict=True) if member]


def board_followers_among(board_id: int | str, user_ids: Sequence[int | str]) -> list[int]:
    """Those of ``user_ids`` who follow the board, in input order; one round trip to the
    board's instance however many are asked about (fanout re-checks a whole chunk with it)."""
    board = lookup.board_id(board_id)
    users = list(dict.fromkeys(lookup.user_ids(user_ids)))
    if not users:
        return []
    owner = lookup.board_owner(board)
    explicit, via_owner, unfollowed = reads.execute(vshard_of(board), [
        ("hmget", board_key(board, BOARD_FOLLOWERS), users),
        ("zmscore", user_key(owner, FOLLOWERS), users),
        ("smismember", board_key(board, BOARD_UNFOLLOWERS), users)])
    return [user for user, mine, owned, unfollow
            in zip(users, explicit, via_owner, unfollowed, strict=True)
            if _follows_board(mine is not None, owned is not None, bool(unfollow))]


def follower_count(user_id: int | str) -> int:
    """Everyone who follows the user or at least one of their boards."""
    user = lookup.user_id(user_id)
    return sum(reads.execute(vshard_of(user), [("zcard", user_key(user, FOLLOWERS)),
                                               ("zcard", user_key(user, IMPLICIT_FOLLOWERS))]))


def following_count(user_id: int | str) -> int:
    """Every user the user follows, explicitly or through some of their boards."""
    user = lookup.user_id(user_id)
    return sum(reads.execute(vshard_of(user), [("zcard", user_key(user, FOLLOWING)),
                                               ("zcard", user_key(user, IMPLICIT_FOLLOWING))]))


def followed_board_count(user_id: int | str) -> int:
    """The boards the user follows explicitly."""
    user = lookup.user_id(user_id)
    return int(reads.execute(vshard_of(user), [("scard", user_key(user, BOARDS_FOLLOWED))])[0])


def unfollowed_board_count(user_id: int | str) -> int:
    """The boards the user unfollowed one by one while following their owners."""
    user = lookup.user_id(user_id)
    return int(reads.execute(vshard_of(user),
                             [("scard", user_key(user, BOARDS_UNFOLLOWED))])[0])


def board_follower_count(board_id: int | str) -> int:
    """Explicit followers + the owner's followers minus the board's unfollowers, each once."""
    board = lookup.board_id(board_id)
    owner = lookup.board_owner(board)
    explicit, owner_followers, unfollowers, overlap = reads.execute(vshard_of(board), [
        ("hlen", board_key(board, BOARD_FOLLOWERS)), ("zcard", user_key(owner, FOLLOWERS)),
        ("scard", board_key(board, BOARD_UNFOLLOWERS)),
        ("get", board_key(board, BOARD_OVERLAP))])
    return int(explicit) + int(owner_followers) - int(unfollowers) - int(overlap or 0)


def followers_page(user_id: int | str, limit: int | None = None,
                   cursor: str | None = None) -> FollowPage:
    """The user's followers (explicit and implicit), newest first."""
    user = lookup.user_id(user_id)
    return _user_page(user, FOLLOWERS, IMPLICIT_FOLLOWERS, limit, cursor)


def followings_page(user_id: int | str, limit: int | None = None,
                    cursor: str | None = None) -> FollowPage:
    """The users the user follows (explicitly and implicitly), newest first."""
    user = lookup.user_id(user_id)
    return _user_page(user, FOLLOWING, IMPLICIT_FOLLOWING, limit, cursor)


def board_followers_page(board_id: int | str, limit: int | None = None,
                         cursor: str | None = None) -> FollowPage:
    """The board's followers, newest first: explicit ones by the time they followed the
    board, the owner's followers by the time they followed the owner."""
    board = lookup.board_id(board_id)
    owner = lookup.board_owner(board)
    size, after = page_size(limit), _decode(cursor)
    explicit, unfollowers = reads.execute(vshard_of(board), [
        ("hgetall", board_key(board, BOARD_FOLLOWERS)),
        ("smembers", board_key(board, BOARD_UNFOLLOWERS))])
    items = [Follow(int(m), int(t), True) for m, t in explicit.items()
             if after is None or (int(t), m) < after]
    skip = set(explicit) | set(unfollowers)
    items += [Follow(int(m), t, False)
              for m, t in _filtered_newest(vshard_of(board), user_key(owner, FOLLOWERS), after,
                                           size + 1, skip)]
    return _paged(items, size)


def followed_boards_page(user_id: int | str, limit: int | None = None,
                         cursor: str | None = None) -> Page[BoardFollow]:
    """The boards the user follows one by one, newest first, as the edge log lists them: the
    graph's Redis keeps them as a set, without the times a page is ordered by."""
    return _logged_boards_page(edgelog.followed_boards_page, user_id, limit, cursor)


def unfollowed_boards_page(user_id: int | str, limit: int | None = None,
                           cursor: str | None = None) -> Page[BoardFollow]:
    """The boards the user unfollowed one by one while following their owners (so not
    followed), newest first by the time of the unfollow, as the edge log lists them."""
    return _logged_boards_page(edgelog.unfollowed_boards_page, user_id, limit, cursor)


def _logged_boards_page(read: Callable[[int, int, str | None], Page[Entry]],
                        user_id: int | str, limit: int | None,
                        cursor: str | None) -> Page[BoardFollow]:
    user = lookup.user_id(user_id)
    try:
        page = read(user, page_size(limit), cursor or None)
    except InvalidCursor as exc:
        raise InvalidGraphInput("the page cursor is not valid") from exc
    return Page([BoardFollow(entry.to_id, entry.sequence) for entry in page.items],
                page.next_cursor)


@dataclass(frozen=True)
class LoggedFollows:
    """What the edge log holds for one follower, each with its time (µs): the users it follows
    explicitly, the boards it follows one by one, and the boards it unfollowed (of users it
    follows)."""

    users: dict[int, int]
    boards: dict[int, int]
    unfollowed: dict[int, int]


def logged_follows(follower_id: int | str) -> LoggedFollows:
    """The follower's rows in the edge log (three range reads on the follower's shard): the
    source of truth that the graph's Redis and the feeds are derived from. Boards that no
    longer exist are left out."""
    follower = lookup.user_id(follower_id)
    users, boards, unfollowed = ({to_id: time_us for _, to_id, time_us
                                  in edgelog.rows_of_follower(table, follower)}
                                 for table in EDGE_LOG)
    existing = lookup.board_owners(list(boards), strict=False) if boards else {}
    return LoggedFollows(users, {board: time_us for board, time_us in boards.items()
                                 if board in existing}, unfollowed)


def iter_board_followers(board_id: int | str, chunk: int = 1000) -> Iterator[list[int]]:
    """Every follower of a board, for fanout: explicit followers (``HSCAN``), then the owner's
    followers who neither follow it explicitly nor unfollowed it, ``chunk`` at a time."""
    board = lookup.board_id(board_id)
    owner = lookup.board_owner(board)
    vshard = vshard_of(board)
    for fields in reads.hash_chunks(vshard, board_key(board, BOARD_FOLLOWERS), chunk):
        yield [int(field) for field in fields]
    for batch in _newest_batches(vshard, user_key(owner, FOLLOWERS), chunk):
        members = [member for member, _ in batch]
        explicit, unfollowed = reads.execute(vshard, [
            ("hmget", board_key(board, BOARD_FOLLOWERS), members),
            ("smismember", board_key(board, BOARD_UNFOLLOWERS), members)])
        kept = [int(m) for m, e, u in zip(members, explicit, unfollowed, strict=True)
                if e is None and not u]
        if kept:
            yield kept


def iter_board_side(board_id: int, chunk: int = 1000) -> Iterator[list[int]]:
    """Everyone Redis lists on a board's side, ``chunk`` at a time: its explicit followers
    (``HSCAN``), then those who unfollowed it while following its owner. Works for a deleted
    board, which :func:`iter_board_followers` cannot place; a member may come twice."""
    vshard = vshard_of(board_id)
    for fields in reads.hash_chunks(vshard, board_key(board_id, BOARD_FOLLOWERS), chunk):
        yield [int(field) for field in fields]
    [unfollowers] = reads.execute(vshard, [("smembers", board_key(board_id, BOARD_UNFOLLOWERS))])
    if unfollowers:
        yield sorted(int(member) for member in unfollowers)


def iter_user_followers(user_id: int | str, chunk: int = 1000,
                        explicit_only: bool = False) -> Iterator[list[int]]:
    """Every follower of a user (explicit, then implicit), ``chunk`` at a time. Works for a
    user being deleted."""
    user = lookup.user_id(user_id)
    for kind in (FOLLOWERS,) if explicit_only else (FOLLOWERS, IMPLICIT_FOLLOWERS):
        for batch in _newest_batches(vshard_of(user), user_key(user, kind), chunk):
            yield [int(member) for member, _ in batch]


def _user_page(user: int, explicit_kind: str, implicit_kind: str, limit: int | None,
               cursor: str | None) -> FollowPage:
    size, after = page_size(limit), _decode(cursor)
    explicit_key, implicit_key = user_key(user, explicit_kind), user_key(user, implicit_kind)
    found = reads.newest(vshard_of(user), [explicit_key, implicit_key], after, size + 1)
    items = [Follow(int(m), t, key == explicit_key) for key, entries in found.items()
             for m, t in entries]
    return _paged(items, size)


def _filtered_newest(vshard: int, key: str, after: Cursor | None, count: int,
                     skip: set[str]) -> list[Scored]:
    kept: list[Scored] = []
    for batch in _newest_batches(vshard, key, count, after):
        kept += [(m, t) for m, t in batch if m not in skip]
        if len(kept) >= count:
            break
    return kept[:count]


def _newest_batches(vshard: int, key: str, count: int,
                    after: Cursor | None = None) -> Iterator[list[Scored]]:
    while True:
        batch = reads.newest(vshard, [key], after, count)[key]
        if batch:
            yield batch
        if len(batch) < count:
            return
        after = (batch[-1][1], batch[-1][0])


def _paged(items: list[Follow], size: int) -> FollowPage:
    items.sort(key=lambda f: (f.time_us, str(f.user_id)), reverse=True)
    more = len(items) > size
    items = items[:size]
    last = items[-1] if items else None
    return FollowPage(items, _encode(last) if more and last else None)


def _encode(item: Follow) -> str:
    return encode_cursor(Entry(to_id=item.user_id, sequence=item.time_us))


def _decode(cursor: str | None) -> Cursor | None:
    if not cursor:
        return None
    try:
        entry = decode_cursor(cursor)
    except InvalidCursor as exc:
        raise InvalidGraphInput("the page cursor is not valid") from exc
    return entry.sequence, str(entry.to_id)


def _batch(values: Sequence[int | str]) -> Sequence[int | str]:
    maximum = graph_settings.number("MAX_BATCH")
    if isinstance(values, str | bytes) or len(values) > maximum:
        raise InvalidGraphInput(f"ask about at most {maximum} IDs at once")
    return values
