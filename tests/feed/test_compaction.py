"""The compaction trap: once a major compaction purges an unfollow's delete markers, only the
delivery's re-check of the follow edge keeps a replayed old delivery out of the feed.

The follow, the delivery and the unfollow run through RabbitMQ and a worker; the replayed
delivery is sent again through RabbitMQ (a redelivered message), the raw writes that show the
trap go straight to the store."""

from __future__ import annotations

from feed import storage, writers
from feed.schema import Entry
from graph.actions import follow_board, unfollow_board
from pins.selectors import get_pin
from tests.feed.helpers import feed_ids, major_compact_feed, new_board, new_pin, new_user
from tests.feed.running import RunningQueue


def _unfollowed_after_a_pin(running: RunningQueue) -> tuple[int, int, int, int]:
    owner, fan = new_user(), new_user()
    board = new_board(owner)
    follow_board(fan, board)
    running.settle()
    pin = new_pin(owner, board)
    created = get_pin(pin).created_us
    running.settle()
    assert feed_ids(fan) == [pin]
    unfollow_board(fan, board)
    running.settle()
    assert feed_ids(fan) == []
    return board, fan, pin, created


def test_a_replayed_delivery_after_a_major_compaction_stays_out(running: RunningQueue) -> None:
    board, fan, pin, created = _unfollowed_after_a_pin(running)
    major_compact_feed()
    writers.deliver_pin["primary"].send(pin, board, created, [fan])
    running.settle()
    assert feed_ids(fan) == []


def test_without_the_recheck_the_compacted_feed_would_show_the_pin_again(
        running: RunningQueue) -> None:
    _, fan, pin, created = _unfollowed_after_a_pin(running)
    major_compact_feed()
    storage.add_entries("primary", {fan: [Entry(created, pin)]}, timestamp=created)
    assert feed_ids(fan) == [pin]


def test_before_the_compaction_the_delete_marker_alone_masks_the_old_write(
        running: RunningQueue) -> None:
    _, fan, pin, created = _unfollowed_after_a_pin(running)
    storage.add_entries("primary", {fan: [Entry(created, pin)]}, timestamp=created)
    assert feed_ids(fan) == []
