"""Deleting a board reaches everything: the graph (both sides, the edge log, implicit follows),
both feed clusters, and the media folder; ``graph verify --all`` stays clean. Real stack, real
queue worker."""

from __future__ import annotations

from pathlib import Path

import dramatiq
import pytest
from django.conf import settings

from feed.store.pools import CLUSTERS
from graph import actions as graph
from graph import selectors
from graph.tables import USER_FOLLOWS_BOARD, USER_UNFOLLOWS_BOARD
from pins.actions import delete_board
from pins.selectors import get_pin
from sharding import mappings
from tests.feed.helpers import feed_ids, new_board, new_pin, new_user
from tests.graph.helpers import verify_all
from tests.polling import wait_until


def media_file(name: str) -> Path:
    return Path(settings.MEDIA_ROOT) / name


@pytest.mark.alone
def test_a_deleted_board_leaves_the_graph_the_feeds_and_the_disk(
        worker: dramatiq.Worker) -> None:
    owner = new_user()
    doomed, kept = new_board(owner, "Doomed"), new_board(owner, "Kept")
    gone = [new_pin(owner, doomed, "Gone 1"), new_pin(owner, doomed, "Gone 2")]
    stays = new_pin(owner, kept, "Stays")
    files = [media_file(name) for pin in gone
             for name in (get_pin(pin).image, get_pin(pin).thumbnail)]
    assert all(path.exists() for path in files)
    board_fan, owner_fan, unfollower, both = (new_user() for _ in range(4))
    graph.follow_board(board_fan, doomed)
    graph.follow_user(owner_fan, owner)
    graph.follow_user(unfollower, owner)
    graph.unfollow_board(unfollower, doomed)
    graph.follow_user(both, owner)
    graph.follow_board(both, doomed)
    everyone = [board_fan, owner_fan, unfollower, both]
    assert wait_until(lambda: all(set(gone) <= set(feed_ids(f, c))
                                  for f in (board_fan, owner_fan, both) for c in CLUSTERS))

    delete_board(owner, doomed)

    assert wait_until(lambda: not any(set(gone) & set(feed_ids(f, c))
                                      for f in everyone for c in CLUSTERS), timeout=60)
    for fan in (owner_fan, unfollower, both):
        assert all(stays in feed_ids(fan, cluster) for cluster in CLUSTERS)
    assert wait_until(lambda: not list(selectors.iter_board_side(doomed)))
    for fan in everyone:
        assert not mappings.contains(USER_FOLLOWS_BOARD, fan, doomed)
        assert not mappings.contains(USER_UNFOLLOWS_BOARD, fan, doomed)
    assert selectors.follow_kind(board_fan, owner) is None  # its implicit follow went
    assert selectors.follow_kind(both, owner) == "explicit"
    assert wait_until(lambda: not any(path.exists() for path in files), timeout=30)
    report = verify_all()
    assert report["difference_count"] == 0 and report["orphan_rows"] == 0, report


def test_deleting_a_board_again_after_an_interrupted_delete_finishes_it(
        worker: dramatiq.Worker) -> None:
    owner, fan = new_user(), new_user()
    board = new_board(owner)
    graph.follow_board(fan, board)
    graph.forget_board(board, owner)  # a first run of the graph's part, then again:
    graph.forget_board(board, owner)
    assert not mappings.contains(USER_FOLLOWS_BOARD, fan, board)
    delete_board(owner, board)
    assert wait_until(lambda: not list(selectors.iter_board_side(board)))
