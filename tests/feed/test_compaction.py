"""The compaction trap: once a major compaction purges an unfollow's delete markers, only the
delivery's re-check of the follow edge keeps a replayed old delivery out of the feed."""

from __future__ import annotations

from feed import delivery, follows, storage
from feed.schema import Entry
from feed.store.tables import major_compact
from graph.actions import follow_board, unfollow_board
from pins.selectors import get_pin
from tests.feed.helpers import CapturedQueue, feed_ids, new_board, new_pin, new_user


def _unfollowed_after_a_pin() -> tuple[int, int, int, int]:
    owner, fan = new_user(), new_user()
    board = new_board(owner)
    follow_board(fan, board)
    pin = new_pin(owner, board)
    created = get_pin(pin).created_us
    delivery.deliver("primary", pin, board, created, [fan])
    unfollowed = unfollow_board(fan, board)
    follows.unfollow("primary", fan, "board", board, unfollowed.action_time_us)
    assert feed_ids(fan) == []
    return board, fan, pin, created


def test_a_replayed_delivery_after_a_major_compaction_stays_out(queue: CapturedQueue) -> None:
    board, fan, pin, created = _unfollowed_after_a_pin()
    major_compact("primary")
    delivery.deliver("primary", pin, board, created, [fan])
    assert feed_ids(fan) == []


def test_without_the_recheck_the_compacted_feed_would_show_the_pin_again(
        queue: CapturedQueue) -> None:
    _, fan, pin, created = _unfollowed_after_a_pin()
    major_compact("primary")
    storage.add_entries("primary", {fan: [Entry(created, pin)]}, timestamp=created)
    assert feed_ids(fan) == [pin]


def test_before_the_compaction_the_delete_marker_alone_masks_the_old_write(
        queue: CapturedQueue) -> None:
    _, fan, pin, created = _unfollowed_after_a_pin()
    storage.add_entries("primary", {fan: [Entry(created, pin)]}, timestamp=created)
    assert feed_ids(fan) == []
