"""The graph's managers, the Django-shaped front over :mod:`graph.selectors` and
:mod:`graph.actions`: who follows a pinner or a board, whom and what a pinner follows, and the
follow itself.

``pinner.followers``, ``pinner.following``, ``pinner.followed_boards``, ``board.followers`` and
``pinner.interests`` are sets with ``count()``, ``contains(x)``, ``contains_many(xs)`` (one
round trip however many are asked about), ``page(limit, after)`` and ``iterator(chunk)``; each
answers as its count does, so an item is in a page exactly when ``contains`` says so.
``pinner.follow(x)`` and ``pinner.unfollow(x)`` take a pinner, a board or an interest;
``pinner.follows(x)`` and ``pinner.which_followed(xs)`` answer as the follow buttons do (a
pinner followed explicitly; a board explicitly or through its owner).

>>> ada.followers.count()
3
>>> ada.follow(grace)
FollowChange(follower_id=..., target_kind='user', action='follow', changed=True, ...)
>>> board.followers.contains_many([ada, grace])
[2522015791327477761]
>>> [follow.user_id for follow in ada.following.iterator(chunk=500)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from graph import actions, interests, selectors
from graph.actions import FollowChange
from graph.exceptions import InvalidGraphInput
from graph.interests import InterestFollowChange
from graph.selectors import BoardFollow, Follow, FollowKind
from pins.domain import Board, User
from pins.interests import Interest
from pins.managers import PinnerLike, by_id, by_pinner, contribute_to_pinners, user_id_of
from pins.models import Pinner
from pins.types import BOARD, USER
from sharding.ids import decompose
from toolkit.paging import Page, Paged
from toolkit.related import contribute

T = TypeVar("T")
BoardLike = Board | int
FollowTarget = User | Pinner | Board | Interest | int
"""What a pinner follows: a pinner, a board, an interest, or a user's or board's ID."""


class FollowSet(Paged[T]):
    """The part every graph set shares: its owner, and iteration a thousand at a time."""

    chunk = 1000

    def __init__(self, owner_id: int) -> None:
        self.owner_id = owner_id


class Followers(FollowSet[Follow]):
    """``pinner.followers``: who follows the pinner, or at least one of their boards."""

    def count(self) -> int:
        return selectors.follower_count(self.owner_id)

    def contains(self, pinner: PinnerLike) -> bool:
        return selectors.follow_kind(user_id_of(pinner), self.owner_id) is not None

    def contains_many(self, pinners: Sequence[PinnerLike]) -> list[int]:
        """The user IDs of those of ``pinners`` who follow, in input order."""
        return selectors.followers_among(self.owner_id, [user_id_of(p) for p in pinners])

    def page(self, limit: int | None = None, after: str | None = None) -> Page[Follow]:
        return selectors.followers_page(self.owner_id, limit, after)


class Following(FollowSet[Follow]):
    """``pinner.following``: whom the pinner follows, or at least one of whose boards."""

    def count(self) -> int:
        return selectors.following_count(self.owner_id)

    def contains(self, pinner: PinnerLike) -> bool:
        return self.kind(pinner) is not None

    def kind(self, pinner: PinnerLike) -> FollowKind | None:
        """``explicit`` (the pinner and so all their boards), ``implicit`` (some boards only)
        or ``None``."""
        return selectors.follow_kind(self.owner_id, user_id_of(pinner))

    def contains_many(self, pinners: Sequence[PinnerLike]) -> list[int]:
        """The user IDs of those of ``pinners`` followed, in input order."""
        return selectors.followings_among(self.owner_id, [user_id_of(p) for p in pinners])

    def page(self, limit: int | None = None, after: str | None = None) -> Page[Follow]:
        return selectors.followings_page(self.owner_id, limit, after)


class FollowedBoards(FollowSet[BoardFollow]):
    """``pinner.followed_boards``: the boards the pinner follows one by one (a board followed
    only through its owner is not among them; :meth:`follows` answers for it too)."""

    def count(self) -> int:
        return selectors.followed_board_count(self.owner_id)

    def contains(self, board: BoardLike) -> bool:
        return bool(self.contains_many([board]))

    def contains_many(self, boards: Sequence[BoardLike]) -> list[int]:
        """The IDs of those of ``boards`` followed one by one, in input order."""
        return selectors.which_boards_followed_explicitly(self.owner_id,
                                                          [board_id_of(b) for b in boards])

    def page(self, limit: int | None = None, after: str | None = None) -> Page[BoardFollow]:
        return selectors.followed_boards_page(self.owner_id, limit, after)


class UnfollowedBoards(FollowSet[BoardFollow]):
    """``pinner.unfollowed_boards``: the boards the pinner unfollowed one by one while
    following their owners (the exceptions to "following a pinner follows all their boards"),
    newest first by the time of the unfollow."""

    def count(self) -> int:
        return selectors.unfollowed_board_count(self.owner_id)

    def page(self, limit: int | None = None, after: str | None = None) -> Page[BoardFollow]:
        return selectors.unfollowed_boards_page(self.owner_id, limit, after)


class BoardFollowers(FollowSet[Follow]):
    """``board.followers``: who follows the board, explicitly or through its owner (and has
    not unfollowed it)."""

    def count(self) -> int:
        return selectors.board_follower_count(self.owner_id)

    def contains(self, pinner: PinnerLike) -> bool:
        return selectors.is_following_board(user_id_of(pinner), self.owner_id)

    def contains_many(self, pinners: Sequence[PinnerLike]) -> list[int]:
        """The user IDs of those of ``pinners`` who follow the board, in input order."""
        return selectors.board_followers_among(self.owner_id, [user_id_of(p) for p in pinners])

    def page(self, limit: int | None = None, after: str | None = None) -> Page[Follow]:
        return selectors.board_followers_page(self.owner_id, limit, after)


class Interests(Paged[Interest]):
    """``pinner.interests``: the interests the pinner follows, in the taxonomy's order.

    >>> ada.interests.follow("baking")
    >>> [topic.slug for topic in ada.interests.page()]
    ['baking', 'gardening']
    """

    def __init__(self, owner_id: int) -> None:
        self.owner_id = owner_id

    def follow(self, topic: Interest | str) -> InterestFollowChange:
        return interests.follow_interest(self.owner_id, slug_of(topic))

    def unfollow(self, topic: Interest | str) -> InterestFollowChange:
        return interests.unfollow_interest(self.owner_id, slug_of(topic))

    def count(self) -> int:
        return interests.followed_interest_count(self.owner_id)

    def contains(self, topic: Interest | str) -> bool:
        return interests.is_following_interest(self.owner_id, slug_of(topic))

    def contains_many(self, topics: Sequence[Interest | str]) -> list[str]:
        """The slugs of those of ``topics`` followed, in input order."""
        return interests.which_interests_followed(self.owner_id, [slug_of(t) for t in topics])

    def page(self, limit: int | None = None, after: str | None = None) -> Page[Interest]:
        """Up to ``limit`` interests after the cursor ``after``."""
        return interests.followed_interests_page(self.owner_id, limit, after)


def board_id_of(board: BoardLike | str) -> int | str:
    return board.id if isinstance(board, Board) else board


def slug_of(topic: Interest | str) -> str:
    return topic.slug if isinstance(topic, Interest) else topic


def follow(pinner: PinnerLike, target: FollowTarget) -> FollowChange | InterestFollowChange:
    """``pinner`` follows ``target``: a pinner (and so all their boards), a board, or an
    interest (:mod:`graph.actions`, :mod:`graph.interests`)."""
    return _change(pinner, target, actions.follow_user, actions.follow_board,
                   interests.follow_interest)


def unfollow(pinner: PinnerLike, target: FollowTarget) -> FollowChange | InterestFollowChange:
    """``pinner`` stops following ``target``, as :func:`follow` names it."""
    return _change(pinner, target, actions.unfollow_user, actions.unfollow_board,
                   interests.unfollow_interest)


def follows(pinner: PinnerLike, target: User | Pinner | BoardLike) -> bool:
    """As the follow buttons answer: a pinner followed explicitly, a board explicitly or
    through its owner."""
    return bool(which_followed(pinner, [target]))


def which_followed(pinner: PinnerLike, targets: Sequence[User | Pinner | BoardLike]) -> list[int]:
    """The IDs of those of ``targets`` (pinners and boards) ``pinner`` follows as
    :func:`follows` says, in input order: one round trip for the pinners, one for the boards."""
    follower = user_id_of(pinner)
    wanted = [_target_id(target) for target in targets]
    boards = [object_id for object_id in wanted if _kind(object_id) == BOARD.type_id]
    users = [object_id for object_id in wanted if _kind(object_id) == USER.type_id]
    followed = {*selectors.which_users_followed(follower, users),
                *selectors.which_boards_followed(follower, boards)}
    return [object_id for object_id in wanted if object_id in followed]


FollowUser = Callable[[int | str, int | str], FollowChange]
FollowInterest = Callable[[int | str, str], InterestFollowChange]


def _change(pinner: PinnerLike, target: FollowTarget, on_user: FollowUser, on_board: FollowUser,
            on_interest: FollowInterest) -> FollowChange | InterestFollowChange:
    follower = user_id_of(pinner)
    if isinstance(target, Interest):
        return on_interest(follower, target.slug)
    object_id = _target_id(target)
    return (on_board if _kind(object_id) == BOARD.type_id else on_user)(follower, object_id)


def _target_id(target: User | Pinner | Board | int) -> int:
    """The ID of a pinner or a board; an ID of another type is :class:`InvalidGraphInput`."""
    object_id = target.id if isinstance(target, Board) else int(user_id_of(target))
    if _kind(object_id) not in (USER.type_id, BOARD.type_id):
        raise InvalidGraphInput(f"{object_id} is neither a pinner nor a board")
    return object_id


def _kind(object_id: int) -> int:
    return decompose(object_id).type_id


contribute_to_pinners("followers", by_pinner(Followers))
contribute_to_pinners("following", by_pinner(Following))
contribute_to_pinners("followed_boards", by_pinner(FollowedBoards))
contribute_to_pinners("unfollowed_boards", by_pinner(UnfollowedBoards))
contribute_to_pinners("interests", by_pinner(Interests))
contribute_to_pinners("follow", follow)
contribute_to_pinners("unfollow", unfollow)
contribute_to_pinners("follows", follows)
contribute_to_pinners("which_followed", which_followed)
contribute([Board], "followers", by_id(BoardFollowers))
