"""Recording events in the outbox, and the fast path that publishes them after the commit.

>>> with atomic(shard):
...     pin_id = objects.create(PIN, shard, data)
...     record(shard, "pin_created", pin_id=pin_id, board_id=board_id, ...)

:func:`record` must run inside the transaction on ``shard``'s master: the row commits or rolls
back with the change. By default the events of a transaction are published together right
after its commit; ``publish_on_commit=False`` leaves that to the caller (the graph publishes
once Redis shows the change). A failed publish is only logged: the row stays unsent and the
relay (:mod:`events.relay`) publishes it after ``RELAY_GRACE_MS``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import connections

from events import marker, registry
from events.conf import events_settings, hold
from sharding import outbox
from sharding.hosts import Answer, after_commit, transaction_alias
from toolkit.clock import now_us
from toolkit.queue import BROKER_ERRORS, send_all

log = logging.getLogger("pinsite.events")
_BATCH = "_pinsite_events"
_direct = threading.local()


@dataclass(frozen=True)
class Event:
    """An event recorded on ``alias`` as outbox row ``id`` (``None`` without an outbox)."""

    alias: str
    id: int | None
    shard: int
    name: str
    payload: dict[str, Any]


def record(shard: int, name: str, *, publish_on_commit: bool = True, **payload: Any) -> Event:
    """Write event ``name`` into the outbox of ``shard``'s host, in the open transaction: the
    one :func:`sharding.hosts.atomic` opened for ``shard``, on the host it pinned, even if the
    shard map moved the shard meanwhile (that transaction's commit then fails)."""
    return record_many(name, [(shard, payload)], publish_on_commit=publish_on_commit)[0]


def record_many(name: str, rows: Sequence[tuple[int, dict[str, Any]]], *,
                publish_on_commit: bool = True) -> list[Event]:
    """Several events ``name``, ``(shard, payload)`` each, as :func:`record` writes one, with
    one multi-row insert into the outbox: their shards are all in one open transaction."""
    aliases = {transaction_alias(shard) for shard, _ in rows}
    if len(aliases) != 1 or None in aliases:
        raise RuntimeError(f"events {name} must be recorded inside one transaction on their "
                           f"shards (sharding.hosts.atomic or atomic_on_host)")
    alias = str(aliases.pop())
    row_ids: Sequence[int | None] = (
        [None] * len(rows) if _without_outbox()
        else outbox.insert_many(alias, name, rows, now_us()))
    events = [Event(alias, row_id, shard, name, payload)
              for row_id, (shard, payload) in zip(row_ids, rows, strict=True)]
    if publish_on_commit:
        _batch_of_transaction(alias).extend(events)
    return events


@dataclass(frozen=True)
class PendingEvent:
    """An event recorded only if a change sent ahead of it changed a row
    (:func:`record_if_changed`): :meth:`event` tells, once the transaction read their
    answers."""

    alias: str
    shard: int
    name: str
    payload: dict[str, Any]
    change: Answer
    row: Answer | None

    def event(self) -> Event | None:
        """The event recorded, or None if the change changed nothing."""
        if self.row is None:  # without an outbox
            return Event(self.alias, None, self.shard, self.name, self.payload) \
                if self.change.changed else None
        rows = self.row.rows
        return Event(self.alias, int(rows[0][0]), self.shard, self.name, self.payload) \
            if rows else None


def record_if_changed(change: Answer, shard: int, name: str, **payload: Any) -> PendingEvent:
    """Write event ``name`` into the outbox of ``shard``'s host, in the open transaction as
    :func:`record` does, if the statement of ``change`` (sent ahead on that host, right before
    this) changed a row: no wait for either answer, and no event when it changed nothing.
    The caller publishes it (as with ``publish_on_commit=False``)."""
    alias = transaction_alias(shard)
    if alias is None:
        raise RuntimeError(f"event {name} must be recorded inside a transaction on its shard")
    row = None if _without_outbox() else outbox.insert_if_changed(
        alias, change, shard, name, payload, now_us())
    return PendingEvent(alias, shard, name, payload, change, row)


def publish(events: Sequence[Event]) -> bool:
    """Publish ``events`` now and have them marked sent; False (and logged) if the broker
    failed, in which case the relay sends them later."""
    if not events:
        return True
    hold(events_settings.HOLD_BEFORE_PUBLISH_MS)
    try:
        send_all(message for event in events
                 for message in registry.messages_for(event.name, event.payload))
    except BROKER_ERRORS as exc:
        log.warning("publishing %d event(s) failed (%s); the relay will send them (first: "
                    "%s %s)", len(events), exc, events[0].name, events[0].payload)
        return False
    except Exception:
        log.exception("publishing %d event(s) failed; the relay will send them (first: %s %s)",
                      len(events), events[0].name, events[0].payload)
        return False
    marker.mark_sent(events)
    return True


def _batch_of_transaction(alias: str) -> list[Event]:
    """The events of the open transaction on ``alias``, published together on commit (kept
    on the outermost atomic block, so a rolled-back transaction takes its list with it)."""
    block = connections[alias].atomic_blocks[0]
    batch: list[Event] | None = getattr(block, _BATCH, None)
    if batch is None:
        batch = []
        setattr(block, _BATCH, batch)
        after_commit(alias, lambda: publish(batch))
    return batch


@contextmanager
def without_outbox() -> Iterator[None]:
    """Publish after the commit without recording rows (the benchmark's baseline only)."""
    _direct.on = True
    try:
        yield
    finally:
        _direct.on = False


def _without_outbox() -> bool:
    return bool(getattr(_direct, "on", False))

