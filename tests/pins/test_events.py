"""Domain events: sent after the commit, with IDs and times only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.dispatch import Signal

from pins.actions import delete_board, delete_pin, repin
from pins.events import pin_created, pin_deleted
from pins.selectors import get_pin
from tests.pins.helpers import new_board, new_pin, new_pinner


def _record(signal: Signal) -> Iterator[list[dict[str, Any]]]:
    received: list[dict[str, Any]] = []

    def receiver(sender: object, **payload: Any) -> None:
        payload.pop("signal")
        received.append(payload)

    signal.connect(receiver, weak=False)
    yield received
    signal.disconnect(receiver)


@pytest.fixture
def created() -> Iterator[list[dict[str, Any]]]:
    yield from _record(pin_created)


@pytest.fixture
def deleted() -> Iterator[list[dict[str, Any]]]:
    yield from _record(pin_deleted)


def test_creating_a_pin_sends_pin_created(created: list[dict[str, Any]]) -> None:
    owner = new_pinner()
    board = new_board(owner.user_id)
    pin = new_pin(owner.user_id, board.id)
    assert created == [{"pin_id": pin.id, "board_id": board.id, "pinner_id": owner.user_id,
                        "created_at_us": pin.created_us}]


def test_pin_created_is_sent_once_the_pin_is_readable() -> None:
    seen: list[str] = []

    def receiver(sender: object, pin_id: int, **_: Any) -> None:
        seen.append(get_pin(pin_id).title)

    pin_created.connect(receiver, weak=False)
    try:
        owner = new_pinner()
        new_pin(owner.user_id, new_board(owner.user_id).id, title="Visible")
    finally:
        pin_created.disconnect(receiver)
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


def test_a_failing_receiver_does_not_fail_the_write() -> None:
    def broken(sender: object, **_: Any) -> None:
        raise RuntimeError("feed is down")

    pin_created.connect(broken, weak=False)
    try:
        owner = new_pinner()
        pin = new_pin(owner.user_id, new_board(owner.user_id).id)
    finally:
        pin_created.disconnect(broken)
    assert get_pin(pin.id).id == pin.id
