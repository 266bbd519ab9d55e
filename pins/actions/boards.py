"""Board writes. A board lives on its owner's shard, listed in the owner's ``user_has_boards``."""

from __future__ import annotations

from pins import events
from pins.actions.pins import delete_pins_of_board
from pins.domain import Board, timestamp_text
from pins.interests import clean_interest
from pins.lookup import edit, load
from pins.permissions import owned_board
from pins.types import BOARD, USER, USER_HAS_BOARDS
from pins.validation import clean_board_name, clean_description
from sharding import mappings, objects
from sharding.hosts import atomic
from sharding.ids import shard_of
from toolkit.clock import now_us


def create_board(owner_id: int, name: str, description: str = "",
                 interest: str | None = None) -> Board:
    """Create a board on the owner's shard and list it first in the owner's boards; its
    ``interest`` (a taxonomy slug, optional) is carried by the pins made on it."""
    owner_id, _ = load(owner_id, USER)
    created_us = now_us()
    data = {"owner_id": owner_id, "name": clean_board_name(name),
            "description": clean_description(description), "created": timestamp_text(created_us),
            "interest": clean_interest(interest)}
    shard = shard_of(owner_id)
    with atomic(shard):
        board_id = objects.create(BOARD, shard, data)
        mappings.add(USER_HAS_BOARDS, owner_id, board_id, sequence=created_us)
    return Board.from_json(board_id, data)


def update_board(actor_id: int, board_id: int, *, name: str | None = None,
                 description: str | None = None, interest: str | None = None) -> Board:
    """Rename a board, change its description or its interest (owner only); ``None`` keeps a
    field, an ``interest`` of ``""`` clears it. Pins made from then on carry the new
    interest."""
    board_id, data = owned_board(actor_id, board_id)
    return Board.from_json(board_id, edit(board_id, BOARD, data, {
        "name": (name, clean_board_name), "description": (description, clean_description),
        "interest": (interest, clean_interest)}))


def delete_board(actor_id: int, board_id: int) -> int:
    """Delete a board with all its pins (in chunks) and its mappings (owner only).

    Pins go first and the board last, so an interrupted delete leaves a smaller board, never
    pins without one; running it again finishes the job. The board's removal records
    ``board_deleted``, on which the graph drops its follows and the feeds its pins. Returns the
    number of pins deleted.
    """
    board_id, data = owned_board(actor_id, board_id)
    return remove_board(board_id, int(data["owner_id"]))


def remove_board(board_id: int, owner_id: int) -> int:
    """Delete a board of ``owner_id`` with its pins, whoever asks (account deletion)."""
    deleted = delete_pins_of_board(board_id, owner_id)
    shard = shard_of(board_id)
    with atomic(shard):
        objects.delete(board_id)
        mappings.remove(USER_HAS_BOARDS, owner_id, board_id)
        events.board_deleted(shard, board_id, owner_id)
    return deleted

