"""Domain events the graph subscribes to: a deleted board leaves the graph.

Subscribed by :class:`graph.apps.GraphConfig` when Django starts.
"""

from __future__ import annotations

from typing import Any

from dramatiq import Message

from events.registry import Payload, subscribe
from graph import tasks
from pins.events import BOARD_DELETED


def on_board_deleted(p: Payload) -> list[Message[Any]]:
    return [tasks.forget_board.message(p["board_id"], p["owner_id"])]


def connect() -> None:
    """Subscribe the graph to the content's events (idempotent)."""
    subscribe(BOARD_DELETED, on_board_deleted, uid="graph.board_deleted")
