"""Trimming: counted writes decide when, a trim off the write path keeps the newest entries."""

from __future__ import annotations

from typing import Any

import pytest

from feed import storage, trim
from feed.schema import Entry
from feed.store.pools import CLUSTERS
from graph.actions import follow_board
from tests.feed.helpers import feed_ids, new_board, new_pin, new_user
from tests.feed.running import RunningQueue
from toolkit.clock import now_us


def _fill(user: int, count: int) -> list[Entry]:
    base = now_us()
    entries = [Entry(created_us=base + i, pin_id=1000 + i) for i in range(count)]
    storage.add_entries("primary", {user: entries}, timestamp=base)
    storage.count_writes("primary", {user: count})
    return entries[::-1]


def test_the_trim_sizes_follow_the_cap_and_slack(small_feed: dict[str, Any]) -> None:
    assert (trim.keep(), trim.threshold(), trim.reserve()) == (8, 2, 2)
    assert not trim.due(1) and trim.due(2)


def test_a_trim_keeps_the_newest_entries_and_records_a_horizon(
        small_feed: dict[str, Any]) -> None:
    user = new_user()
    newest_first = _fill(user, 12)
    assert trim.trim("primary", user) == 4
    row = storage.read_feed("primary", user)
    assert row.entries == newest_first[:8]
    assert row.horizon == newest_first[8].qualifier
    assert row.writes == 0


def test_overlapping_trims_of_a_row_take_its_count_once(
        small_feed: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Two trims of one row read it before either reset its counter (two trim messages sent
    for successive counts, run by two worker threads): the second must not take the writes
    off again, or the counter goes below zero and the row outgrows its bound before the next
    trim is due."""
    user = new_user()
    _fill(user, 12)
    read_by_the_other_trim = storage.read_feed("primary", user)
    assert trim.trim("primary", user) == 4
    monkeypatch.setattr(storage, "read_feed", lambda cluster, user_id: read_by_the_other_trim)
    trim.trim("primary", user)
    assert storage.writes_counted("primary", [user]) == {user: 0}
    assert trim.count_writes("primary", [user], trim.threshold()) == [user]


def test_trimming_twice_changes_nothing_more(small_feed: dict[str, Any]) -> None:
    user = new_user()
    _fill(user, 10)
    trim.trim("primary", user)
    before = storage.read_feed("primary", user)
    assert trim.trim("primary", user) == 0
    assert storage.read_feed("primary", user) == before


def _within_bound_and_exact(fan: int, pins: list[int], feed: dict[str, Any]) -> None:
    for cluster in CLUSTERS:
        stored = feed_ids(fan, cluster)
        assert len(stored) < feed["CAP"] + feed["SLACK"], (cluster, stored)
        assert stored[:feed["CAP"]] == pins[::-1][:feed["CAP"]], cluster


def test_a_busy_feed_stays_within_cap_plus_slack_with_its_newest_entries_exact(
        running: RunningQueue, small_feed: dict[str, Any]) -> None:
    """Each pin through the worker: its fanout, its deliveries, their counts delayed in
    RabbitMQ's delay queues and the trims those ask for."""
    owner, fan = new_user(), new_user()
    board = new_board(owner)
    follow_board(fan, board)
    running.settle()
    pins = []
    for _ in range(15):
        pins.append(new_pin(owner, board))
        running.settle()
    _within_bound_and_exact(fan, pins, small_feed)
    assert storage.read_feed("primary", fan).horizon is not None  # a trim ran


def test_a_burst_of_pins_sent_together_is_trimmed_to_the_bound_once_the_queue_drains(
        running: RunningQueue, small_feed: dict[str, Any]) -> None:
    """Deliveries racing their delayed counts and trims on four worker threads."""
    owner, fan = new_user(), new_user()
    board = new_board(owner)
    follow_board(fan, board)
    running.settle()
    pins = [new_pin(owner, board) for _ in range(20)]
    running.settle()
    _within_bound_and_exact(fan, pins, small_feed)
