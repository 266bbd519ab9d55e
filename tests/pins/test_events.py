"""Domain events: recorded with the change, published after the commit, IDs and times only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pins.actions import delete_board, delete_pin, repin
from pins.events import PIN_CREATED, PIN_DELETED
from pins.selectors import get_pin
from tests.events.helpers import recorded
from tests.pins.helpers import new_board, new_pin, new_pinner


@pytest.fixture
def created() -> Iterator[list[dict[str, Any]]]:
    with recorded(PIN_CREATED) as received:
        yield received


@pytest.fixture
def deleted() -> Iterator[list[dict[str, Any]]]:
    with recorded(PIN_DELETED) as received:
        yield received


def test_creating_a_pin_sends_pin_created(created: list[dict[str, Any]]) -> None:
    owner = new_pinner()
    board = new_board(owner.user_id)
    pin = new_pin(owner.user_id, board.id)
    assert created == [{"pin_id": pin.id, "board_id": board.id, "pinner_id": owner.user_id,
                        "created_at_us": pin.created_us, "source_pin_id": None}]


def test_pin_created_is_sent_once_the_pin_is_readable() -> None:
    seen: list[str] = []
    with recorded(PIN_CREATED, lambda payload: seen.append(get_pin(payload["pin_id"]).title)):
        owner = new_pinner()
        new_pin(owner.user_id, new_board(owner.user_id).id, title="Visible")
    assert seen == ["Visible"]


def test_a_repin_sends_pin_created(created: list[dict[str, Any]]) -> None:
    owner = new_pinner()
    source = new_pin(owner.user_id, new_board(owner.user_id).id)
    copy = repin(owner.user_id, source.id, new_board(owner.user_id, "Other").id)
    assert [event["pin_id"] for event in created] == [source.id, copy.id]


def test_deleting_a_pin_sends_pin_deleted_with_its_creation_time(
        created: list[dict[str, Any]], deleted: list[dict[str, Any]]) -> None:
    owner = new_pinner()
    board = new_board(owner.user_id)
    pin = new_pin(owner.user_id, board.id)
    delete_pin(owner.user_id, pin.id)
    assert deleted == [{"pin_id": pin.id, "board_id": board.id, "pinner_id": owner.user_id,
                        "created_at_us": created[0]["created_at_us"]}]


def test_deleting_a_board_sends_pin_deleted_for_each_pin(deleted: list[dict[str, Any]]) -> None:
    owner = new_pinner()
    board = new_board(owner.user_id)
    pins = {new_pin(owner.user_id, board.id).id for _ in range(3)}
    delete_board(owner.user_id, board.id)
    assert {event["pin_id"] for event in deleted} == pins


def test_a_failing_subscriber_does_not_fail_the_write() -> None:
    def broken(payload: dict[str, Any]) -> None:
        raise RuntimeError("feed is down")

    with recorded(PIN_CREATED, broken):
        owner = new_pinner()
        pin = new_pin(owner.user_id, new_board(owner.user_id).id)
    assert get_pin(pin.id).id == pin.id
