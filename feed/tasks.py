"""Queue actors of the feed's planning (queue ``feed``): one call each into
:mod:`feed.planning`, which sends the writes to the cluster actors (:mod:`feed.writers`,
queues ``feed_primary`` and ``feed_standby``). Importing this module declares them all. Every
actor takes IDs and times, is idempotent and can run twice or out of order; failures retry
with backoff and then land in the queue's dead-letter queue (:mod:`feed.queues`).

>>> fan_out_pin.send(pin_id, board_id, created_us)
"""

from __future__ import annotations

import dramatiq

from feed import planning
from feed.queues import PLANNING_QUEUE, RETRIES

DRAIN_TIME_LIMIT_MS = 24 * 3600 * 1000
"""A drain writes a board's newest pins to all its followers: far longer than a message."""


@dramatiq.actor(queue_name=PLANNING_QUEUE, actor_name="feed_fan_out_pin", **RETRIES)
def fan_out_pin(pin_id: int, board_id: int, created_us: int) -> None:
    planning.fan_out_pin(pin_id, board_id, created_us, drain=drain_board.send)


@dramatiq.actor(queue_name=PLANNING_QUEUE, actor_name="feed_drain_board",
                time_limit=DRAIN_TIME_LIMIT_MS, **RETRIES)
def drain_board(board_id: int) -> None:
    planning.drain_board(board_id)


@dramatiq.actor(queue_name=PLANNING_QUEUE, actor_name="feed_fan_out_removal", **RETRIES)
def fan_out_removal(pin_id: int, board_id: int, created_us: int, deleted_us: int) -> None:
    planning.fan_out_removal(pin_id, board_id, created_us, deleted_us)


@dramatiq.actor(queue_name=PLANNING_QUEUE, actor_name="feed_forget_board", **RETRIES)
def forget_board(board_id: int, owner_id: int, deleted_us: int) -> None:
    planning.forget_board(board_id, owner_id, deleted_us)
