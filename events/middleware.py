"""Runs the outbox relay inside every queue worker process (``dramatiq pinsite.worker``, and so
``manage.py runsite``), so no extra process is needed to deliver what the fast path missed."""

from __future__ import annotations

from typing import Any

import dramatiq

from events.conf import events_settings
from events.relay import Relay


class RelayMiddleware(dramatiq.Middleware):
    """Starts a :class:`~events.relay.Relay` when a worker boots, stops it at shutdown."""

    def __init__(self) -> None:
        self.relays: dict[int, Relay] = {}

    def after_worker_boot(self, broker: dramatiq.Broker, worker: Any) -> None:
        if not events_settings.RELAY_IN_WORKERS:
            return
        relay = self.relays[id(worker)] = Relay()
        relay.start()

    def before_worker_shutdown(self, broker: dramatiq.Broker, worker: Any) -> None:
        relay = self.relays.pop(id(worker), None)
        if relay is not None:
            relay.stop()
