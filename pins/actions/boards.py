"""Board writes. A board lives on its owner's shard, listed in the owner's ``user_has_boards``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pins import events
from pins.actions.pins import delete_pins_of_board
from pins.domain import Board, JSONObject, timestamp_text
from pins.exceptions import ContentError, NotFound
from pins.interests import clean_interest
from pins.lookup import edit, load
from pins.permissions import owned_board
from pins.types import BOARD, USER, USER_HAS_BOARDS
from pins.validation import clean_board_name, clean_description
from sharding import mappings, objects
from sharding.hosts import atomic, atomic_on_host, by_host
from sharding.ids import shard_of, type_of
from toolkit.clock import now_us


@dataclass(frozen=True)
class NewBoard:
    """One board of :func:`create_boards`."""

    owner_id: int
    name: str
    description: str = ""


def create_board(owner_id: int, name: str, description: str = "",
                 interest: str | None = None) -> Board:
    """Create a board on the owner's shard and list it first in the owner's boards; its
    ``interest`` (a taxonomy slug, optional) is carried by the pins made on it."""
    owner_id, _ = load(owner_id, USER)
    data, created_us = _board_data(owner_id, name, description, interest)
    shard = shard_of(owner_id)
    with atomic(shard):
        board_id = _write_board(shard, data, created_us)
    return Board.from_json(board_id, data)


def create_boards(new: Sequence[NewBoard]) -> list[Board | ContentError]:
    """Make many boards at once (an import), each on its owner's shard: the owners are read
    in one query per host, and the boards of one host's shards are written in one
    transaction there. Returns, in order, each board or the :class:`ContentError` that
    refused it; a host that fails raises, and the boards of hosts written before it stay."""
    owners = {owner_id for owner_id, _ in objects.get_many(spec.owner_id for spec in new).items()
              if type_of(owner_id) is USER}
    results: list[Board | ContentError | None] = [None] * len(new)
    shards: dict[int, list[tuple[int, JSONObject, int]]] = {}
    for index, spec in enumerate(new):
        if spec.owner_id not in owners:
            results[index] = NotFound(f"No {USER.name} {spec.owner_id}.")
            continue
        try:
            data, created_us = _board_data(spec.owner_id, spec.name, spec.description, None)
        except ContentError as exc:
            results[index] = exc
            continue
        shards.setdefault(shard_of(spec.owner_id), []).append((index, data, created_us))
    for on_host in by_host(shards).values():
        with atomic_on_host(on_host):
            ids = objects.create_on_host(BOARD, {shard: [data for _, data, _ in shards[shard]]
                                                 for shard in on_host})
            written = [(index, board_id, data) for shard in on_host
                       for (index, data, _), board_id in zip(
                           shards[shard], _list_boards(ids[shard], [
                               (data, created_us) for _, data, created_us in shards[shard]]),
                           strict=True)]
        for index, board_id, data in written:
            results[index] = Board.from_json(board_id, data)
    return [result for result in results if result is not None]


def _board_data(owner_id: int, name: str, description: str,
                interest: str | None) -> tuple[JSONObject, int]:
    """A new board's JSON (cleaned), and its creation time in microseconds."""
    created_us = now_us()
    return {"owner_id": owner_id, "name": clean_board_name(name),
            "description": clean_description(description), "created": timestamp_text(created_us),
            "interest": clean_interest(interest)}, created_us


def _write_board(shard: int, data: JSONObject, created_us: int) -> int:
    """The board object, listed first in its owner's boards, in the open transaction."""
    return _write_boards(shard, [(data, created_us)])[0]


def _write_boards(shard: int, boards: list[tuple[JSONObject, int]]) -> list[int]:
    """Board objects of ``shard`` (JSON, creation time), each listed first in its owner's
    boards, in the open transaction there (one multi-row insert each); their IDs, in order."""
    return _list_boards(objects.create_many(BOARD, shard, [data for data, _ in boards]), boards)


def _list_boards(board_ids: list[int], boards: list[tuple[JSONObject, int]]) -> list[int]:
    """Boards just made, each listed first in its owner's boards; their IDs, in order."""
    mappings.add_many(USER_HAS_BOARDS, [
        (int(data["owner_id"]), board_id, created_us)
        for board_id, (data, created_us) in zip(board_ids, boards, strict=True)])
    return board_ids


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

