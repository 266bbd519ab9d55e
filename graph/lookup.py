"""Checking the users and boards a graph call names: ID types, existence, board owners.

IDs of the wrong type and malformed IDs raise
:class:`~sharding.exceptions.MalformedObjectId` (:func:`sharding.ids.parse_id`); IDs of users
or boards that do not exist raise :class:`GraphNotFound`. Objects come from the content's
selectors (object cache first), in one batch per call.

>>> board_owners([144959613005987841])
{144959613005987841: 144959613005987329}
"""

from __future__ import annotations

from collections.abc import Iterable

from graph.exceptions import GraphNotFound
from pins.selectors import boards_by_id, users_by_id
from pins.types import BOARD, USER
from sharding.ids import parse_id


def user_id(value: int | str) -> int:
    return parse_id(value, USER)


def board_id(value: int | str) -> int:
    return parse_id(value, BOARD)


def user_ids(values: Iterable[int | str]) -> list[int]:
    return [user_id(value) for value in values]


def board_ids(values: Iterable[int | str]) -> list[int]:
    return [board_id(value) for value in values]


def require_users(*user_id_list: int) -> None:
    """Raise :class:`GraphNotFound` unless every user exists."""
    found = users_by_id(user_id_list)
    missing = [str(uid) for uid in user_id_list if uid not in found]
    if missing:
        raise GraphNotFound(f"no user {', '.join(missing)}")


def board_owner(board: int) -> int:
    """The owner of an existing board, or :class:`GraphNotFound`."""
    return board_owners([board])[board]


def board_owners(boards: Iterable[int], strict: bool = True) -> dict[int, int]:
    """``board → owner`` of existing boards; unknown boards raise unless ``strict`` is False."""
    wanted = list(dict.fromkeys(boards))
    found = {board_id: board.owner_id for board_id, board in boards_by_id(wanted).items()}
    missing = [str(board) for board in wanted if board not in found]
    if strict and missing:
        raise GraphNotFound(f"no board {', '.join(missing)}")
    return found
