"""``pinner.feed``: pages of the following feed and an operator's rebuild, through the manager,
on the real HBase clusters and a real worker."""

from __future__ import annotations

import pytest

from feed import storage
from feed.exceptions import InvalidFeedInput
from feed.schema import Entry
from feed.selectors import feed_page
from feed.store.pools import CLUSTERS
from pins.domain import User
from pins.models import Pinner
from tests.feed.helpers import feed_ids_on_both, new_board, new_pin, new_user
from tests.feed.running import RunningQueue
from toolkit.clock import now_us


def test_the_feed_manager_pages_what_the_feed_holds(running: RunningQueue) -> None:
    owner, fan = new_user(), User.objects.get(new_user())
    board = new_board(owner)
    fan.follow(board)
    pins = [new_pin(owner, board, f"Pin {n}") for n in range(5)][::-1]
    running.settle()
    first = fan.feed.page(limit=3)
    rest = fan.feed.page(limit=3, after=first.next_cursor)
    assert first.ids + rest.ids == pins and rest.next_cursor is None
    assert first == feed_page(fan.id, limit=3)
    assert Pinner.objects.get(user_id=fan.id).feed.page().ids == pins
    assert [entry.pin_id for entry in fan.feed.head().entries] == pins


def test_the_feed_manager_refuses_a_bad_cursor() -> None:
    with pytest.raises(InvalidFeedInput):
        User.objects.get(new_user()).feed.page(after="not-a-cursor")


def test_rebuild_restores_the_feed_on_every_cluster(running: RunningQueue) -> None:
    owner, fan = new_user(), User.objects.get(new_user())
    board = new_board(owner)
    fan.follow(board)
    pins = [new_pin(owner, board) for _ in range(2)][::-1]
    running.settle()
    stray = Entry(created_us=now_us(), pin_id=pins[0] + 1000)
    for cluster in CLUSTERS:
        storage.change_feed(cluster, fan.id, now_us(), add=[stray])
    assert fan.feed.rebuild() == {cluster: {"entries": 2, "removed": 1} for cluster in CLUSTERS}
    assert feed_ids_on_both(fan.id) == pins
