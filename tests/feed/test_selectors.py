"""Feed pages: newest first, cursor paging, hydration through the object store, failover."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_django import Settings

from feed import speculative
from feed.exceptions import InvalidFeedInput
from feed.selectors import feed_head, feed_page
from graph.actions import follow_board
from pins.actions import delete_pin
from sharding.exceptions import MalformedObjectId
from tests.addresses import CLOSED
from tests.feed.helpers import new_board, new_pin, new_user
from tests.feed.running import RunningQueue
from toolkit.paging import InvalidPageSize


def _feed_of(pins: int, running: RunningQueue) -> tuple[int, int, list[int]]:
    owner, fan = new_user(), new_user()
    board = new_board(owner)
    follow_board(fan, board)
    made = [new_pin(owner, board, title=f"Pin {i}") for i in range(pins)]
    running.settle()
    return owner, fan, made[::-1]



def test_a_page_holds_hydrated_pins_newest_first(running: RunningQueue) -> None:
    _, fan, pins = _feed_of(3, running)
    page = feed_page(fan)
    assert [pin.id for pin in page.items] == pins
    assert page.items[0].title == "Pin 2" and page.next_cursor is None


def test_pages_follow_the_cursor_to_the_end(running: RunningQueue) -> None:
    _, fan, pins = _feed_of(5, running)
    first = feed_page(fan, limit=2)
    second = feed_page(fan, limit=2, after=first.next_cursor)
    third = feed_page(fan, limit=2, after=second.next_cursor)
    assert [p.id for p in first.items + second.items + third.items] == pins
    assert third.next_cursor is None


def test_deleted_pins_are_skipped(running: RunningQueue) -> None:
    owner, fan, pins = _feed_of(3, running)
    delete_pin(owner, pins[1])
    assert [pin.id for pin in feed_page(fan).items] == [pins[0], pins[2]]


def test_the_row_serves_its_newest_cap_entries_and_older_pins_come_by_pull(
        running: RunningQueue, small_feed: dict[str, Any]) -> None:
    # 10 pins: a trim comes once 2 writes are counted, so the last one reads the row with at
    # least 9 of them, one more than a trim keeps (with 9 it could read 8, and drop nothing)
    _, fan, pins = _feed_of(10, running)
    row = feed_head(fan)
    assert len(row.entries) > small_feed["CAP"] and row.horizon is not None
    assert pins[-1] not in [entry.pin_id for entry in row.entries]  # trimmed away
    first = feed_page(fan, limit=small_feed["CAP"])
    assert [pin.id for pin in first.items] == pins[:small_feed["CAP"]]
    rest = feed_page(fan, limit=small_feed["CAP"], after=first.next_cursor)
    assert [pin.id for pin in rest.items] == pins[small_feed["CAP"]:]
    assert [pin.id for pin in feed_page(fan).items] == pins
    head = feed_page(fan, limit=small_feed["CAP"] - 1)  # the row is long: its head is read
    assert [pin.id for pin in head.items] == pins[:small_feed["CAP"] - 1]
    rest = feed_page(fan, limit=small_feed["CAP"], after=head.next_cursor)
    assert [pin.id for pin in rest.items] == pins[small_feed["CAP"] - 1:][:small_feed["CAP"]]


def test_a_bad_cursor_is_refused() -> None:
    with pytest.raises(InvalidFeedInput):
        feed_page(str(new_user()), limit=5, after="not-a-cursor")


@pytest.mark.parametrize("limit", [0, 10_000])
def test_a_bad_page_size_is_refused(limit: int) -> None:
    with pytest.raises(InvalidPageSize, match=r"1\.\.200"):
        feed_page(str(new_user()), limit=limit)


@pytest.mark.parametrize("user", ["nobody", 12, "{board}"])
def test_an_id_that_is_not_a_users_is_refused(user: Any) -> None:
    with pytest.raises(MalformedObjectId):
        feed_page(str(new_board(new_user())) if user == "{board}" else user)


def test_an_unreachable_primary_is_read_around(running: RunningQueue, settings: Settings,
                                               fresh_pools: None) -> None:
    _, fan, pins = _feed_of(2, running)
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "PRIMARY": CLOSED}
    before = speculative.answers.answered["standby"]
    assert [pin.id for pin in feed_page(fan).items] == pins
    assert speculative.answers.answered["standby"] == before + 1
