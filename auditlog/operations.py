"""Recording an operation in the audit log: ``with operation(action, target, arguments):``.

The entry is written in ``default`` when the block starts (outcome ``running``), so an
operation whose process dies still shows, and completed when it ends: ``ok``, or ``failed``
with the error (which goes on up), with the seconds it took. The actor is whoever this
context acts for (:func:`toolkit.acting.current`). An operation started inside another one
(the reconcile of a promotion, the moves of a split) belongs to the outer entry and writes
none of its own, so each operation is recorded once.

The log never stops the work it records: when ``default`` cannot be written, the operation
goes on and a WARNING in the process's log says what was not recorded.

>>> with operation("shards.promote", target="mysql001a", arguments={"wait": 5.0}) as op:
...     report = promote("mysql001a", 5.0)
...     op.result = {"new_master": report.new_master}
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, Error, connections, transaction
from django.utils import timezone

from auditlog.models import FAILED, OK, AuditEntry
from toolkit import acting

log = logging.getLogger("pinsite.auditlog")


@dataclass
class Running:
    """The operation under way. Set ``result`` (JSON) to keep what it did in its entry."""

    action: str
    target: str
    entry_id: int | None = None
    result: Any = None


_running: ContextVar[Running | None] = ContextVar("pinsite_operation", default=None)


@contextmanager
def operation(action: str, target: object = "",
              arguments: Mapping[str, Any] | None = None) -> Iterator[Running]:
    """Record the block as ``action`` on ``target`` (see the module)."""
    running = Running(action, str(target))
    if _running.get() is not None:
        yield running  # part of the operation under way
        return
    running.entry_id = _start(running, _json(dict(arguments or {})), acting.current())
    token = _running.set(running)
    began = time.monotonic()
    try:
        yield running
    except BaseException as exc:
        _finish(running, FAILED, time.monotonic() - began, f"{type(exc).__name__}: {exc}")
        raise
    else:
        _finish(running, OK, time.monotonic() - began)
    finally:
        _running.reset(token)


def _start(running: Running, arguments: dict[str, Any], actor: acting.Actor) -> int | None:
    entry = AuditEntry(action=running.action, target=running.target[:255], arguments=arguments,
                       actor_kind=actor.kind, actor=actor.name[:150], actor_detail=actor.detail,
                       process=acting.process_name(), started=timezone.now())
    what = f"{running.action} {running.target} by {actor} with {arguments}"
    return entry.pk if _written(lambda: entry.save(force_insert=True), what) else None


def _finish(running: Running, outcome: str, seconds: float, error: str = "") -> None:
    what = f"{running.action} {running.target}: {outcome} in {seconds:.3f}s {error}".rstrip()
    entry_id = running.entry_id
    if entry_id is None:
        log.warning("operator audit log: not recorded: %s", what)
        return
    _written(lambda: AuditEntry.objects.filter(pk=entry_id).update(
        finished=timezone.now(), seconds=round(seconds, 3), outcome=outcome, error=error,
        result=_json(running.result)), what)


def _written(write: Callable[[], object], what: str) -> bool:
    """Run ``write`` in a transaction (a savepoint inside a caller's) on ``default``;
    False, with a WARNING, when the database cannot take it."""
    try:
        with transaction.atomic(using=DEFAULT_DB_ALIAS):
            write()
        return True
    except Error as exc:
        log.warning("operator audit log unavailable (%s: %s): %s", type(exc).__name__, exc, what)
        _drop_connection()
        return False


def _drop_connection() -> None:
    """Close ``default``'s connection after a failed write (unless a caller's transaction
    holds it), so the next entry connects afresh instead of reusing a broken one."""
    connection = connections[DEFAULT_DB_ALIAS]
    if not connection.in_atomic_block:
        with suppress(Error):
            connection.close()


def _json(value: Any) -> Any:
    """``value`` as the JSON column stores it (sets, tuples and other types as text)."""
    return json.loads(json.dumps(value, default=str))
