"""Celebrity boards: not fanned out above the threshold, merged into feeds when read, and
switched back to push (drained) below it; in both directions nothing is lost or shown twice."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import dramatiq
import pytest
from django.core.management import call_command
from pytest_django import Settings

from feed import pulled, sources
from feed.schema import newest_first
from feed.selectors import feed_page
from feed.smart import generator, pools
from feed.smart.service import home_page
from feed.store.pools import CLUSTERS
from graph.actions import follow_board, unfollow_board
from pins.actions import delete_board
from tests.feed.helpers import (
    board_with_followers,
    feed_ids,
    feed_ids_on_both,
    new_board,
    new_pin,
    new_user,
)
from tests.feed.running import RunningQueue
from tests.polling import wait_until

THRESHOLD = 2


@pytest.fixture
def celebrities(settings: Settings) -> Iterator[dict[str, Any]]:
    """Boards with more than two followers are pulled; the boards a test pulled leave the
    node afterwards."""
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "PULL_ABOVE": THRESHOLD}
    pulled.init()
    before = set(pulled.fresh())
    yield settings.PINSITE_FEED
    for board in set(pulled.fresh()) - before:
        pulled.switch(board, None)


def pooled(user: int) -> list[int]:
    """The pins of the user's ``following`` pool (smart feed)."""
    return [c.pin_id for c in pools.best(user, "following", 100)]


def scroll(user: int, limit: int) -> list[int]:
    """Every pin of the user's following feed, page after page."""
    shown: list[int] = []
    cursor = None
    for _ in range(1000):
        page = feed_page(user, limit=limit, after=cursor)
        shown += [pin.id for pin in page.items]
        cursor = page.next_cursor
        if cursor is None:
            return shown
    raise AssertionError("the feed never ended")


def model(boards: list[int]) -> list[int]:
    """The reference feed: every pin of the boards, newest first (ties by pin ID)."""
    return [entry.pin_id for entry in newest_first(
        [entry for board in boards for entry in sources.board_entries(board, 10_000)])]


@pytest.mark.usefixtures("celebrities")
def test_a_board_above_the_threshold_is_pulled_not_fanned_out(running: RunningQueue) -> None:
    owner, board, fans = board_with_followers(THRESHOLD)
    pushed = new_pin(owner, board, "Pushed")
    running.settle()
    assert board not in pulled.fresh()
    late_fan = new_user()
    follow_board(late_fan, board)
    running.settle()
    star = new_pin(owner, board, "Pulled")
    running.settle()
    assert pulled.fresh()[board].state == pulled.PULL
    for fan in [*fans, late_fan]:
        assert all(star not in feed_ids(fan, cluster) for cluster in CLUSTERS)
        assert [pin.id for pin in feed_page(fan).items] == [star, pushed]


@pytest.mark.usefixtures("celebrities")
def test_a_pulled_board_below_the_threshold_is_drained_back_to_push(running: RunningQueue,
                                                                    ) -> None:
    owner, board, fans = board_with_followers(THRESHOLD + 1)
    running.settle()
    first = new_pin(owner, board, "First")
    second = new_pin(owner, board, "Second")
    running.settle()
    assert pulled.fresh()[board].state == pulled.PULL
    assert feed_ids(fans[0]) == []
    unfollow_board(fans[2], board)
    running.settle()
    third = new_pin(owner, board, "Third")  # 2 followers now: pushed again, and drained
    running.settle()
    assert board not in pulled.fresh()
    for fan in fans[:2]:
        assert feed_ids_on_both(fan) == [third, second, first]
        assert scroll(fan, limit=2) == [third, second, first]
    assert scroll(fans[2], limit=2) == []


@pytest.mark.usefixtures("celebrities")
def test_a_feed_merges_pushed_and_pulled_pins_in_order_across_pages(running: RunningQueue,
                                                                   ) -> None:
    owner, star_board, fans = board_with_followers(THRESHOLD + 1)
    reader = fans[0]
    friend = new_user()
    friend_board = new_board(friend, "Everyday")
    follow_board(reader, friend_board)
    for turn in range(6):
        new_pin(owner, star_board, f"Star {turn}")
        new_pin(friend, friend_board, f"Friend {turn}")
    running.settle()
    assert pulled.is_pulled(star_board)
    expected = model([star_board, friend_board])
    assert len(expected) == 12
    for limit in (1, 3, 5, 50):
        assert scroll(reader, limit) == expected
    unfollow_board(reader, star_board)
    running.settle()
    assert scroll(reader, limit=4) == model([friend_board])


