"""Follows and unfollows applied to a feed: backfills with the follow time, deletes with the
unfollow time, whatever order the queue delivers them in."""

from __future__ import annotations

from typing import Any

from feed import follows, sources, storage
from feed.schema import row_key
from feed.store import pools
from graph.actions import follow_board, follow_user, unfollow_board, unfollow_user
from pins.actions import delete_pin
from sharding.mappings import now_sequence
from tests.feed.helpers import CapturedQueue, feed_ids, new_board, new_pin, new_user


def _creator_with_boards() -> tuple[int, int, int]:
    owner = new_user()
    return owner, new_board(owner, "Soups"), new_board(owner, "Tarts")


def test_following_a_user_backfills_the_pins_of_all_their_boards(queue: CapturedQueue) -> None:
    owner, soups, tarts = _creator_with_boards()
    pins = [new_pin(owner, soups), new_pin(owner, tarts), new_pin(owner, soups)]
    fan = new_user()
    change = follow_user(fan, owner)
    follows.follow("primary", fan, "user", owner, change.action_time_us)
    assert feed_ids(fan) == pins[::-1]


def test_backfilled_cells_carry_the_follow_time(queue: CapturedQueue) -> None:
    owner, soups, _ = _creator_with_boards()
    new_pin(owner, soups)
    fan = new_user()
    change = follow_board(fan, soups)
    follows.follow("primary", fan, "board", soups, change.action_time_us)
    with pools.table("primary") as hbase:
        found = hbase.row(row_key(fan), columns=[b"feed"], include_timestamp=True)
    assert found and {stamp for _, stamp in found.values()} == {change.action_time_us}


def test_a_follow_backfills_only_the_newest_pins_of_each_board(
        queue: CapturedQueue, settings: Any) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "BACKFILL_PINS": 2}
    owner, soups, _ = _creator_with_boards()
    pins = [new_pin(owner, soups) for _ in range(3)]
    fan = new_user()
    change = follow_board(fan, soups)
    follows.follow("primary", fan, "board", soups, change.action_time_us)
    row = storage.read_feed("primary", fan)
    assert [entry.pin_id for entry in row.entries] == pins[:0:-1]
    assert row.horizon is not None


def test_a_follow_skips_boards_the_follower_unfollowed(queue: CapturedQueue) -> None:
    owner, soups, tarts = _creator_with_boards()
    soup, tart = new_pin(owner, soups), new_pin(owner, tarts)
    fan = new_user()
    change = follow_user(fan, owner)
    unfollow_board(fan, tarts)
    follows.follow("primary", fan, "user", owner, change.action_time_us)
    assert feed_ids(fan) == [soup] and tart not in feed_ids(fan)


def test_unfollowing_removes_the_boards_pins(queue: CapturedQueue) -> None:
    owner, soups, _ = _creator_with_boards()
    pins = [new_pin(owner, soups) for _ in range(2)]
    fan = new_user()
    followed = follow_board(fan, soups)
    follows.follow("standby", fan, "board", soups, followed.action_time_us)
    assert sorted(feed_ids(fan, "standby")) == sorted(pins)
    unfollowed = unfollow_board(fan, soups)
    follows.unfollow("standby", fan, "board", soups, unfollowed.action_time_us)
    assert feed_ids(fan, "standby") == []


def test_a_follow_delivered_after_its_unfollow_stays_masked(queue: CapturedQueue) -> None:
    owner, soups, _ = _creator_with_boards()
    new_pin(owner, soups)
    fan = new_user()
    followed = follow_board(fan, soups)
    unfollowed = unfollow_board(fan, soups)
    follows.unfollow("primary", fan, "board", soups, unfollowed.action_time_us)
    late_backfill = sources.board_entries(soups, 10)
    storage.add_entries("primary", {fan: late_backfill}, followed.action_time_us)
    assert feed_ids(fan) == []


def test_unfollowing_a_user_keeps_boards_followed_explicitly(queue: CapturedQueue) -> None:
    owner, soups, tarts = _creator_with_boards()
    soup, tart = new_pin(owner, soups), new_pin(owner, tarts)
    fan = new_user()
    follow_board(fan, tarts)
    followed = follow_user(fan, owner)
    follows.follow("primary", fan, "user", owner, followed.action_time_us)
    unfollowed = unfollow_user(fan, owner)
    follows.unfollow("primary", fan, "user", owner, unfollowed.action_time_us)
    assert feed_ids(fan) == [tart] and soup not in feed_ids(fan)


def test_an_unfollow_also_sweeps_out_pins_deleted_meanwhile(queue: CapturedQueue) -> None:
    owner, soups, _ = _creator_with_boards()
    pin = new_pin(owner, soups)
    fan = new_user()
    followed = follow_board(fan, soups)
    follows.follow("primary", fan, "board", soups, followed.action_time_us)
    delete_pin(owner, pin)
    unfollowed = unfollow_board(fan, soups)
    follows.unfollow("primary", fan, "board", soups, unfollowed.action_time_us)
    assert feed_ids(fan) == []


def test_following_counts_the_written_entries(queue: CapturedQueue) -> None:
    owner, soups, _ = _creator_with_boards()
    for _ in range(3):
        new_pin(owner, soups)
    fan = new_user()
    followed = follow_board(fan, soups)
    follows.follow("primary", fan, "board", soups, followed.action_time_us)
    assert storage.read_feed("primary", fan).writes == 3
    assert now_sequence() > followed.action_time_us
