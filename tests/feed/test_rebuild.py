"""Rebuilds: a feed recomputed from the graph and the boards' pins, and refills of feeds that
removals left short of their cap (asked for by the worker's retractions and unfollows)."""

from __future__ import annotations

from typing import Any

from feed import rebuild, sources, storage
from feed.schema import Entry
from feed.store.pools import CLUSTERS
from graph.actions import follow_board, unfollow_board
from pins.actions import delete_pin
from tests.feed.helpers import feed_ids, feed_ids_on_both, new_board, new_pin, new_user
from tests.feed.running import RunningQueue
from toolkit.clock import now_us


def _two_boards_followed() -> tuple[int, int, int, int]:
    owner, follower = new_user(), new_user()
    first, second = new_board(owner, "Old"), new_board(owner, "New")
    follow_board(follower, first)
    follow_board(follower, second)
    return owner, follower, first, second


def test_a_rebuild_restores_a_damaged_feed(running: RunningQueue,
                                           small_feed: dict[str, Any]) -> None:
    owner, follower, first, _ = _two_boards_followed()
    pins = [new_pin(owner, first) for _ in range(3)]
    running.settle()
    stray = Entry(created_us=now_us(), pin_id=pins[0] + 1000)
    storage.change_feed("primary", follower, now_us(), add=[stray],
                        remove=[Entry(0, 0)])
    storage.change_feed("primary", follower, 1, remove=[Entry(now_us(), pins[1])])
    done = rebuild.rebuild("primary", follower)
    assert feed_ids(follower) == pins[::-1]
    assert done.removed == 1


def test_a_rebuild_keeps_the_newest_pins_and_records_a_horizon(
        running: RunningQueue, small_feed: dict[str, Any]) -> None:
    owner, follower, first, second = _two_boards_followed()
    pins = [new_pin(owner, (first, second)[i % 2]) for i in range(10)]
    running.settle()
    rebuild.rebuild("standby", follower)
    row = storage.read_feed("standby", follower)
    assert [entry.pin_id for entry in row.entries] == pins[::-1][:8]
    assert row.horizon is not None and row.complete_count() == 8


def test_an_unfollow_that_leaves_a_trimmed_feed_short_refills_it(
        running: RunningQueue, small_feed: dict[str, Any]) -> None:
    owner, follower, first, second = _two_boards_followed()
    older = [new_pin(owner, first) for _ in range(4)]
    newer = [new_pin(owner, second) for _ in range(9)]
    running.settle()
    assert feed_ids(follower) == newer[::-1][:len(feed_ids(follower))]
    unfollow_board(follower, second)
    running.settle()
    assert feed_ids_on_both(follower) == older[::-1]


def test_deleting_pins_of_a_trimmed_feed_refills_it(running: RunningQueue,
                                                    small_feed: dict[str, Any]) -> None:
    owner, follower, first, second = _two_boards_followed()
    older = [new_pin(owner, first) for _ in range(4)]
    newer = [new_pin(owner, second) for _ in range(9)]
    running.settle()
    for pin in newer[-4:]:
        delete_pin(owner, pin)
    running.settle()
    expected = (newer[:-4][::-1] + older[::-1])[:6]
    assert feed_ids(follower)[:6] == expected


def test_a_feed_that_is_not_short_is_left_alone(running: RunningQueue,
                                                small_feed: dict[str, Any]) -> None:
    owner, follower, first, _ = _two_boards_followed()
    new_pin(owner, first)
    running.settle()
    assert rebuild.refill("primary", follower) is False


def test_feeds_of_several_users_are_rebuilt_together_on_every_cluster(
        running: RunningQueue, small_feed: dict[str, Any]) -> None:
    owner, follower, first, second = _two_boards_followed()
    other = new_user()
    follow_board(other, second)
    pins = [new_pin(owner, (first, second)[i % 2]) for i in range(4)]
    running.settle()
    for user in (follower, other):
        storage.change_feed("standby", user, now_us(),
                            remove=storage.read_entries("standby", user))
        assert feed_ids(user, "standby") == []
    done = rebuild.rebuild_feeds([other, follower, other], CLUSTERS)
    assert feed_ids_on_both(follower) == pins[::-1]
    assert feed_ids_on_both(other) == [pins[3], pins[1]]
    assert sorted(done) == sorted((cluster, user) for cluster in CLUSTERS
                                  for user in (follower, other))
    assert done[("standby", other)].entries == 2


def test_a_rebuild_reads_on_past_a_full_head_of_a_board(
        running: RunningQueue, small_feed: dict[str, Any], monkeypatch: Any) -> None:
    owner, follower, first, _ = _two_boards_followed()
    pins = [new_pin(owner, first) for _ in range(5)]
    running.settle()
    monkeypatch.setattr(sources, "MAX_PAGE", 3)  # a head holds 3: the rest is read on
    storage.change_feed("primary", follower, now_us(),
                        remove=storage.read_entries("primary", follower))
    assert feed_ids(follower) == []
    rebuild.rebuild("primary", follower)
    assert feed_ids(follower) == pins[::-1]
