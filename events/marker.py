"""Marking fast-path rows sent, in batches, from one background thread per process.

A publish must not cost another commit on the shard host (every commit waits for a disk sync
and the replica's acknowledgement), so the rows a process published are marked together every
``MARK_INTERVAL_MS``. A row whose mark is lost (the process died first) is published again by
the relay after the grace period: a duplicate, which consumers ignore.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections import defaultdict
from collections.abc import Iterable
from typing import Protocol

from events.conf import events_settings
from sharding import outbox
from sharding.exceptions import ShardingError
from toolkit.clock import now_us
from toolkit.threads import ProcessThread

log = logging.getLogger("pinsite.events")


class Marked(Protocol):
    """A published event: the host and outbox row it was recorded as."""

    @property
    def alias(self) -> str: ...

    @property
    def id(self) -> int | None: ...


class Marker:
    """Collects ``(alias, row ID)`` pairs and marks them sent in one UPDATE per host."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flushing = threading.Lock()
        """Held through a flush: a caller's flush waits for the thread's flush in flight, so
        what it returns on has been marked."""
        self._pending: dict[str, list[int]] = defaultdict(list)
        self._wake = threading.Event()
        self._thread = ProcessThread(self._run, "events-marker")

    def add(self, events: Iterable[Marked]) -> None:
        with self._lock:
            for event in events:
                if event.id is not None:
                    self._pending[event.alias].append(event.id)
        self._thread.ensure()

    def flush(self) -> int:
        """Mark everything collected so far (and wait for a flush already under way); returns
        how many rows this call changed."""
        with self._flushing:
            with self._lock:
                pending, self._pending = self._pending, defaultdict(list)
            marked = 0
            for alias, ids in pending.items():
                try:
                    marked += outbox.mark_sent(alias, ids, now_us())
                except ShardingError as exc:
                    log.warning("marking %d event(s) sent on %s failed (%s); the relay will "
                                "send them again", len(ids), alias, exc)
            return marked

    def _run(self) -> None:
        interval = events_settings.MARK_INTERVAL_MS / 1000
        while True:
            self._wake.wait(interval)
            self._wake.clear()
            self.flush()


_marker = Marker()


def mark_sent(events: Iterable[Marked]) -> None:
    """Have these published rows marked sent soon (in the background)."""
    _marker.add(events)


def flush() -> int:
    """Mark what this process published so far, now (tests, benchmarks, exit)."""
    return _marker.flush()


atexit.register(flush)