@pytest.mark.usefixtures("celebrities")
def test_a_visit_pulls_celebrity_pins_as_candidates_and_the_queue_keeps_the_rest(
        running: RunningQueue) -> None:
    """The generator reads the pulled boards' new pins beside the pool and writes nothing; once
    the chunk is shown, the queue puts the pins it did not use into the pool and moves the
    pull mark, so the next visit pulls none of them again."""
    owner, board, fans = board_with_followers(THRESHOLD + 1)
    reader = fans[0]
    pins = [new_pin(owner, board, "Warm-up")]  # switches the board to pull
    running.settle()
    assert pulled.is_pulled(board)
    before = pooled(reader)  # the warm-up, if the smart feed planned it before the switch
    pins += [new_pin(owner, board, f"Pulled {n}") for n in range(3)]
    running.settle()
    newest = max(e.created_us for e in sources.board_entries(board, 5))
    chunk = generator.generate(reader, limit=1)
    [pick] = chunk.picks
    assert pick.pin_id in pins and pick.source == "following"
    assert chunk.pulled_mark_us == newest
    assert pooled(reader) == before and pools.pulled_mark(reader) is None
    assert generator.generate(reader, limit=1).picks == [pick]  # nothing changed: same pick
    shown = home_page(reader, limit=1)
    assert [item.id for item in shown.items] == [pick.pin_id]
    running.settle()
    assert pools.pulled_mark(reader) == newest
    kept = set(pooled(reader))
    assert kept == set(pins) - {pick.pin_id}
    later = generator.generate(reader, limit=10)
    assert later.pulled == [] and later.pulled_mark_us is None
    assert {c.pin_id for c in later.picks} == kept


def test_scrolling_past_the_cap_continues_by_pull_without_repeats_or_gaps(
        running: RunningQueue, small_feed: dict[str, Any], celebrities: dict[str, Any]) -> None:
    cap = small_feed["CAP"]
    reader = new_user()
    boards = []
    for index in range(3):
        owner = new_user()
        board = new_board(owner, f"Board {index}")
        follow_board(reader, board)
        boards.append((owner, board))
    star_owner, star_board, _ = board_with_followers(THRESHOLD + 1)
    follow_board(reader, star_board)
    boards.append((star_owner, star_board))
    for turn in range(5 * cap // 4 + 1):
        for owner, board in boards:
            new_pin(owner, board, f"Pin {turn}")
    running.settle()
    assert pulled.is_pulled(star_board)
    expected = model([board for _, board in boards])
    assert len(expected) > 5 * cap
    assert len(feed_ids(reader)) < len(expected)  # the row holds only its cap and slack
    for limit in (1, 4, cap, cap + 1, 50):
        assert scroll(reader, limit) == expected


@pytest.mark.usefixtures("celebrities")
def test_feed_pulled_lists_the_pulled_boards(running: RunningQueue) -> None:
    owner, board, _ = board_with_followers(THRESHOLD + 1)
    running.settle()
    new_pin(owner, board)
    running.settle()
    out = io.StringIO()
    call_command("feed", "pulled", "--json", stdout=out)
    listed = json.loads(out.getvalue())
    assert listed["pull_above"] == THRESHOLD
    assert {"board_id": board, "state": "pull", "followers": THRESHOLD + 1}.items() <= next(
        item for item in listed["boards"] if item["board_id"] == board).items()
    out = io.StringIO()
    call_command("feed", "pulled", stdout=out)
    assert f"{board}  pull " in out.getvalue()


@pytest.mark.usefixtures("celebrities")
def test_the_switch_both_ways_through_a_real_worker(worker: dramatiq.Worker) -> None:
    owner, board, fans = board_with_followers(THRESHOLD + 1)
    assert wait_until(lambda: sources.board_follower_count(board) == THRESHOLD + 1)
    pulled_pin = new_pin(owner, board, "Pulled")
    assert wait_until(lambda: pulled.is_pulled(board), timeout=20)
    for fan in fans:
        assert [pin.id for pin in feed_page(fan).items] == [pulled_pin]
    unfollow_board(fans[2], board)
    pushed_pin = new_pin(owner, board, "Pushed again")
    assert wait_until(lambda: board not in pulled.fresh(), timeout=30)  # drained
    assert wait_until(lambda: all(feed_ids(fan) == [pushed_pin, pulled_pin]
                                  for fan in fans[:2]), timeout=20)
    for fan in fans[:2]:
        assert scroll(fan, limit=1) == [pushed_pin, pulled_pin]
    follow_board(fans[2], board)
    new_pin(owner, board, "Pulled again")
    assert wait_until(lambda: pulled.is_pulled(board), timeout=20)
    delete_board(owner, board)
    assert wait_until(lambda: board not in pulled.fresh(), timeout=30)
    assert wait_until(lambda: all(scroll(fan, limit=2) == [] for fan in fans), timeout=20)
