"""The feed's queue actors: where each runs and in which order a worker takes them."""

from __future__ import annotations

from typing import Any

from feed import tasks
from tests.feed.helpers import CapturedQueue, board_with_followers, new_pin


def test_each_cluster_is_written_from_its_own_queue() -> None:
    for actors in (tasks.deliver_pin, tasks.retract_pin, tasks.apply_follow, tasks.count_writes):
        assert {cluster: actor.queue_name for cluster, actor in actors.items()} == {
            "primary": "feed_primary", "standby": "feed_standby"}


def test_a_worker_takes_the_primary_first_then_the_standby_then_maintenance() -> None:
    """A worker runs its lowest priority number first: the primary serves the reads, and
    counting and trimming can wait for the deliveries."""
    assert tasks.fan_out_pin.priority < tasks.fan_out_pin_to_standby.priority
    writes = [tasks.deliver_pin, tasks.retract_pin, tasks.apply_follow, tasks.apply_unfollow]
    upkeep = [tasks.count_writes, tasks.trim_feed, tasks.refill_feed,
              tasks.rebuild_cluster_feed]
    primary = {actors["primary"].priority for actors in writes}
    standby = {actors["standby"].priority for actors in writes}
    maintenance = {actors[cluster].priority for actors in upkeep for cluster in actors}
    assert max(primary) < min(standby) and max(standby) < min(maintenance)


def test_a_fanout_sends_the_primarys_chunks_before_planning_the_standbys(
        queue: CapturedQueue, settings: Any) -> None:
    settings.PINSITE_FEED = {**settings.PINSITE_FEED, "FANOUT_CHUNK": 2}
    owner, board, fans = board_with_followers(3)
    pin = new_pin(owner, board)
    queue.pending.clear()
    tasks.fan_out_pin.fn(pin, board, 1)
    assert queue.actors() == ["feed_deliver_pin_primary"] * 2 + ["feed_fan_out_pin_standby"]
    assert sorted(user for message in queue.pending[:2] for user in message.args[3]) == sorted(fans)
    queue.pending.clear()
    tasks.fan_out_pin_to_standby.fn(pin, board, 1)
    assert queue.actors() == ["feed_deliver_pin_standby"] * 2
