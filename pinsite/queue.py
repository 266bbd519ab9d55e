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


def configure_broker() -> dramatiq.Broker:
    """Install the RabbitMQ broker for this process (idempotent)."""
    current = dramatiq.get_broker() if _broker_is_set() else None
    if isinstance(current, RabbitmqBroker):
        return current
    middleware = [m() for m in default_middleware if m.__name__ not in EXCLUDED_MIDDLEWARE]
    broker = RabbitmqBroker(url=settings.AMQP_URL, confirm_delivery=True, middleware=middleware)
    dramatiq.set_broker(broker)
    return broker


def _broker_is_set() -> bool:
    return dramatiq.broker.global_broker is not None
