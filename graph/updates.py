"""The Redis updates of each action, derived from what the edge log says after the action.

Two steps per action, in a fixed order: the follower's side first (the follower's vshard),
then the followee's side (the user's or the board owner's vshard, which are the same for a
user and their boards). Each step is one idempotent Lua script on one instance, so a retry
of either step, or of both, converges.

>>> [step.script for step in follow_user(alice, bob, LogChange(True, 1718000000000000))]
['follow_user_out', 'follow_user_in']
"""

from __future__ import annotations

from graph.edgelog import LogChange
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
    board_keys,
    user_key,
)
from graph.store.writes import Step
from graph.vshards import vshard_of


def implicit_time(board_follows: dict[int, int]) -> int | None:
    """When an implicit follow began: the earliest of the owner's boards still followed."""
    return min(board_follows.values()) if board_follows else None


def follow_user(follower: int, target: int, change: LogChange) -> list[Step]:
    overlaps = [key for board in sorted(change.board_follows) for key in _overlap_keys(board)]
    return [
        Step("follow_user_out", vshard_of(follower),
             (user_key(follower, FOLLOWING), user_key(follower, IMPLICIT_FOLLOWING)),
             (target, change.time_us)),
        Step("follow_user_in", vshard_of(target),
             (user_key(target, FOLLOWERS), user_key(target, IMPLICIT_FOLLOWERS), *overlaps),
             (follower, change.time_us)),
    ]


def unfollow_user(follower: int, target: int, change: LogChange) -> list[Step]:
    implicit = _text(implicit_time(change.board_follows))
    cleared = [board_key(board, BOARD_UNFOLLOWERS) for board in change.cleared_unfollows]
    overlaps = [key for board in sorted(change.board_follows) for key in _overlap_keys(board)]
    return [
        Step("unfollow_user_out", vshard_of(follower),
             (user_key(follower, FOLLOWING), user_key(follower, IMPLICIT_FOLLOWING),
              user_key(follower, BOARDS_UNFOLLOWED)),
             (target, implicit, *change.cleared_unfollows)),
        Step("unfollow_user_in", vshard_of(target),
             (user_key(target, FOLLOWERS), user_key(target, IMPLICIT_FOLLOWERS), *cleared,
              *overlaps),
             (follower, implicit, len(cleared))),
    ]


def follow_board(follower: int, board: int, owner: int, change: LogChange) -> list[Step]:
    implicit = "" if change.follows_owner else _text(implicit_time(change.board_follows))
    flag = _flag(change.follows_owner)
    return [
        Step("follow_board_out", vshard_of(follower), _follower_board_keys(follower),
             (board, owner, implicit, flag)),
        Step("follow_board_in", vshard_of(board), _board_side_keys(board, owner),
             (follower, change.time_us, implicit, flag)),
    ]


def unfollow_board(follower: int, board: int, owner: int, change: LogChange) -> list[Step]:
    implicit = "" if change.follows_owner else _text(implicit_time(change.board_follows))
    flag = _flag(change.follows_owner)
    return [
        Step("unfollow_board_out", vshard_of(follower), _follower_board_keys(follower),
             (board, owner, implicit, flag)),
        Step("unfollow_board_in", vshard_of(board), _board_side_keys(board, owner),
             (follower, implicit, flag)),
    ]


def forget_board(follower: int, board: int, owner: int, change: LogChange) -> list[Step]:
    """A deleted board leaves one follower (or unfollower): no mark is left behind."""
    implicit = "" if change.follows_owner else _text(implicit_time(change.board_follows))
    flag = _flag(change.follows_owner)
    return [
        Step("forget_board_out", vshard_of(follower), _follower_board_keys(follower),
             (board, owner, implicit, flag)),
        Step("forget_board_in", vshard_of(board),
             (board_key(board, BOARD_FOLLOWERS), board_key(board, BOARD_UNFOLLOWERS),
              user_key(owner, IMPLICIT_FOLLOWERS)),
             (follower, implicit, flag)),
    ]


def forget_board_keys(board: int) -> Step:
    """Delete what is left of a deleted board's own keys (its overlap counter among them)."""
    return Step("forget_board_keys", vshard_of(board), tuple(board_keys(board)), ())


def _overlap_keys(board: int) -> tuple[str, str]:
    return board_key(board, BOARD_FOLLOWERS), board_key(board, BOARD_OVERLAP)


def _follower_board_keys(follower: int) -> tuple[str, ...]:
    return (user_key(follower, BOARDS_FOLLOWED), user_key(follower, BOARDS_UNFOLLOWED),
            user_key(follower, IMPLICIT_FOLLOWING))


def _board_side_keys(board: int, owner: int) -> tuple[str, ...]:
    return (board_key(board, BOARD_FOLLOWERS), board_key(board, BOARD_UNFOLLOWERS),
            user_key(owner, FOLLOWERS), user_key(owner, IMPLICIT_FOLLOWERS),
            board_key(board, BOARD_OVERLAP))


def _text(value: int | None) -> str:
    return "" if value is None else str(value)


def _flag(value: bool) -> str:
    return "1" if value else "0"
