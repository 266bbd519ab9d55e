"""The graph's managers against the real Redis vshards and edge log: each set's count, checks,
batch checks, pages and iteration agree, and ``pinner.follow`` takes what a pinner follows."""

from __future__ import annotations

import pytest

from graph import selectors
from graph.actions import follow_users
from graph.exceptions import InvalidGraphInput
from pins.actions import NewPinner, create_pinners
from pins.domain import Board, User
from pins.interests import all_interests, interest
from pins.models import Pinner
from pins.types import PIN
from sharding.ids import compose
from tests.graph.helpers import new_board, new_user
from tests.pins.helpers import new_pinner


def _user(user_id: int) -> User:
    return User.objects.get(user_id)


def test_followers_count_contains_and_pages_agree() -> None:
    ann, bob, cat, dan = (_user(new_user()) for _ in range(4))
    bob.follow(ann)
    cat.follow(Board.objects.get(new_board(ann.id)))  # some of ann's boards: a follower too
    assert ann.followers.count() == 2
    assert ann.followers.contains(bob) and ann.followers.contains(cat.id)
    assert not ann.followers.contains(dan)
    assert ann.followers.contains_many([dan, cat, bob]) == [cat.id, bob.id]
    page = ann.followers.page()
    assert page.ids == [cat.id, bob.id] and [f.explicit for f in page] == [False, True]
    assert page == selectors.followers_page(ann.id)


def test_following_knows_explicit_and_implicit_follows() -> None:
    ann, bob, cat, dan = (_user(new_user()) for _ in range(4))
    ann.follow(bob)
    ann.follow(Board.objects.get(new_board(cat.id)))
    assert ann.following.count() == 2
    assert ann.following.kind(bob) == "explicit" and ann.following.kind(cat) == "implicit"
    assert ann.following.contains(cat) and not ann.following.contains(dan)
    assert ann.following.contains_many([dan, bob, cat]) == [bob.id, cat.id]
    assert ann.following.page().ids == [cat.id, bob.id]
    assert ann.follows(bob) and not ann.follows(cat)  # a pinner counts when followed whole


def test_followed_boards_are_the_ones_followed_one_by_one() -> None:
    ann, bob = _user(new_user()), _user(new_user())
    first, second, via_owner = (Board.objects.get(new_board(bob.id, name))
                                for name in ("A", "B", "C"))
    ann.follow(first)
    ann.follow(second.id)
    assert ann.followed_boards.count() == 2
    assert ann.followed_boards.contains(first) and not ann.followed_boards.contains(via_owner)
    assert ann.followed_boards.contains_many([via_owner, second, first]) == [second.id, first.id]
    page = ann.followed_boards.page(limit=1)
    rest = ann.followed_boards.page(limit=1, after=page.next_cursor)
    assert page.ids + rest.ids == [second.id, first.id] and rest.next_cursor is None
    ann.follow(bob)
    assert ann.which_followed([via_owner, bob, first]) == [via_owner.id, bob.id, first.id]
    ann.unfollow(first)
    assert [follow.board_id for follow in ann.followed_boards.iterator()] == [second.id]


def test_board_followers_apply_the_board_rule() -> None:
    ann, bob, cat, owner = (_user(new_user()) for _ in range(4))
    board = Board.objects.get(new_board(owner.id))
    ann.follow(board)
    bob.follow(owner)
    cat.follow(owner)
    cat.unfollow(board)
    assert board.followers.count() == 2
    assert board.followers.contains(bob) and not board.followers.contains(cat)
    assert board.followers.contains_many([cat, bob, ann]) == [bob.id, ann.id]
    assert sorted(board.followers.page().ids) == sorted([ann.id, bob.id])


def test_the_index_row_carries_the_same_managers() -> None:
    ann: Pinner = new_pinner()
    bob: Pinner = new_pinner()
    change = ann.follow(bob)
    assert change.changed and bob.followers.contains(ann)
    assert bob.followers.count() == User.objects.get(bob.user_id).followers.count() == 1


def test_interests_follow_page_and_check() -> None:
    ann = _user(new_user())
    topics = all_interests()[:5]
    for topic in topics[:3]:
        assert ann.interests.follow(topic).changed
    ann.interests.unfollow(topics[1].slug)
    ann.follow(topics[4])
    assert ann.interests.count() == 3
    assert ann.interests.contains(topics[0]) and not ann.interests.contains(topics[1])
    assert ann.interests.contains_many([topics[4], topics[1], topics[2]]) == \
        [topics[4].slug, topics[2].slug]
    first = ann.interests.page(limit=2)
    assert [t.slug for t in first] == [topics[0].slug, topics[2].slug]
    ann.interests.unfollow(topics[2])  # the cursor's interest gone: the next page goes on
    assert [t.slug for t in ann.interests.page(limit=2, after=first.next_cursor)] == \
        [topics[4].slug]
    assert [t.slug for t in ann.interests.iterator(chunk=1)] == [topics[0].slug, topics[4].slug]


def test_bad_cursors_and_targets_are_refused() -> None:
    ann = _user(new_user())
    with pytest.raises(InvalidGraphInput, match="cursor"):
        ann.interests.page(after="bm90LWEtc2x1Zw")
    with pytest.raises(InvalidGraphInput, match="cursor"):
        ann.followed_boards.page(after="%%%")
    with pytest.raises(InvalidGraphInput, match="neither a pinner nor a board"):
        ann.follow(compose(0, PIN.type_id, 1))
    assert interest(all_interests()[0].slug)  # the taxonomy is there to follow


@pytest.mark.slow
def test_ten_thousand_followers_are_walked_page_by_page() -> None:
    star = _user(new_user())
    made = create_pinners([NewPinner(f"k{star.id % 10**9}x{n}") for n in range(10_000)])
    fans = [pinner.user_id for pinner in made if isinstance(pinner, Pinner)]
    assert len(fans) == 10_000
    for start in range(0, len(fans), 1000):
        assert all(not isinstance(change, Exception)
                   for change in follow_users([(fan, star.id) for fan in fans[start:start + 1000]]))
    assert star.followers.count() == 10_000
    walked = [follow.user_id for follow in star.followers.iterator(chunk=1000)]
    assert len(walked) == 10_000 and set(walked) == set(fans)
    assert star.followers.contains_many([*fans[-99:], star.id]) == fans[-99:]
