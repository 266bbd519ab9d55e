"""The feed's queue actors: where each runs and in which order a worker takes them."""

from __future__ import annotations

from typing import Any

import pytest

from feed import planning, tasks, writers
from tests.feed.helpers import CapturedQueue, board_with_followers, new_pin


def test_each_cluster_is_written_from_its_own_queue() -> None:
    for actors in (writers.deliver_pin, writers.retract_pin, writers.apply_follow,
                   writers.count_writes):
        assert {cluster: actor.queue_name for cluster, actor in actors.items()} == {
            "primary": "feed_primary", "standby": "feed_standby"}


def test_a_worker_takes_the_primary_first_then_the_standby_then_maintenance() -> None:
    """A worker runs its lowest priority number first: the primary serves the reads, and
    counting and trimming can wait for the deliveries."""
    writes = [writers.deliver_pin, writers.retract_pin, writers.apply_follow,
              writers.apply_unfollow]
    upkeep = [writers.count_writes, writers.trim_feed, writers.refill_feed,
              writers.rebuild_cluster_feed]
    primary = {actors["primary"].priority for actors in writes}
    standby = {actors["standby"].priority for actors in writes}
    maintenance = {actors[cluster].priority for actors in upkeep for cluster in actors}
    assert max(primary) < min(standby) and max(standby) < min(maintenance)


@pytest.mark.parametrize("batch", [100, 1])
def test_a_fanout_sends_the_primarys_chunks_then_the_standbys_in_one_transaction(
        queue: CapturedQueue, settings: Any, monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "FANOUT_CHUNK": 2}
    monkeypatch.setattr(planning, "BATCH", batch)
    owner, board, fans = board_with_followers(3)
    pin = new_pin(owner, board)
    queue.clear()
    tasks.fan_out_pin.fn(pin, board, 1)
    primary, standby = ["feed_deliver_pin_primary"], ["feed_deliver_pin_standby"]
    if batch == 1:
        assert queue.actors() == primary + standby + primary + standby
        assert queue.batches == [2, 2]
    else:
        assert queue.actors() == primary * 2 + standby * 2
        assert queue.batches == [4]
    chunks = [message.args[3] for message in queue.pending]
    assert sorted(user for chunk in chunks for user in chunk) == sorted(fans * 2)
