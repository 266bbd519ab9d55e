"""The content's managers, the Django-shaped front over :mod:`pins.selectors`.

``Pin.objects``, ``Board.objects`` and ``User.objects`` reach the sharded object store as a
model's ``objects`` reaches its table; ``board.pins``, ``pinner.boards``, ``pinner.pins`` and
``pin.repins`` are paged related managers over the mapping tables; ``pin.board``,
``pin.pinner``, ``board.owner`` and ``pinner.profile`` are related objects, loaded on first use
or for a whole page by :func:`toolkit.related.prefetch`. Each method is one selector call:
no second path to a store. A *pinner* is either the profile object (:class:`User`) or the
account's index row (:class:`Pinner`); both carry the same managers.

>>> pins = Pin.objects.in_bulk([pin_a, pin_b])      # one query per host
>>> board = Board.objects.get(board_id)
>>> page = board.pins.page(limit=25)
>>> prefetch(page, "pinner")                        # one get_many for every pinner
>>> [pin.pinner.username for pin in page]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from pins import selectors
from pins.domain import Board, Pin, User
from pins.models import Pinner
from toolkit.paging import Page, Paged
from toolkit.related import ClassManager, Related, RelatedObject, contribute

T = TypeVar("T")
M = TypeVar("M")
PageReader = Callable[[int, int | None, str | None], Page[T]]
PinnerLike = User | Pinner | int
"""A pinner as the managers take one: the profile, the index row, or the user ID."""

PINNER_CLASSES: tuple[type, ...] = (User, Pinner)


def user_id_of(pinner: PinnerLike | str) -> int | str:
    """The user ID of a pinner given as an object or as its ID (checked by the selectors)."""
    if isinstance(pinner, Pinner):
        return pinner.user_id
    if isinstance(pinner, User):
        return pinner.id
    return pinner


class Objects(Generic[T]):
    """One object type of the sharded store, as a model's ``objects``.

    >>> Pin.objects.get(241294492511762325).title
    'Quiche'
    """

    def __init__(self, one: Callable[[int | str], T],
                 many: Callable[[Iterable[int]], dict[int, T]]) -> None:
        self._one, self._many = one, many

    def get(self, object_id: int | str) -> T:
        """The object, or :class:`~pins.exceptions.NotFound` (a malformed ID or one of another
        type raises :class:`~sharding.exceptions.MalformedObjectId`)."""
        return self._one(object_id)

    def in_bulk(self, object_ids: Iterable[int]) -> dict[int, T]:
        """The objects among ``object_ids`` that exist, by ID, in the order given: one query
        per host (object cache first). IDs of other types count as missing."""
        return self._many(object_ids)

    def exists(self, object_id: int) -> bool:
        return object_id in self._many([object_id])


class UserObjects(Objects[User]):
    """``User.objects``: also by username, as logins name pinners."""

    def get(self, object_id: int | str | None = None, *, username: str | None = None) -> User:
        """The pinner with this user ID, or with this username (case-insensitive)."""
        if object_id is not None and username is None:
            return self._one(object_id)
        if username is not None and object_id is None:
            return self._one(selectors.pinner_by_username(username).user_id)
        raise TypeError("give a user ID or a username")


class Listed(Paged[T]):
    """A newest-first list of one owner (``board.pins``), read a page at a time.

    >>> page = board.pins.page(limit=25)
    >>> board.pins.page(limit=25, after=page.next_cursor)
    """

    def __init__(self, owner_id: int, read: PageReader[T], counter: Callable[[int], int]) -> None:
        self.owner_id, self._read, self._count = owner_id, read, counter

    def page(self, limit: int | None = None, after: str | None = None) -> Page[T]:
        """Up to ``limit`` items after the cursor ``after`` (a page's ``next_cursor``)."""
        return self._read(self.owner_id, limit, after)

    def count(self) -> int:
        """The exact length of the list (cached until it changes)."""
        return self._count(self.owner_id)


def by_id(make: Callable[[int], M]) -> Related[M]:
    """A manager of the object it is reached from, built from its ID (``board.followers``)."""
    return Related(lambda owner: make(owner.id))


def listed(read: PageReader[T], counter: Callable[[int], int]) -> Related[Listed[T]]:
    """A list of the object it is reached from (``board.pins``, ``pin.repins``)."""
    return by_id(lambda owner_id: Listed(owner_id, read, counter))


def by_pinner(make: Callable[[int], M]) -> Related[M]:
    """A manager of a pinner built from the user ID, on the profile and the index row alike."""
    return Related(lambda pinner: make(int(user_id_of(pinner))))


def contribute_to_pinners(name: str, value: object) -> None:
    """Give :class:`User` and :class:`Pinner` the manager (or method) ``name``."""
    contribute(PINNER_CLASSES, name, value)


contribute([Pin], "objects", ClassManager(Objects(selectors.get_pin, selectors.pins_by_id)))
contribute([Board], "objects",
           ClassManager(Objects(selectors.get_board, selectors.boards_by_id)))
contribute([User], "objects", ClassManager(UserObjects(selectors.get_user,
                                                       selectors.users_by_id)))
contribute([Board], "pins", listed(selectors.pins_of_board, selectors.board_pin_count))
contribute([Pin], "repins", listed(selectors.repins_of, selectors.repin_count))
contribute_to_pinners("boards", by_pinner(
    lambda user: Listed(user, selectors.boards_of, selectors.user_board_count)))
contribute_to_pinners("pins", by_pinner(
    lambda user: Listed(user, selectors.pins_of_user, selectors.user_pin_count)))
contribute([Pin], "board", RelatedObject("board_id", selectors.get_board, selectors.boards_by_id))
contribute([Pin], "pinner", RelatedObject("pinner_id", selectors.get_user, selectors.users_by_id))
contribute([Board], "owner", RelatedObject("owner_id", selectors.get_user, selectors.users_by_id))
contribute([Pinner], "profile",
           RelatedObject("user_id", selectors.get_user, selectors.users_by_id))
