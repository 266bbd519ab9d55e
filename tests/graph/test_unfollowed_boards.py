"""``pinner.unfollowed_boards`` against the real Redis vshards and edge log: the boards of
followed pinners unfollowed one by one, counted and paged newest first (a data export lists
them)."""

from __future__ import annotations

import pytest

from graph.exceptions import InvalidGraphInput
from pins.domain import Board, User
from tests.graph.helpers import new_board, new_user


def _user(user_id: int) -> User:
    return User.objects.get(user_id)


def test_unfollowed_boards_are_counted_and_paged_newest_first() -> None:
    ann, bob = _user(new_user()), _user(new_user())
    first, second, kept = (Board.objects.get(new_board(bob.id, name))
                           for name in ("A", "B", "C"))
    ann.follow(bob)
    ann.unfollow(first)
    ann.unfollow(second)
    assert ann.unfollowed_boards.count() == 2
    page = ann.unfollowed_boards.page(limit=1)
    rest = ann.unfollowed_boards.page(limit=1, after=page.next_cursor)
    assert page.ids + rest.ids == [second.id, first.id] and rest.next_cursor is None
    assert page.items[0].time_us >= rest.items[0].time_us
    ann.follow(second)
    assert [unfollow.board_id for unfollow in ann.unfollowed_boards.iterator()] == [first.id]
    assert kept.id not in ann.unfollowed_boards.page().ids


def test_a_bad_cursor_of_unfollowed_boards_is_refused() -> None:
    with pytest.raises(InvalidGraphInput, match="cursor"):
        _user(new_user()).unfollowed_boards.page(after="%%%")
