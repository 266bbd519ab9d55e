"""The fast path in the background: events handed over once their change is done, published in
batches from one thread per process.

An action that has committed its change (the graph: and applied it to Redis) hands its events
over with :func:`publish_soon` and returns at once, without waiting for RabbitMQ's disk sync.
The thread takes the first event handed over and whatever follows within
``PUBLISH_LINGER_MS``, up to ``PUBLISH_BATCH`` events, and publishes them in one AMQP
transaction (:func:`events.record.publish`), so concurrent actions share one sync. It sleeps
through the linger rather than waking for each event handed over meanwhile: under load those
wake-ups cost more than the rest of the hand-over. Nothing
is lost when the process dies first: the rows are committed and unsent in the outbox, and the
relay publishes them after ``RELAY_GRACE_MS``.

>>> publish_soon([change.event])
>>> flush()          # tests, benchmarks and exit: wait until all of it is published
True
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import time
from collections.abc import Sequence

from events import marker
from events.conf import events_settings
from events.record import Event, publish
from toolkit.threads import ProcessThread

log = logging.getLogger("pinsite.events")


class Publisher:
    """A queue of handed-over events and the thread that publishes them in batches."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self._idle = threading.Condition()
        self._handed = self._done = 0
        self._thread = ProcessThread(self._run, "events-publisher")

    def submit(self, events: Sequence[Event]) -> None:
        if not events:
            return
        with self._idle:
            self._handed += len(events)
        for event in events:
            self._queue.put(event)
        self._thread.ensure()

    def flush(self, timeout: float) -> bool:
        """Wait until everything handed over so far is published (or failed and left to the
        relay); False if that took longer than ``timeout`` seconds."""
        with self._idle:
            target = self._handed
            return self._idle.wait_for(lambda: self._done >= target, timeout)

    def _run(self) -> None:
        limit = events_settings.number("PUBLISH_BATCH")
        linger = events_settings.number("PUBLISH_LINGER_MS") / 1000
        while True:
            batch = [self._queue.get()]
            time.sleep(linger)  # asleep, not woken by every event handed over meanwhile
            while len(batch) < limit:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                publish(batch)  # logs a failure; the relay sends those rows later
            except Exception:  # the thread must outlive any bug in one batch
                log.exception("publishing %d event(s) failed", len(batch))
            finally:
                with self._idle:
                    self._done += len(batch)
                    self._idle.notify_all()


_publisher = Publisher()


def publish_soon(events: Sequence[Event]) -> None:
    """Hand ``events`` (recorded and committed) to this process's publisher thread."""
    _publisher.submit(events)


def flush(timeout: float = 5.0) -> bool:
    """Wait until this process's handed-over events are published; False on timeout."""
    return _publisher.flush(timeout)


def flush_and_mark(timeout: float = 5.0) -> bool:
    """Every event of this process published and its row marked sent, now (tests,
    benchmarks); False if the publishing took longer than ``timeout``."""
    published = flush(timeout)
    marker.flush()
    return published


atexit.register(flush)
