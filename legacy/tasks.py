"""The import's queue actor: one batch of legacy rows per message, any number of workers.

>>> import_batch.send(batch_id, "mysql://legacy:secret@10.0.0.9:3306/site")
"""

from __future__ import annotations

import dramatiq

QUEUE = "legacy"


@dramatiq.actor(queue_name=QUEUE, actor_name="legacy_import_batch", time_limit=3_600_000,
                max_retries=20, min_backoff=1000, max_backoff=60_000)
def import_batch(batch_id: int, url: str) -> None:
    """Copy one batch (idempotent: a retry or a second delivery copies nothing twice)."""
    from legacy.passes import run_batch

    run_batch(batch_id, url)
