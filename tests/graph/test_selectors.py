"""Graph reads: batch checks, counts, pages with cursors, fanout scans and bad input."""

from __future__ import annotations

import pytest
from pytest_django import Settings

from graph import actions, selectors
from graph.exceptions import GraphNotFound, InvalidGraphInput
from pins.types import BOARD
from sharding.exceptions import MalformedObjectId
from sharding.ids import compose
from tests.graph.helpers import new_board, new_user
from toolkit.paging import InvalidPageSize


def test_which_users_followed_keeps_the_input_order_and_skips_implicit_follows() -> None:
    ann, bob, cat, dan = (new_user() for _ in range(4))
    actions.follow_user(ann, dan)
    actions.follow_user(ann, bob)
    actions.follow_board(ann, new_board(cat))
    assert selectors.which_users_followed(ann, [cat, dan, bob]) == [dan, bob]


def test_which_users_followed_of_nobody_is_empty() -> None:
    assert selectors.which_users_followed(new_user(), []) == []


def test_more_than_the_batch_limit_is_rejected() -> None:
    ann = new_user()
    with pytest.raises(InvalidGraphInput, match="at most 100"):
        selectors.which_users_followed(ann, [ann] * 101)


def test_which_boards_followed_applies_the_board_rules() -> None:
    ann, bob, cat = new_user(), new_user(), new_user()
    via_owner, unfollowed, explicit, other = (new_board(bob), new_board(bob, "U"),
                                              new_board(cat), new_board(cat, "O"))
    actions.follow_user(ann, bob)
    actions.unfollow_board(ann, unfollowed)
    actions.follow_board(ann, explicit)
    assert selectors.which_boards_followed(ann, [other, explicit, unfollowed, via_owner]) == \
        [explicit, via_owner]


def test_which_boards_followed_names_unknown_boards() -> None:
    ghost = compose(0, BOARD.type_id, 2**35)
    with pytest.raises(GraphNotFound, match=str(ghost)):
        selectors.which_boards_followed(new_user(), [ghost])


def test_which_boards_followed_can_take_unknown_boards_as_not_followed() -> None:
    ann, bob = new_user(), new_user()
    board, ghost = new_board(bob), compose(0, BOARD.type_id, 2**35)
    actions.follow_board(ann, board)
    assert selectors.which_boards_followed(ann, [ghost, board], missing_ok=True) == [board]
    assert selectors.which_boards_followed(ann, [ghost], missing_ok=True) == []


def test_boards_followed_of_many_followers_answers_as_each_follower_asked_alone(
        settings: Settings) -> None:
    settings.PINSITE_GRAPH = {**settings.PINSITE_GRAPH, "MAX_BATCH": 2}  # chunks of a follower
    ann, bob, cat, dan = (new_user() for _ in range(4))
    via_owner, unfollowed, explicit, other = (new_board(bob), new_board(bob, "U"),
                                              new_board(cat), new_board(cat, "O"))
    ghost = compose(0, BOARD.type_id, 2**35)
    actions.follow_user(ann, bob)
    actions.unfollow_board(ann, unfollowed)
    actions.follow_board(ann, explicit)
    actions.follow_board(dan, other)
    newcomer = new_user()
    wanted = {ann: [other, explicit, unfollowed, via_owner, ghost],
              dan: [via_owner, other, other], cat: [explicit], newcomer: []}
    found = selectors.boards_followed_of(wanted)
    assert found == {ann: {explicit, via_owner}, dan: {other}, cat: set(), newcomer: set()}
    assert found == {follower: {board for board in boards if selectors.which_boards_followed(
        follower, [board], missing_ok=True)} for follower, boards in wanted.items()}


