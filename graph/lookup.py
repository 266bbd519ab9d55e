"""Checking the users and boards a graph call names: ID types, existence, board owners.

IDs of the wrong type and malformed IDs raise
:class:`~sharding.exceptions.MalformedObjectId` (:func:`sharding.ids.parse_id`); IDs of users
or boards that do not exist raise :class:`GraphNotFound`. Objects come from the object store
(object cache first), in one batch per call.

>>> board_owners([144959613005987841])
{144959613005987841: 144959613005987329}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graph.exceptions import GraphNotFound
from pins.types import BOARD, USER
from sharding import objects
from sharding.exceptions import ShardNotOpen
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
    found = _load(user_id_list)
    missing = [str(uid) for uid in user_id_list if uid not in found]
    if missing:
        raise GraphNotFound(f"no user {', '.join(missing)}")


def board_owner(board: int) -> int:
    """The owner of an existing board, or :class:`GraphNotFound`."""
    return board_owners([board])[board]


def board_owners(boards: Iterable[int], strict: bool = True) -> dict[int, int]:
    """``board → owner`` of existing boards; unknown boards raise unless ``strict`` is False."""
    wanted = list(dict.fromkeys(boards))
    found = {board: int(data["owner_id"]) for board, data in _load(wanted).items()}
    missing = [str(board) for board in wanted if board not in found]
    if strict and missing:
        raise GraphNotFound(f"no board {', '.join(missing)}")
    return found


def _load(object_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    wanted = list(object_ids)
    try:
        return objects.get_many(wanted)
    except ShardNotOpen:
        return {oid: data for oid in wanted if (data := _load_one(oid)) is not None}


def _load_one(object_id: int) -> dict[str, Any] | None:
    try:
        return objects.get(object_id)
    except ShardNotOpen:
        return None
