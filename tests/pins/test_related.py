"""Related pins by board co-occurrence, counted once per repin, strongest first, bounded."""

from __future__ import annotations

import dramatiq
import pytest

from pins import related
from pins.actions import repin
from pins.related import record_repin, related_pins
from pins.types import PIN_RELATES_TO_PIN
from sharding import mappings
from tests.pins.helpers import new_board, new_pin, new_pinner
from tests.polling import wait_until


def _weights(pin_id: int) -> dict[int, int]:
    return {pin.id: weight for pin, weight in related_pins(pin_id, limit=100)}


def test_a_repin_relates_its_source_to_the_pins_on_its_board_both_ways() -> None:
    ann, bob = new_pinner(), new_pinner()
    board = new_board(ann.user_id)
    quiche, tart = (new_pin(ann.user_id, board.id, title) for title in ("Quiche", "Tart"))
    soup = new_pin(bob.user_id, new_board(bob.user_id).id, "Soup")
    saved = repin(ann.user_id, soup.id, board.id)
    assert record_repin(saved.id) == 2
    assert _weights(soup.id) == {quiche.id: 1, tart.id: 1}
    assert _weights(quiche.id) == {soup.id: 1}
    assert _weights(saved.id) == {quiche.id: 1, tart.id: 1}  # a repin stands for its source


def test_each_repin_counts_once_and_more_shared_boards_weigh_more() -> None:
    ann, bob, cat = new_pinner(), new_pinner(), new_pinner()
    soup = new_pin(bob.user_id, new_board(bob.user_id).id, "Soup")
    first = new_board(ann.user_id)
    bread, cheese = (new_pin(ann.user_id, first.id, t) for t in ("Bread", "Cheese"))
    saved = repin(ann.user_id, soup.id, first.id)
    assert record_repin(saved.id) == 2
    assert record_repin(saved.id) == 0  # a second delivery of the same repin
    second = new_board(cat.user_id)
    repin(cat.user_id, bread.id, second.id)
    assert record_repin(repin(cat.user_id, soup.id, second.id).id) == 1
    assert list(_weights(soup.id).items()) == [(bread.id, 2), (cheese.id, 1)]


def test_each_pin_keeps_only_its_strongest_related_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(related, "RELATED_LIMIT", 3)
    ann, bob = new_pinner(), new_pinner()
    board = new_board(ann.user_id)
    for n in range(5):
        new_pin(ann.user_id, board.id, f"Pin {n}")
    soup = new_pin(bob.user_id, new_board(bob.user_id).id, "Soup")
    assert record_repin(repin(ann.user_id, soup.id, board.id).id) == 5
    assert mappings.count(PIN_RELATES_TO_PIN, soup.id) == 3


def test_an_upload_relates_nothing_and_deleted_pins_are_skipped() -> None:
    ann = new_pinner()
    board = new_board(ann.user_id)
    pin = new_pin(ann.user_id, board.id)
    assert record_repin(pin.id) == 0
    assert related_pins(pin.id) == []


def test_the_worker_relates_a_repin_made_through_the_action(worker: dramatiq.Worker) -> None:
    ann, bob = new_pinner(), new_pinner()
    board = new_board(ann.user_id)
    quiche = new_pin(ann.user_id, board.id, "Quiche")
    soup = new_pin(bob.user_id, new_board(bob.user_id).id, "Soup")
    repin(ann.user_id, soup.id, board.id)
    assert wait_until(lambda: _weights(soup.id) == {quiche.id: 1})
