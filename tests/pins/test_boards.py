"""Boards: placement on the owner's shard, mappings, updates, deletes and permissions."""

from __future__ import annotations

import pytest

from pins.actions import create_board, delete_board, update_board
from pins.actions import pins as pin_actions
from pins.exceptions import InvalidContent, NotFound, PermissionDenied
from pins.selectors import (
    boards_of,
    get_board,
    get_pin,
    pins_of_user,
    user_board_count,
    user_pin_count,
)
from pins.types import BOARD_HAS_PINS, USER_HAS_BOARDS
from sharding import mappings
from sharding.exceptions import MalformedObjectId
from sharding.ids import shard_of
from tests.pins.helpers import new_board, new_pin, new_pinner


def test_a_board_lives_on_its_owners_shard() -> None:
    owner = new_pinner()
    board = create_board(owner.user_id, "Quiche ideas", "Savoury tarts")
    assert shard_of(board.id) == shard_of(owner.user_id)
    assert (board.owner_id, board.name, board.description) == (
        owner.user_id, "Quiche ideas", "Savoury tarts")


def test_a_new_board_is_listed_first_among_the_owners_boards() -> None:
    owner = new_pinner()
    older, newer = new_board(owner.user_id, "Older"), new_board(owner.user_id, "Newer")
    assert [board.id for board in boards_of(owner.user_id).items] == [newer.id, older.id]
    assert user_board_count(owner.user_id) == 2


def test_the_board_mapping_sequence_is_the_creation_time() -> None:
    owner = new_pinner()
    board = new_board(owner.user_id)
    assert mappings.sequence_of(USER_HAS_BOARDS, owner.user_id, board.id) == board.created_us


def test_a_board_for_a_board_id_as_its_owner_is_refused() -> None:
    owner = new_pinner()
    board = new_board(owner.user_id)
    with pytest.raises(MalformedObjectId, match="not a user ID"):
        create_board(board.id, "Not a user")


def test_a_board_needs_a_name() -> None:
    with pytest.raises(InvalidContent, match="Name is required"):
        create_board(new_pinner().user_id, " ")


def test_updating_a_board_changes_what_is_read_back() -> None:
    owner = new_pinner()
    board = new_board(owner.user_id, "Before")
    assert get_board(board.id).name == "Before"
    update_board(owner.user_id, board.id, name="After", description="New words")
    assert (get_board(board.id).name, get_board(board.id).description) == ("After", "New words")


def test_updating_a_board_keeps_fields_not_given() -> None:
    owner = new_pinner()
    board = create_board(owner.user_id, "Name", "Kept")
    assert update_board(owner.user_id, board.id, name="Renamed").description == "Kept"


def test_only_the_owner_may_update_a_board() -> None:
    board = new_board(new_pinner().user_id)
    with pytest.raises(PermissionDenied, match="another pinner"):
        update_board(new_pinner().user_id, board.id, name="Mine now")


def test_deleting_a_board_removes_it_and_its_listing() -> None:
    owner = new_pinner()
    board = new_board(owner.user_id)
    assert delete_board(owner.user_id, board.id) == 0
    with pytest.raises(NotFound):
        get_board(board.id)
    assert boards_of(owner.user_id).items == [] and user_board_count(owner.user_id) == 0


def test_deleting_a_board_deletes_its_pins_and_their_mappings() -> None:
    owner = new_pinner()
    board = new_board(owner.user_id)
    pins = [new_pin(owner.user_id, board.id) for _ in range(3)]
    assert delete_board(owner.user_id, board.id) == 3
    for pin in pins:
        with pytest.raises(NotFound):
            get_pin(pin.id)
    assert mappings.count(BOARD_HAS_PINS, board.id) == 0
    assert user_pin_count(owner.user_id) == 0 and pins_of_user(owner.user_id).items == []


def test_deleting_a_board_works_through_many_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pin_actions, "BOARD_DELETE_CHUNK", 2)
    owner = new_pinner()
    board = new_board(owner.user_id)
    for _ in range(5):
        new_pin(owner.user_id, board.id)
    assert delete_board(owner.user_id, board.id) == 5
    assert mappings.count(BOARD_HAS_PINS, board.id) == 0


def test_deleting_a_board_keeps_the_owners_other_boards_and_pins() -> None:
    owner = new_pinner()
    doomed, kept = new_board(owner.user_id, "Doomed"), new_board(owner.user_id, "Kept")
    new_pin(owner.user_id, doomed.id)
    survivor = new_pin(owner.user_id, kept.id)
    delete_board(owner.user_id, doomed.id)
    assert [pin.id for pin in pins_of_user(owner.user_id).items] == [survivor.id]
    assert [board.id for board in boards_of(owner.user_id).items] == [kept.id]


def test_only_the_owner_may_delete_a_board() -> None:
    board = new_board(new_pinner().user_id)
    with pytest.raises(PermissionDenied):
        delete_board(new_pinner().user_id, board.id)
    assert get_board(board.id).id == board.id


def test_deleting_a_pin_id_as_a_board_is_refused() -> None:
    owner = new_pinner()
    pin = new_pin(owner.user_id, new_board(owner.user_id).id)
    with pytest.raises(MalformedObjectId, match="not a board ID"):
        delete_board(owner.user_id, pin.id)
