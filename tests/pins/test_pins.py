"""Pins: placement, mappings, updates, deletes, permissions and bad input."""

from __future__ import annotations

import pytest
from django.core.files.storage import default_storage
from pytest_django import Settings

from pins.actions import create_pin, delete_pin, update_pin
from pins.exceptions import InvalidContent, NotFound, PermissionDenied
from pins.selectors import (
    board_pin_count,
    get_pin,
    pins_of_board,
    pins_of_user,
    user_pin_count,
)
from pins.types import BOARD_HAS_PINS, PIN, USER_HAS_PINS
from sharding import ids, mappings
from sharding.exceptions import MalformedObjectId
from sharding.ids import shard_of
from sharding.topology import current_map
from tests.pins.helpers import image_bytes, new_board, new_pin, new_pinner


@pytest.fixture
def owner_and_board() -> tuple[int, int]:
    owner = new_pinner()
    return owner.user_id, new_board(owner.user_id).id


def test_pinner_board_and_pin_share_one_shard(owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    pin = new_pin(owner_id, board_id)
    assert shard_of(pin.id) == shard_of(board_id) == shard_of(owner_id)


def test_a_pin_keeps_its_fields_and_image(owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    pin = create_pin(owner_id, board_id, " Leek quiche ", "Crisp pastry.",
                     "https://example.com/quiche", image_bytes(472, 300, "JPEG"))
    stored = get_pin(pin.id)
    assert stored == pin
    assert (stored.title, stored.link, stored.width, stored.height) == (
        "Leek quiche", "https://example.com/quiche", 472, 300)
    assert stored.source_pin_id is None and not stored.is_repin
    assert default_storage.exists(stored.image) and default_storage.exists(stored.thumbnail)


def test_a_pin_is_listed_on_its_board_and_its_pinner(owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    pin = new_pin(owner_id, board_id)
    assert [p.id for p in pins_of_board(board_id).items] == [pin.id]
    assert [p.id for p in pins_of_user(owner_id).items] == [pin.id]
    assert board_pin_count(board_id) == user_pin_count(owner_id) == 1


def test_pin_mappings_use_the_creation_time_as_sequence(owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    pin = new_pin(owner_id, board_id)
    assert mappings.sequence_of(BOARD_HAS_PINS, board_id, pin.id) == pin.created_us
    assert mappings.sequence_of(USER_HAS_PINS, owner_id, pin.id) == pin.created_us


def test_pinning_to_someone_elses_board_is_denied(owner_and_board: tuple[int, int]) -> None:
    _, board_id = owner_and_board
    with pytest.raises(PermissionDenied, match="another pinner"):
        new_pin(new_pinner().user_id, board_id)
    assert board_pin_count(board_id) == 0


def test_pinning_to_a_pin_id_instead_of_a_board_is_not_found(
        owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    pin = new_pin(owner_id, board_id)
    with pytest.raises(MalformedObjectId, match="not a board ID"):
        new_pin(owner_id, pin.id)


def test_a_bad_link_is_rejected(owner_and_board: tuple[int, int]) -> None:
    with pytest.raises(InvalidContent, match="http or https") as caught:
        new_pin(*owner_and_board, link="javascript:alert(1)")
    assert caught.value.field == "link"


def test_a_long_title_is_rejected(owner_and_board: tuple[int, int]) -> None:
    with pytest.raises(InvalidContent, match="at most 100 characters"):
        new_pin(*owner_and_board, title="q" * 101)


def test_bad_image_bytes_are_rejected_and_nothing_is_stored(
        owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    with pytest.raises(InvalidContent, match="not a JPEG, PNG, GIF or WebP"):
        create_pin(owner_id, board_id, "Broken", "", "", b"GIF89a garbage")
    assert board_pin_count(board_id) == 0
    assert not default_storage.exists("pins")


def test_an_oversized_image_is_rejected(owner_and_board: tuple[int, int],
                                        settings: Settings) -> None:
    settings.PINSITE_CONTENT = {**settings.PINSITE_CONTENT,
                                "MAX_IMAGE_BYTES": 1024 * 1024}
    owner_id, board_id = owner_and_board
    with pytest.raises(InvalidContent, match="larger than 1 MB"):
        create_pin(owner_id, board_id, "Huge", "", "", b"\xff\xd8" + b"\0" * 1024 * 1024)


def test_updating_a_pin_changes_what_is_read_back(owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    pin = new_pin(owner_id, board_id, title="Before")
    assert get_pin(pin.id).title == "Before"
    update_pin(owner_id, pin.id, title="After", link="https://example.com/after")
    assert (get_pin(pin.id).title, get_pin(pin.id).link) == ("After", "https://example.com/after")
    assert pins_of_board(board_id).items[0].title == "After"


def test_updating_a_pin_with_a_bad_link_changes_nothing(owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    pin = new_pin(owner_id, board_id, title="Kept")
    with pytest.raises(InvalidContent):
        update_pin(owner_id, pin.id, title="Lost", link="not a url")
    assert get_pin(pin.id).title == "Kept"


def test_only_the_pinner_may_update_a_pin(owner_and_board: tuple[int, int]) -> None:
    pin = new_pin(*owner_and_board)
    with pytest.raises(PermissionDenied):
        update_pin(new_pinner().user_id, pin.id, title="Mine")


def test_deleting_a_pin_removes_it_and_its_listings(owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    kept, doomed = new_pin(owner_id, board_id), new_pin(owner_id, board_id)
    assert pins_of_board(board_id).items[0].id == doomed.id
    delete_pin(owner_id, doomed.id)
    with pytest.raises(NotFound):
        get_pin(doomed.id)
    assert [p.id for p in pins_of_board(board_id).items] == [kept.id]
    assert [p.id for p in pins_of_user(owner_id).items] == [kept.id]
    assert board_pin_count(board_id) == user_pin_count(owner_id) == 1


def test_only_the_pinner_may_delete_a_pin(owner_and_board: tuple[int, int]) -> None:
    pin = new_pin(*owner_and_board)
    with pytest.raises(PermissionDenied):
        delete_pin(new_pinner().user_id, pin.id)
    assert get_pin(pin.id).id == pin.id


def test_deleting_a_missing_pin_is_not_found(owner_and_board: tuple[int, int]) -> None:
    owner_id, board_id = owner_and_board
    pin = new_pin(owner_id, board_id)
    delete_pin(owner_id, pin.id)
    with pytest.raises(NotFound):
        delete_pin(owner_id, pin.id)


@pytest.mark.parametrize("bad_id", ["abc", "-1", 0, 2**63, "12.5"])
def test_malformed_pin_ids_are_refused(bad_id: object) -> None:
    with pytest.raises(MalformedObjectId, match="not a pin ID"):
        get_pin(bad_id)  # type: ignore[arg-type]


def test_a_board_id_read_as_a_pin_is_refused(owner_and_board: tuple[int, int]) -> None:
    with pytest.raises(MalformedObjectId, match="not a pin ID"):
        get_pin(owner_and_board[1])


def test_a_pin_id_on_a_shard_that_is_not_open_is_not_found() -> None:
    closed = current_map().shard_count() + 5
    with pytest.raises(NotFound, match="shard is not open"):
        get_pin(ids.compose(closed, PIN.type_id, 1))


def test_a_pin_id_given_as_text_is_accepted(owner_and_board: tuple[int, int]) -> None:
    pin = new_pin(*owner_and_board)
    assert get_pin(str(pin.id)).id == pin.id


def test_a_pin_id_in_unicode_digits_is_refused() -> None:
    with pytest.raises(MalformedObjectId):
        get_pin("²")