def test_counts_include_implicit_followers_and_exclude_unfollowers() -> None:
    ann, bob, cat, owner = new_user(), new_user(), new_user(), new_user()
    board, second = new_board(owner), new_board(owner, "Second")
    actions.follow_user(ann, owner)
    actions.follow_user(bob, owner)
    actions.follow_board(bob, board)
    actions.follow_board(cat, board)
    actions.follow_board(cat, second)
    actions.unfollow_board(ann, board)
    assert selectors.follower_count(owner) == 3
    assert selectors.board_follower_count(board) == 2
    assert selectors.board_follower_count(second) == 3
    assert selectors.following_count(cat) == 1
    assert selectors.followed_board_count(cat) == 2


def test_pages_are_newest_first_and_cursors_walk_every_follower() -> None:
    star = new_user()
    fans = [new_user() for _ in range(5)]
    for fan in fans:
        actions.follow_user(fan, star)
    first = selectors.followers_page(star, limit=2)
    second = selectors.followers_page(star, limit=2, cursor=first.next_cursor)
    third = selectors.followers_page(star, limit=2, cursor=second.next_cursor)
    assert first.ids + second.ids + third.ids == fans[::-1]
    assert third.next_cursor is None


def test_followings_pages_mix_explicit_and_implicit_follows_by_time() -> None:
    ann, bob, cat = new_user(), new_user(), new_user()
    actions.follow_user(ann, bob)
    actions.follow_board(ann, new_board(cat))
    page = selectors.followings_page(ann)
    assert [(f.user_id, f.explicit) for f in page.items] == [(cat, False), (bob, True)]


def test_board_pages_list_explicit_and_owner_followers_once() -> None:
    owner, ann, bob, cat = (new_user() for _ in range(4))
    board = new_board(owner)
    actions.follow_user(ann, owner)
    actions.follow_user(bob, owner)
    actions.follow_board(bob, board)
    actions.follow_user(cat, owner)
    actions.unfollow_board(cat, board)
    page = selectors.board_followers_page(board, limit=1)
    rest = selectors.board_followers_page(board, limit=5, cursor=page.next_cursor)
    assert [(f.user_id, f.explicit) for f in page.items + rest.items] == \
        [(bob, True), (ann, False)]


def test_a_bad_cursor_is_rejected() -> None:
    with pytest.raises(InvalidGraphInput, match="cursor"):
        selectors.followers_page(new_user(), cursor="not-a-cursor!")


@pytest.mark.parametrize("limit", [0, 1001, True])
def test_a_bad_page_size_is_rejected(limit: int) -> None:
    with pytest.raises(InvalidPageSize, match="page size"):
        selectors.followers_page(new_user(), limit=limit)


def test_iter_board_followers_streams_everyone_in_chunks() -> None:
    owner = new_user()
    board = new_board(owner)
    explicit = [new_user() for _ in range(3)]
    via_owner = [new_user() for _ in range(4)]
    for user in explicit:
        actions.follow_board(user, board)
    for user in via_owner:
        actions.follow_user(user, owner)
    actions.follow_user(explicit[0], owner)
    actions.unfollow_board(via_owner[0], board)
    chunks = list(selectors.iter_board_followers(board, chunk=2))
    assert all(len(chunk) <= 3 for chunk in chunks)
    assert sorted(f for chunk in chunks for f in chunk) == sorted(explicit + via_owner[1:])


def test_iter_user_followers_streams_explicit_then_implicit_followers() -> None:
    owner, ann, bob = new_user(), new_user(), new_user()
    actions.follow_user(ann, owner)
    actions.follow_board(bob, new_board(owner))
    assert list(selectors.iter_user_followers(owner, chunk=5)) == [[ann], [bob]]


def test_board_followers_among_rechecks_a_batch_of_users() -> None:
    owner, ann, bob, cat = (new_user() for _ in range(4))
    board = new_board(owner)
    actions.follow_user(ann, owner)
    actions.follow_board(cat, board)
    assert selectors.board_followers_among(board, [bob, cat, ann]) == [cat, ann]


def test_a_user_id_where_a_board_id_belongs_is_rejected() -> None:
    ann = new_user()
    with pytest.raises(MalformedObjectId, match="not a board ID"):
        selectors.is_following_board(ann, ann)
