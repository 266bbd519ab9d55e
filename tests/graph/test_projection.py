"""The projection of edge-log rows onto Redis keys: pure, no servers."""

from __future__ import annotations

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
from graph.projection import LogRows, orphans, project, within
from pins.types import BOARD, USER
from sharding.ids import compose

ANN, BOB, CAT = (compose(shard, USER.type_id, 1) for shard in (1, 2, 3))
RECIPES, TRAVEL = compose(2, BOARD.type_id, 1), compose(2, BOARD.type_id, 2)
OWNERS = {RECIPES: BOB, TRAVEL: BOB}


def test_a_user_follow_fills_both_sides() -> None:
    state = project(LogRows(user_follows={(ANN, BOB, 5)}), OWNERS)
    assert state == {user_key(ANN, FOLLOWING): {BOB: 5}, user_key(BOB, FOLLOWERS): {ANN: 5}}


def test_board_follows_make_an_implicit_follow_at_the_earliest_time() -> None:
    state = project(LogRows(board_follows={(ANN, RECIPES, 9), (ANN, TRAVEL, 4)}), OWNERS)
    assert state[user_key(ANN, IMPLICIT_FOLLOWING)] == {BOB: 4}
    assert state[user_key(BOB, IMPLICIT_FOLLOWERS)] == {ANN: 4}
    assert state[user_key(ANN, BOARDS_FOLLOWED)] == {RECIPES, TRAVEL}
    assert state[board_key(RECIPES, BOARD_FOLLOWERS)] == {ANN: 9}


def test_an_explicit_follow_replaces_the_implicit_one_and_counts_the_overlap() -> None:
    rows = LogRows(user_follows={(ANN, BOB, 1)}, board_follows={(ANN, RECIPES, 2)})
    state = project(rows, OWNERS)
    assert user_key(ANN, IMPLICIT_FOLLOWING) not in state
    assert state[board_key(RECIPES, BOARD_OVERLAP)] == 1


def test_unfollows_fill_both_sets() -> None:
    rows = LogRows(user_follows={(ANN, BOB, 1)}, board_unfollows={(ANN, TRAVEL, 3)})
    state = project(rows, OWNERS)
    assert state[user_key(ANN, BOARDS_UNFOLLOWED)] == {TRAVEL}
    assert state[board_key(TRAVEL, BOARD_UNFOLLOWERS)] == {ANN}


def test_rows_of_deleted_boards_are_skipped_and_counted() -> None:
    rows = LogRows(board_follows={(ANN, compose(2, BOARD.type_id, 99), 1)})
    assert project(rows, OWNERS) == {} and orphans(rows, OWNERS) == 1


def test_within_keeps_the_keys_of_the_given_vshards() -> None:
    state = project(LogRows(user_follows={(ANN, BOB, 5), (CAT, BOB, 6)}), OWNERS)
    assert set(within(state, {2})) == {user_key(BOB, FOLLOWERS)}
