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
from collections.abc import Sequence

from events import marker
from events.conf import events_settings
from events.record import Event, publish
from toolkit.threads import Batcher

_publisher: Batcher[Event] = Batcher(
    publish, "events-publisher",  # publish logs a failure; the relay sends those rows later
    linger=lambda: events_settings.number("PUBLISH_LINGER_MS") / 1000,
    limit=lambda: events_settings.number("PUBLISH_BATCH"))


def publish_soon(events: Sequence[Event]) -> None:
    """Hand ``events`` (recorded and committed) to this process's publisher thread."""
    _publisher.submit(events)


def flush(timeout: float = 5.0) -> bool:
    """Wait until this process's handed-over events are published (or failed and left to the
    relay); False on timeout."""
    return _publisher.flush(timeout)


def flush_and_mark(timeout: float = 5.0) -> bool:
    """Every event of this process published and its row marked sent, now (tests,
    benchmarks); False if the publishing took longer than ``timeout``."""
    published = flush(timeout)
    marker.flush()
    return published


atexit.register(flush)
