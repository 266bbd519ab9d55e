"""Pages and counts: newest first, cursors, one object fetch per page, stale entries skipped."""

from __future__ import annotations

import pytest
from pytest_django import Settings

from pins import selectors
from pins.exceptions import InvalidContent
from pins.selectors import boards_of, pins_of_board
from sharding import objects
from sharding.exceptions import MalformedObjectId
from tests.pins.helpers import new_board, new_pin, new_pinner
from toolkit.paging import InvalidPageSize


@pytest.fixture
def board_with_five_pins() -> tuple[int, list[int]]:
    owner = new_pinner()
    board = new_board(owner.user_id)
    return board.id, [new_pin(owner.user_id, board.id, title=f"Pin {n}").id for n in range(5)]


@pytest.fixture
def fetches(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The IDs asked of each ``objects.get_many`` call from here on."""
    calls: list[list[int]] = []
    real_get_many = objects.get_many

    def counting_get_many(ids: list[int]) -> dict[int, dict[str, object]]:
        calls.append(list(ids))
        return real_get_many(ids)

    monkeypatch.setattr(objects, "get_many", counting_get_many)
    return calls


def test_pages_walk_a_board_newest_first(board_with_five_pins: tuple[int, list[int]]) -> None:
    board_id, pin_ids = board_with_five_pins
    seen, cursor = [], None
    while True:
        page = pins_of_board(board_id, limit=2, after=cursor)
        seen.append([pin.id for pin in page.items])
        cursor = page.next_cursor
        if cursor is None:
            break
    newest_first = pin_ids[::-1]
    assert seen == [newest_first[0:2], newest_first[2:4], newest_first[4:]]


def test_a_page_is_hydrated_with_one_object_fetch(board_with_five_pins: tuple[int, list[int]],
                                                  fetches: list[list[int]]) -> None:
    board_id, _ = board_with_five_pins
    assert len(pins_of_board(board_id, limit=5).items) == 5
    assert len(fetches) == 1 and len(fetches[0]) == 5


def test_a_list_entry_whose_object_is_gone_is_skipped(
        board_with_five_pins: tuple[int, list[int]]) -> None:
    board_id, pin_ids = board_with_five_pins
    objects.delete(pin_ids[-1])
    assert [pin.id for pin in pins_of_board(board_id).items] == pin_ids[-2::-1]


def test_an_invalid_cursor_is_bad_input(board_with_five_pins: tuple[int, list[int]]) -> None:
    with pytest.raises(InvalidContent, match="cursor"):
        pins_of_board(board_with_five_pins[0], after="!!not-a-cursor!!")


@pytest.mark.parametrize("limit", [0, -3, 100_000])
def test_a_page_size_out_of_range_is_bad_input(limit: int) -> None:
    with pytest.raises(InvalidPageSize, match="page size"):
        boards_of(new_pinner().user_id, limit=limit)


def test_the_default_page_size_comes_from_the_content_settings(
        board_with_five_pins: tuple[int, list[int]], settings: Settings) -> None:
    settings.PINSITE_CONTENT = {**settings.PINSITE_CONTENT, "PAGE_SIZE": 3}
    page = pins_of_board(board_with_five_pins[0])
    assert len(page.items) == 3 and page.next_cursor is not None


def test_listing_the_boards_of_a_board_id_is_refused(
        board_with_five_pins: tuple[int, list[int]]) -> None:
    with pytest.raises(MalformedObjectId, match="not a user ID"):
        boards_of(board_with_five_pins[0])


def test_counting_the_pins_of_a_pin_id_is_refused(
        board_with_five_pins: tuple[int, list[int]]) -> None:
    with pytest.raises(MalformedObjectId, match="not a board ID"):
        selectors.board_pin_count(board_with_five_pins[1][0])


def test_counts_follow_creates_and_deletes() -> None:
    owner = new_pinner()
    board = new_board(owner.user_id)
    assert selectors.board_pin_count(board.id) == 0
    new_pin(owner.user_id, board.id)
    assert selectors.board_pin_count(board.id) == 1
    assert selectors.user_pin_count(owner.user_id) == 1
    assert selectors.user_board_count(owner.user_id) == 1


def test_users_by_id_fetches_once_and_skips_what_is_gone_or_not_a_user(
        board_with_five_pins: tuple[int, list[int]], fetches: list[list[int]]) -> None:
    alice, bob, gone = new_pinner(), new_pinner(), new_pinner()
    objects.delete(gone.user_id)
    asked = [bob.user_id, gone.user_id, board_with_five_pins[1][0], alice.user_id, bob.user_id]
    fetches.clear()
    found = selectors.users_by_id(asked)
    assert len(fetches) == 1
    assert list(found) == [bob.user_id, alice.user_id]
    assert found[alice.user_id] == selectors.get_user(alice.user_id)


def test_board_covers_are_each_boards_newest_pin(
        board_with_five_pins: tuple[int, list[int]]) -> None:
    board_id, pin_ids = board_with_five_pins
    owner = new_pinner()
    empty = new_board(owner.user_id).id
    gone_cover = new_board(owner.user_id).id
    objects.delete(new_pin(owner.user_id, gone_cover).id)
    covers = selectors.board_covers([board_id, empty, gone_cover])
    assert list(covers) == [board_id] and covers[board_id].id == pin_ids[-1]
