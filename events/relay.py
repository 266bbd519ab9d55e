"""The outbox relay: publishes what the fast path missed, in order, and purges old rows.

Every queue worker process runs one (:mod:`events.middleware`), and ``manage.py events
relay`` runs one in the foreground. On each shard master, only the relay holding the host's
lease (a MySQL named lock, freed when its connection ends) works: it reads the oldest unsent
rows older than ``RELAY_GRACE_MS`` in ID order, publishes their messages in AMQP transactions,
and only then marks them sent. Killed between the two, the next holder publishes them again;
consumers are idempotent.

>>> relay = Relay()
>>> relay.start()          # a daemon thread
>>> relay.stop()
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from django.db import connections
from dramatiq import Message

from events import journal, registry
from events.conf import events_settings, hold
from sharding import outbox
from sharding.exceptions import ShardingError
from sharding.topology import current_map
from toolkit.clock import now_us
from toolkit.queue import BROKER_ERRORS, send_all

log = logging.getLogger("pinsite.events")


@dataclass
class Relay:
    """Publishes every shard host's outbox; :meth:`run_once` does one pass over the hosts."""

    sent: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    """The hosts the last pass could not work on, with why."""
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _purged_at: dict[str, float] = field(default_factory=dict)

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="events-relay", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self) -> None:
        """Relay until stopped: at once again after a full batch, else after a poll interval."""
        failing = False
        try:
            while not self._stop.is_set():
                try:
                    busy = self.run_once() >= events_settings.RELAY_BATCH
                    if failing:
                        log.warning("event relay: publishing again")
                    failing = False
                except BROKER_ERRORS as exc:
                    if not failing:
                        log.warning("event relay: the broker is unreachable (%s); the outbox "
                                    "keeps the events, retrying every poll", exc)
                    failing, busy = True, False
                except Exception:
                    log.exception("event relay pass failed; retrying")
                    busy = False
                if not busy:
                    self._stop.wait(events_settings.RELAY_POLL_MS / 1000)
        finally:
            connections.close_all()

    def run_once(self) -> int:
        """One batch from each host this relay holds the lease of; returns rows sent. A host
        that fails is logged, left in :attr:`failed` and passed over."""
        sent = 0
        self.failed = {}
        for alias in current_map().masters():
            try:
                if not _leased(alias):
                    continue
                sent += self.relay_host(alias)
                self._purge(alias)
            except ShardingError as exc:
                self.failed[alias] = str(exc)
                log.warning("event relay: %s failed (%s)", alias, exc)
        return sent

    def relay_host(self, alias: str, created_before_us: int | None = None) -> int:
        """Publish one batch of ``alias``'s unsent rows written before ``created_before_us``
        (default: the grace period ago), then mark them sent."""
        if created_before_us is None:
            created_before_us = now_us() - events_settings.RELAY_GRACE_MS * 1000
        ready: list[tuple[outbox.Row, list[Message[Any]]]] = []
        after = 0
        while not ready:
            rows = outbox.unsent(alias, events_settings.RELAY_BATCH, created_before_us, after)
            if not rows:
                return 0
            built = [(row, _messages(alias, row)) for row in rows]
            ready = [(row, messages) for row, messages in built if messages is not None]
            after = rows[-1].id  # a batch of nothing but failing rows: look past it
        send_all(message for _, messages in ready for message in messages)
        hold(events_settings.HOLD_BEFORE_MARK_MS)
        outbox.mark_sent(alias, [row.id for row, _ in ready], now_us())
        self.sent += len(ready)
        return len(ready)

    def _purge(self, alias: str) -> None:
        interval = events_settings.PURGE_INTERVAL_MS / 1000
        if time.monotonic() - self._purged_at.get(alias, 0.0) < interval:
            return
        self._purged_at[alias] = time.monotonic()
        before = journal.kept_since()
        while outbox.purge(alias, before, events_settings.PURGE_CHUNK) == \
                events_settings.PURGE_CHUNK:
            pass


def _leased(alias: str) -> bool:
    return outbox.holds_lease(alias) or outbox.take_lease(alias)


def _messages(alias: str, row: outbox.Row) -> list[Message[Any]] | None:
    """The row's messages; ``None`` if a subscriber fails on it: the row stays unsent (and
    shows as an old backlog in ``events show``) while the rows after it go on."""
    try:
        return registry.messages_for(row.name, row.payload)
    except Exception:
        log.exception("event %d on %s (%s %s) cannot be turned into messages", row.id, alias,
                      row.name, row.payload)
        return None

