"""Queue actors of accounts: deletion and data exports (retried with backoff; each run is
idempotent).

>>> delete_account.send(user_id)
>>> build_export.send(export_id)
"""

from __future__ import annotations

from typing import Any

import dramatiq

from accounts import actions, exports

QUEUE = "accounts"
RETRIES: dict[str, Any] = {"max_retries": 100, "min_backoff": 1000, "max_backoff": 600_000}
EXPORT_TIME_LIMIT_MS = 25 * 60_000
"""A build's time limit: under RabbitMQ's consumer timeout (30 minutes by default), past
which the broker would take the unacknowledged message back and deliver it again."""


@dramatiq.actor(queue_name=QUEUE, actor_name="accounts_delete_account", time_limit=3_600_000,
                **RETRIES)
def delete_account(user_id: int) -> None:
    """Delete a pinner's account and everything it made or follows."""
    actions.delete_account(user_id)


@dramatiq.actor(queue_name=QUEUE, actor_name="accounts_build_export",
                time_limit=EXPORT_TIME_LIMIT_MS, max_retries=20, min_backoff=5000,
                max_backoff=300_000)
def build_export(export_id: int) -> None:
    """Write a pinner's data export, from scratch on every run; the row's attempts, not
    ``max_retries``, decide when it is given up (``EXPORT_ATTEMPTS``)."""
    exports.build_export(export_id)
