"""Queue actors of account deletion (retried with backoff; each run is idempotent).

>>> delete_account.send(user_id)
"""

from __future__ import annotations

from typing import Any

import dramatiq

from accounts import actions

QUEUE = "accounts"
RETRIES: dict[str, Any] = {"max_retries": 100, "min_backoff": 1000, "max_backoff": 600_000}


@dramatiq.actor(queue_name=QUEUE, actor_name="accounts_delete_account", time_limit=3_600_000,
                **RETRIES)
def delete_account(user_id: int) -> None:
    """Delete a pinner's account and everything it made or follows."""
    actions.delete_account(user_id)
