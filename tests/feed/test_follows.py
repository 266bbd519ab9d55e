"""Follows and unfollows applied to a feed: backfills with the follow time, deletes with the
unfollow time, whatever order the queue delivers them in. The graph's follows go through
RabbitMQ and a worker; the orders a worker would only meet by chance (a late backfill, a
deletion not swept yet) are staged by calling the feed's functions directly."""

from __future__ import annotations

from typing import Any

from feed import follows, sources, storage
from feed.schema import row_key
from feed.store import pools
from feed.store.pools import CLUSTERS
from graph.actions import follow_board, follow_user, unfollow_board, unfollow_user
from pins.actions import delete_pin
from sharding.ids import shard_of
from tests.feed.helpers import feed_ids, feed_ids_on_both, new_board, new_pin, new_user
from tests.feed.running import RunningQueue
from toolkit.clock import now_us


def _creator_with_boards() -> tuple[int, int, int]:
    owner = new_user()
    return owner, new_board(owner, "Soups"), new_board(owner, "Tarts")


def test_following_a_user_backfills_the_pins_of_all_their_boards(running: RunningQueue) -> None:
    owner, soups, tarts = _creator_with_boards()
    pins = [new_pin(owner, soups), new_pin(owner, tarts), new_pin(owner, soups)]
    running.settle()
    fan = new_user()
    follow_user(fan, owner)
    running.settle()
    assert feed_ids_on_both(fan) == pins[::-1]


def test_backfilled_cells_carry_the_follow_time(running: RunningQueue) -> None:
    owner, soups, _ = _creator_with_boards()
    new_pin(owner, soups)
    running.settle()
    fan = new_user()
    change = follow_board(fan, soups)
    running.settle()
    for cluster in CLUSTERS:
        with pools.table(cluster) as hbase:
            found = hbase.row(row_key(fan), columns=[b"feed"], include_timestamp=True)
        assert found and {stamp for _, stamp in found.values()} == {change.action_time_us}


def test_a_follow_backfills_only_the_newest_pins_of_each_board(
        running: RunningQueue, settings: Any) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "BACKFILL_PINS": 2}
    owner, soups, _ = _creator_with_boards()
    pins = [new_pin(owner, soups) for _ in range(3)]
    running.settle()
    fan = new_user()
    follow_board(fan, soups)
    running.settle()
    for cluster in CLUSTERS:
        row = storage.read_feed(cluster, fan)
        assert [entry.pin_id for entry in row.entries] == pins[:0:-1]
        assert row.horizon is not None


def test_a_follow_skips_boards_the_follower_unfollowed(running: RunningQueue) -> None:
    owner, soups, tarts = _creator_with_boards()
    soup, tart = new_pin(owner, soups), new_pin(owner, tarts)
    running.settle()
    fan = new_user()
    follow_user(fan, owner)
    unfollow_board(fan, tarts)
    running.settle()
    assert feed_ids_on_both(fan) == [soup] and tart not in feed_ids(fan)


def test_unfollowing_removes_the_boards_pins(running: RunningQueue) -> None:
    owner, soups, _ = _creator_with_boards()
    pins = [new_pin(owner, soups) for _ in range(2)]
    fan = new_user()
    follow_board(fan, soups)
    running.settle()
    assert feed_ids_on_both(fan) == pins[::-1]
    unfollow_board(fan, soups)
    running.settle()
    assert feed_ids_on_both(fan) == []


def test_a_follow_delivered_after_its_unfollow_stays_masked() -> None:
    owner, soups, _ = _creator_with_boards()
    new_pin(owner, soups)
    fan = new_user()
    followed = follow_board(fan, soups)
    unfollowed = unfollow_board(fan, soups)
    follows.unfollow("primary", fan, "board", soups, unfollowed.action_time_us)
    late_backfill = sources.board_entries(soups, 10)
    storage.add_entries("primary", {fan: late_backfill}, followed.action_time_us)
    assert feed_ids(fan) == []


def test_unfollowing_a_user_keeps_boards_followed_explicitly(running: RunningQueue) -> None:
    owner, soups, tarts = _creator_with_boards()
    soup, tart = new_pin(owner, soups), new_pin(owner, tarts)
    fan = new_user()
    follow_board(fan, tarts)
    follow_user(fan, owner)
    running.settle()
    assert sorted(feed_ids_on_both(fan)) == sorted([soup, tart])
    unfollow_user(fan, owner)
    running.settle()
    assert feed_ids_on_both(fan) == [tart]


def test_an_unfollow_also_sweeps_out_pins_deleted_meanwhile() -> None:
    owner, soups, _ = _creator_with_boards()
    pin = new_pin(owner, soups)
    fan = new_user()
    followed = follow_board(fan, soups)
    follows.follow("primary", fan, "board", soups, followed.action_time_us)
    delete_pin(owner, pin)
    unfollowed = unfollow_board(fan, soups)
    follows.unfollow("primary", fan, "board", soups, unfollowed.action_time_us)
    assert feed_ids(fan) == []


def test_an_unfollow_looks_up_only_the_entries_of_the_followees_shard(
        monkeypatch: Any) -> None:
    """A pin lives on its board's shard and a board on its owner's: the other followees'
    entries of a long row are not read to find the unfollowed one's."""
    owner, soups, _ = _creator_with_boards()
    other = new_user()
    while shard_of(other) == shard_of(owner):
        other = new_user()
    theirs = [new_pin(owner, soups) for _ in range(2)]
    kept = [new_pin(other, new_board(other)) for _ in range(3)]
    fan = new_user()
    for target, kind in ((owner, "user"), (other, "user")):
        followed = follow_user(fan, target)
        follows.follow("primary", fan, kind, target, followed.action_time_us)
    looked_up: list[int] = []
    read = sources.existing_pins

    def recorded(pin_ids: Any) -> dict[int, dict[str, Any]]:
        pin_ids = list(pin_ids)
        looked_up.extend(pin_ids)
        return read(pin_ids)

    monkeypatch.setattr(sources, "existing_pins", recorded)
    unfollowed = unfollow_user(fan, owner)
    follows.unfollow("primary", fan, "user", owner, unfollowed.action_time_us)
    assert sorted(looked_up) == sorted(theirs)
    assert sorted(feed_ids(fan)) == sorted(kept)


def test_following_counts_the_written_entries() -> None:
    owner, soups, _ = _creator_with_boards()
    for _ in range(3):
        new_pin(owner, soups)
    fan = new_user()
    followed = follow_board(fan, soups)
    follows.follow("primary", fan, "board", soups, followed.action_time_us)
    assert storage.read_feed("primary", fan).writes == 3
    assert now_us() > followed.action_time_us
