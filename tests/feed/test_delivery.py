"""Pin deliveries and retractions on one cluster: re-checked, idempotent, masked when late; the
write counting that follows a delivery, through RabbitMQ."""

from __future__ import annotations

from typing import Any

import pytest

from feed import delivery, storage, trim, writers
from feed.schema import Entry
from feed.store.pools import CLUSTERS
from graph.actions import follow_user, unfollow_board
from pins.actions import delete_pin
from tests.feed.helpers import (
    board_with_followers,
    feed_ids,
    flush_feed_queues,
    new_pin,
    new_user,
)
from tests.feed.running import RunningQueue
from toolkit.clock import now_us
from toolkit.queue import queue_depths


def test_a_delivery_writes_the_pin_into_every_following_feed() -> None:
    owner, board, followers = board_with_followers(3)
    pin = new_pin(owner, board)
    assert delivery.deliver("primary", pin, board, now_us(), followers) == sorted(followers)
    assert all(feed_ids(follower) == [pin] for follower in followers)


def test_a_delivery_skips_users_who_no_longer_follow_the_board() -> None:
    owner, board, followers = board_with_followers(2)
    pin = new_pin(owner, board)
    unfollow_board(followers[0], board)
    assert delivery.deliver("primary", pin, board, now_us(), followers) == [followers[1]]
    assert feed_ids(followers[0]) == [] and feed_ids(followers[1]) == [pin]


def test_a_delivery_reaches_the_owners_followers() -> None:
    owner, board, _ = board_with_followers(0)
    fan = new_user()
    follow_user(fan, owner)
    pin = new_pin(owner, board)
    delivery.deliver("standby", pin, board, now_us(), [fan])
    assert feed_ids(fan, "standby") == [pin]


def test_delivering_twice_stores_the_pin_once() -> None:
    owner, board, followers = board_with_followers(1)
    pin = new_pin(owner, board)
    created = now_us()
    for _ in range(2):
        delivery.deliver("primary", pin, board, created, followers)
    assert feed_ids(followers[0]) == [pin]


def test_a_deleted_pin_is_not_delivered() -> None:
    owner, board, followers = board_with_followers(1)
    pin = new_pin(owner, board)
    delete_pin(owner, pin)
    assert delivery.deliver("primary", pin, board, now_us(), followers) == []
    assert feed_ids(followers[0]) == []


def test_a_retraction_masks_a_delivery_that_arrives_after_it() -> None:
    owner, board, followers = board_with_followers(1)
    pin = new_pin(owner, board)
    created = now_us()
    delivery.retract("primary", pin, created, created + 10, followers)
    delivery.deliver("primary", pin, board, created, followers)
    assert feed_ids(followers[0]) == []


def test_counting_writes_asks_for_a_trim_at_the_threshold(small_feed: dict[str, int]) -> None:
    users = [new_user(), new_user()]
    storage.count_writes("primary", {users[0]: 1})
    assert trim.count_writes("primary", users) == [users[0]]
    assert storage.read_feed("primary", users[1]).writes == 1


def test_delivered_writes_are_counted_by_their_own_delayed_message(
        running: RunningQueue) -> None:
    owner, board, followers = board_with_followers(2)
    running.settle()
    new_pin(owner, board)
    running.settle()
    assert [storage.read_feed(c, f).writes for c in CLUSTERS for f in followers] == [1, 1, 1, 1]


@pytest.mark.parametrize(("configured", "ready", "delayed"), [(60_000, 0, 1), (0, 1, 0)])
def test_a_deliverys_count_waits_the_count_delay_in_the_delay_queue(
        settings: Any, configured: int, ready: int, delayed: int) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "COUNT_DELAY_MS": configured}
    owner, board, followers = board_with_followers(2)
    pin = new_pin(owner, board)
    flush_feed_queues()
    writers.deliver_pin["standby"].fn(pin, board, now_us(), followers)
    [depth] = queue_depths(["feed_standby"])
    assert (depth.ready, depth.delayed) == (ready, delayed)


def test_retracting_reports_feeds_that_held_the_pin_in_their_complete_part() -> None:
    owner, board, followers = board_with_followers(2)
    pin = new_pin(owner, board)
    created = now_us()
    delivery.deliver("primary", pin, board, created, followers)
    older = Entry(created_us=created - 5, pin_id=1)
    storage.change_feed("primary", followers[0], created, horizons=[older.qualifier])
    assert delivery.retract("primary", pin, created, created + 1, followers) == [followers[0]]
