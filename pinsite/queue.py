"""The task queue: Dramatiq on RabbitMQ.

Actors receive IDs and timestamps, never objects, and are idempotent. Retries back off
exponentially; a message that exhausts its retries lands in the queue's dead-letter queue
(``<queue>.XQ``), where operators can see it. The broker is configured once Django's settings
are loaded (``PinsiteConfig.ready``), never at import time, and connects lazily.
"""

from __future__ import annotations

import dramatiq
from django.conf import settings
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from dramatiq.middleware import default_middleware

# The Prometheus exporter would listen on a fixed, non-loopback port in every worker.
EXCLUDED_MIDDLEWARE = {"Prometheus"}


_configured: dramatiq.Broker | None = None


def configure_broker() -> dramatiq.Broker:
    """Install the RabbitMQ broker for this process (idempotent). Must run before any actor
    module is imported: actors bind to the broker installed when they are declared."""
    global _configured
    if _configured is None:
        middleware = [m() for m in default_middleware if m.__name__ not in EXCLUDED_MIDDLEWARE]
        _configured = RabbitmqBroker(url=settings.AMQP_URL, confirm_delivery=True,
                                     middleware=middleware)
        dramatiq.set_broker(_configured)
    return _configured
