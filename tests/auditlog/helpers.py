"""Reading back what the operator audit log recorded during a test.

>>> since = timezone.now()
>>> failover.promote("mysql999a")           # raises
>>> recorded("shards.promote", "mysql999a", since)[0].outcome
'failed'
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from auditlog.models import AuditEntry


def recorded(action: str, target: str, since: datetime, **fields: Any) -> list[AuditEntry]:
    """The entries of ``action`` on ``target`` started at ``since`` or later, oldest first."""
    return list(AuditEntry.objects.filter(action=action, target=target, started__gte=since,
                                          **fields).order_by("started", "id"))


def the_entry(action: str, target: str, since: datetime, **fields: Any) -> AuditEntry:
    """The one entry of ``action`` on ``target`` since ``since`` (the test fails otherwise)."""
    found = recorded(action, target, since, **fields)
    assert len(found) == 1, [str(entry) for entry in found]
    return found[0]


def result_of(entry: AuditEntry) -> dict[str, Any]:
    """What the entry's operation recorded that it did (the test fails if nothing)."""
    assert isinstance(entry.result, dict), entry.result
    return entry.result
