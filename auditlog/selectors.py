"""Reading the operator audit log: the newest entries, filtered, and their JSON form.

>>> [entry.action for entry in newest(action="shards", limit=2)]
['shards.promote', 'shards.open']
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Q

from auditlog.models import AuditEntry


def newest(since: datetime | None = None, action: str | None = None,
           limit: int = 50) -> list[AuditEntry]:
    """The newest ``limit`` entries started at ``since`` or later, newest first. ``action``
    names one action (``shards.promote``) or a family of them (``shards``)."""
    query = AuditEntry.objects.all()
    if since is not None:
        query = query.filter(started__gte=since)
    if action:
        query = query.filter(Q(action=action) | Q(action__startswith=f"{action}."))
    return list(query.order_by("-started", "-id")[:limit])


def entry_json(entry: AuditEntry) -> dict[str, Any]:
    """One entry as ``audit show --json`` prints it (times in ISO 8601, UTC)."""
    return {"id": entry.pk, "action": entry.action, "target": entry.target,
            "arguments": entry.arguments,
            "actor": {"kind": entry.actor_kind, "name": entry.actor,
                      "detail": entry.actor_detail},
            "process": entry.process, "started": entry.started.isoformat(),
            "finished": entry.finished.isoformat() if entry.finished else None,
            "seconds": entry.seconds, "outcome": entry.outcome, "error": entry.error,
            "result": entry.result}
