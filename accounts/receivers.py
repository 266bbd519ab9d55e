"""Account deletion starts when the content domain records ``account_deletion_requested``.

Subscribed by :class:`accounts.apps.AccountsConfig` when Django starts.
"""

from __future__ import annotations

from typing import Any

from dramatiq import Message

from accounts import tasks
from events.registry import Payload, subscribe
from pins.events import ACCOUNT_DELETION_REQUESTED


def on_deletion_requested(p: Payload) -> list[Message[Any]]:
    return [tasks.delete_account.message(p["user_id"])]


def connect() -> None:
    """Subscribe (idempotent)."""
    subscribe(ACCOUNT_DELETION_REQUESTED, on_deletion_requested,
              uid="accounts.deletion_requested")
