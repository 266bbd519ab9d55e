"""Queue actors of the graph: thin wrappers over its actions, idempotent, retried with backoff.

>>> forget_board.send(board_id, owner_id)
"""

from __future__ import annotations

from typing import Any

import dramatiq

from graph import actions

QUEUE = "graph"
RETRIES: dict[str, Any] = {"max_retries": 100, "min_backoff": 500, "max_backoff": 600_000}


@dramatiq.actor(queue_name=QUEUE, actor_name="graph_forget_board", **RETRIES)
def forget_board(board_id: int, owner_id: int) -> None:
    """Take a deleted board out of the graph (its follows and unfollow marks, then its keys)."""
    actions.forget_board(board_id, owner_id)
